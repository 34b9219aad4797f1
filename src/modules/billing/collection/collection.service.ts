import type { Tx } from '../../../db/database.js';
import type { Actor } from '../../../kernel/actor.js';
import { conflict } from '../../../kernel/errors.js';
import { newId } from '../../../kernel/ids.js';
import { recordEvent } from '../subscriptions/subscriptions.audit.js';
import { chargeKey, merchantOidFor, priceFor } from '../billing.domain.js';
import { planOrThrow } from '../catalog/catalog.plans.js';
import type { PaymentMethodRow, PaymentRow, PlanRow, SubscriptionRow } from '../billing.repository.js';
import type { BillingDeps } from '../billing.deps.js';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.js';
import type { ProviderOutcome } from '../checkout/checkout.service.js';
import { paymentView } from '../billing.views.js';
import { PaytrError } from '../provider/paytr/index.js';

const BATCH = 50;
/** Provider calls in flight at once per run (each waits on the network, not on the database). */
const CONCURRENCY = 8;

export interface CollectionDeps extends Pick<BillingDeps, 'db' | 'repo' | 'clock' | 'time' | 'identity' | 'provider' | 'log' | 'publicBaseUrl'> {
  subscriptions: Pick<SubscriptionsService, 'applyDue' | 'lockedSubscription' | 'subscriptionResponse'>;
  /** The one path from a provider's word to a settled payment (checkout's). */
  settle(merchantOid: string, outcome: ProviderOutcome): Promise<'settled' | 'already_settled' | 'unknown'>;
}

/** A charge recorded (pending) and committed, to be sent to the provider with no transaction open. */
interface Charge {
  payment: PaymentRow;
  card: PaymentMethodRow;
  utoken: string;
  planName: string;
}

export type CollectionService = ReturnType<typeof createCollectionService>;

/**
 * Automatic collection (contract 19.2, 19.3): the renewal charge at a period's end and the dunning retries, with the
 * workspace's default card and no customer present; and "retry now". Each charge is a payment written, with a key
 * unique per subscription, period and attempt, in the transaction that claims the subscription (SKIP LOCKED), before
 * the provider is called: so at most one charge per key whatever the instances, restarts or callbacks, and a charge
 * whose answer was lost stays pending until reconciliation (13) asks the provider, never charged again blindly.
 */
export function createCollectionService(deps: CollectionDeps) {
  const { db, repo, clock, time, identity, log } = deps;
  const { applyDue, lockedSubscription, subscriptionResponse } = deps.subscriptions;

  /** Writes the pending payment of one charge (the caller holds the subscription's lock); undefined: nothing to charge. */
  async function recordCharge(
    tx: Tx,
    sub: SubscriptionRow,
    kind: 'renewal' | 'retry',
    now: Date,
    batch: { cards?: Awaited<ReturnType<typeof repo.findChargeCards>>; plans: Map<string, PlanRow> } = { plans: new Map() },
  ): Promise<Charge | undefined> {
    const cards = batch.cards ?? (await repo.findChargeCards(tx, [sub.workspace_id]));
    const found = cards.get(sub.workspace_id);
    if (!found) return undefined;
    const plans = batch.plans;
    const { utoken, ...card } = found;
    let plan = plans.get(sub.plan_slug);
    if (!plan) plans.set(sub.plan_slug, (plan = await planOrThrow(repo, sub.plan_slug, tx)));
    // The plan's price for the interval now (no coupon of an earlier payment); a plan no longer sold keeps its price.
    const amount = priceFor(plan, sub.billing_interval) ?? sub.amount_per_period;
    if (amount <= 0) return undefined;
    const key = chargeKey(sub.id, sub.current_period_end, kind, kind === 'retry' ? sub.dunning_attempts + 1 : 0);
    const payment = await repo.insertChargePayment(tx, {
      id: newId(),
      workspace_id: sub.workspace_id,
      merchant_oid: merchantOidFor(key),
      plan_slug: sub.plan_slug,
      billing_interval: sub.billing_interval,
      list_amount: amount,
      discount_amount: 0,
      amount,
      currency: sub.currency,
      coupon_code: null,
      status: 'pending',
      failure_reason: null,
      provider_total_amount: null,
      created_by: null,
      created_at: now,
      paid_at: null,
      updated_at: now,
      kind,
      payment_method_id: card.id,
      period_start: sub.current_period_end,
      charge_key: key,
    });
    if (!payment) return undefined;
    await repo.updateSubscription(
      tx,
      sub.workspace_id,
      sub.id,
      kind === 'renewal' ? { renewal_charged_for: sub.current_period_end, updated_at: now } : { next_retry_at: null, updated_at: now },
    );
    await recordEvent(repo, tx, {
      workspaceId: sub.workspace_id,
      type: 'payment.created',
      paymentId: payment.id,
      subscriptionId: sub.id,
      to: 'pending',
      data: { amount, currency: payment.currency, kind },
      at: now,
    });
    return { payment, card, utoken, planName: plan.name };
  }

  /** Sends one recorded charge to the provider and settles what it answers; a lost answer leaves it to reconciliation. */
  async function send(charge: Charge, contact: { email: string | null; name: string | null; ip: string | null } | undefined): Promise<void> {
    const { payment, card, utoken } = charge;
    let answer;
    try {
      answer = await deps.provider.chargeStoredCard({
        merchantOid: payment.merchant_oid,
        utoken,
        ctoken: card.ctoken,
        amount: payment.amount,
        currency: payment.currency,
        email: contact?.email ?? 'billing@example.invalid',
        userIp: contact?.ip ?? '127.0.0.1',
        userName: contact?.name ?? 'Customer',
        userAddress: 'Not provided',
        userPhone: '0000000000',
        basket: [{ name: `${charge.planName} plan, 1 ${payment.billing_interval}`, amount: payment.amount, quantity: 1 }],
        okUrl: `${deps.publicBaseUrl}/billing/return/ok`,
        failUrl: `${deps.publicBaseUrl}/billing/return/fail`,
      });
    } catch (error) {
      const reason = error instanceof PaytrError ? error.reason : 'unexpected error';
      if (!(error instanceof PaytrError)) log.error({ err: error, merchantOid: payment.merchant_oid }, 'billing: stored-card charge crashed');
      log.warn({ merchantOid: payment.merchant_oid, reason }, 'billing: stored-card charge unanswered; reconciliation will ask the provider');
      return;
    }
    if (answer.status === 'wait_callback') return;
    await deps.settle(payment.merchant_oid, {
      status: answer.status,
      totalAmount: payment.amount,
      currency: null,
      failedReason: answer.status === 'failed' ? answer.reason : null,
      tryAgain: answer.status === 'failed' ? answer.tryAgain : undefined,
      source: 'charge',
    });
  }

  async function sendAll(charges: Charge[]): Promise<void> {
    if (charges.length === 0) return;
    const contacts = await repo.chargeContacts(db, [...new Set(charges.map((c) => c.payment.workspace_id))]);
    let next = 0;
    const worker = async () => {
      while (next < charges.length) {
        const charge = charges[next++]!;
        await send(charge, contacts.get(charge.payment.workspace_id));
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, charges.length) }, worker));
  }

  /** The charge a claimed subscription is due at `now`, if any. */
  function dueKind(sub: SubscriptionRow, now: Date): 'renewal' | 'retry' | null {
    if (sub.status === 'active' && !sub.cancel_at_period_end && sub.current_period_end <= now) {
      return sub.renewal_charged_for?.getTime() === sub.current_period_end.getTime() ? null : 'renewal';
    }
    if (sub.status === 'past_due' && sub.next_retry_at && sub.next_retry_at <= now) return 'retry';
    return null;
  }

  return {
    /**
     * The periodic job `billing.collection`: renewal charges and scheduled retries that are due. `scope`: one
     * workspace at its own billing time (a test clock's; its charges are sent before this returns).
     */
    async run(scope?: { workspaceId: string; now: Date }): Promise<{ charged: number }> {
      let charged = 0;
      for (;;) {
        const { claimed, charges } = await db.transaction().execute(async (tx) => {
          const now = scope?.now ?? clock.now();
          const rows = await repo.claimChargesDue(tx, now, BATCH, scope?.workspaceId);
          const charges: Charge[] = [];
          // The batch's cards and plans are read once (a catalogue has a handful of plans).
          const batch = {
            cards: await repo.findChargeCards(
              tx,
              rows.map((r) => r.workspace_id),
            ),
            plans: new Map<string, PlanRow>(),
          };
          for (const row of rows) {
            // The claim locked the row: due transitions (a scheduled downgrade, the grace end) first, then the charge.
            const sub = await applyDue(tx, row, now, { hasCard: batch.cards.has(row.workspace_id) });
            const kind = dueKind(sub, now);
            const charge = kind ? await recordCharge(tx, sub, kind, now, batch) : undefined;
            if (charge) charges.push(charge);
          }
          return { claimed: rows.length, charges };
        });
        await sendAll(charges);
        charged += charges.length;
        if (claimed < BATCH || charges.length === 0) break;
      }
      return { charged };
    },

    /** `POST .../billing/retry/`: charges the default card now (19.3), a payment of kind `retry`. */
    async retryNow(actor: Actor, slug: string) {
      const { charge, workspaceId } = await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        const now = await time.now(tx, ws.workspaceId);
        await repo.lockWorkspace(tx, ws.workspaceId);
        const sub = await lockedSubscription(tx, ws.workspaceId, now);
        if (!sub || (sub.status !== 'past_due' && sub.status !== 'suspended')) {
          throw conflict('Only a past_due or suspended subscription is retried');
        }
        if (!(await repo.findDefaultPaymentMethod(tx, ws.workspaceId))) throw conflict('The workspace has no default card to charge');
        const charge = await recordCharge(tx, sub, 'retry', now);
        if (!charge) throw conflict('A charge of this subscription is already under way');
        return { charge, workspaceId: ws.workspaceId };
      });
      await sendAll([charge]);
      return db.transaction().execute(async (tx) => {
        const now = await time.now(tx, workspaceId);
        const payment = (await repo.findPayment(tx, workspaceId, charge.payment.id))!;
        return {
          payment: paymentView(payment),
          ...(await subscriptionResponse(tx, await repo.findSubscription(tx, workspaceId), now, undefined, workspaceId)),
        };
      });
    },
  };
}
