import type { Executor } from '../../../db/database.js';
import { newId } from '../../../kernel/ids.js';
import { recordEvent } from '../subscriptions/subscriptions.audit.js';
import { addInterval, renewalStart } from '../billing.domain.js';
import { classifyChange } from '../subscriptions/subscriptions.plan-change.js';
import { planOrThrow } from '../catalog/catalog.plans.js';
import type { PaymentRow, PlanRow, SubscriptionRow } from '../billing.repository.js';
import type { CouponsService } from '../catalog/catalog.coupons.js';
import type { BillingDeps } from '../billing.deps.js';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.js';
import type { InvoiceIssuer } from '../invoices/invoices.issue.js';

export interface FulfilmentDeps extends Pick<BillingDeps, 'repo' | 'outbox'> {
  subscriptions: Pick<SubscriptionsService, 'lockedSubscription' | 'subscriptionUpdated'>;
  coupons: Pick<CouponsService, 'redeem'>;
  /** Issues the invoice of a paid payment (the one issue function of invoices/). */
  invoices: InvoiceIssuer;
}

export type Fulfilment = ReturnType<typeof createFulfilment>;

/** What a successful payment does: the subscription it buys (now, or at the end of the period for a downgrade) and its invoice. */
export function createFulfilment(deps: FulfilmentDeps) {
  const { repo } = deps;
  const { lockedSubscription, subscriptionUpdated } = deps.subscriptions;
  const { redeem } = deps.coupons;

  /**
   * A successful payment: activates or renews the subscription, issues the invoice (gapless number) and records the
   * coupon redemption, all in the caller's transaction.
   */
  async function fulfil(tx: Executor, payment: PaymentRow, now: Date) {
    await repo.lockWorkspace(tx, payment.workspace_id);
    // A renewal or retry charged the default card: no need to ask whether there is one.
    const current = await lockedSubscription(tx, payment.workspace_id, now, payment.kind === 'checkout' ? {} : { hasCard: true });
    const plan = await planOrThrow(repo, payment.plan_slug, tx);
    const change = classifyChange(current, { plan_slug: payment.plan_slug, price: payment.list_amount, interval: payment.billing_interval }, now);
    if (change === 'downgrade' && current) return scheduleDowngrade(tx, current, payment, plan, now);
    const start = renewalStart(current, payment.plan_slug, now);
    const end = addInterval(start, payment.billing_interval);
    const earlyRenewal = start.getTime() !== now.getTime();
    // Only a period still running keeps its start (the paid time extends it); an ended one is followed by the new one.
    const keepsStart = current !== undefined && current.status === 'active' && current.plan_slug === payment.plan_slug && current.current_period_end > now;
    const fields = {
      plan_slug: payment.plan_slug,
      status: 'active' as const,
      billing_interval: payment.billing_interval,
      currency: payment.currency,
      amount_per_period: payment.list_amount,
      current_period_end: end,
      cancel_at_period_end: false,
      canceled_at: null,
      scheduled_plan_slug: null,
      scheduled_billing_interval: null,
      scheduled_amount_per_period: null,
      // Paid: out of dunning (19.3).
      dunning_attempts: 0,
      next_retry_at: null,
      last_failure_reason: null,
      updated_at: now,
    };
    let subscription: SubscriptionRow;
    if (!current) {
      subscription = await repo.insertSubscription(tx, {
        id: newId(),
        workspace_id: payment.workspace_id,
        ...fields,
        current_period_start: start,
        created_at: now,
      });
    } else if (current.status === 'canceled' || current.status === 'expired') {
      // A new subscription after the old one ended: a fresh identity for it.
      subscription = await repo.replaceSubscription(tx, payment.workspace_id, current.id, {
        id: newId(),
        ...fields,
        current_period_start: start,
        created_at: now,
      });
    } else {
      // Early renewal keeps the running period's start: the paid time simply extends to the new end.
      subscription = await repo.updateSubscription(tx, payment.workspace_id, current.id, {
        ...fields,
        current_period_start: keepsStart ? current.current_period_start : start,
      });
    }
    await subscriptionUpdated(tx, subscription, current?.status ?? null, now, plan);
    await recordEvent(repo, tx, {
      workspaceId: payment.workspace_id,
      type: earlyRenewal ? 'subscription.renewed' : 'subscription.activated',
      subscriptionId: subscription.id,
      paymentId: payment.id,
      from: current?.status ?? null,
      to: 'active',
      at: now,
    });

    const invoice = await issueInvoice(tx, payment, plan, start, end, now);
    return { subscription, invoice };
  }

  /**
   * A cheaper plan bought while a period runs: paid now, it takes effect at the end of the current period
   * (`scheduled_plan_slug` until then); the invoice covers the period that follows.
   */
  async function scheduleDowngrade(tx: Executor, current: SubscriptionRow, payment: PaymentRow, plan: PlanRow, now: Date) {
    const subscription = await repo.updateSubscription(tx, payment.workspace_id, current.id, {
      scheduled_plan_slug: payment.plan_slug,
      scheduled_billing_interval: payment.billing_interval,
      scheduled_amount_per_period: payment.list_amount,
      cancel_at_period_end: false,
      updated_at: now,
    });
    await subscriptionUpdated(tx, subscription, current.status, now);
    await recordEvent(repo, tx, {
      workspaceId: payment.workspace_id,
      type: 'subscription.downgrade_scheduled',
      subscriptionId: subscription.id,
      paymentId: payment.id,
      from: current.status,
      to: current.status,
      data: { from_plan: current.plan_slug, to_plan: payment.plan_slug, at: current.current_period_end.toISOString() },
      at: now,
    });
    const start = current.current_period_end;
    const invoice = await issueInvoice(tx, payment, plan, start, addInterval(start, payment.billing_interval), now);
    return { subscription, invoice };
  }

  async function issueInvoice(tx: Executor, payment: PaymentRow, plan: PlanRow, start: Date, end: Date, now: Date) {
    const invoice = await deps.invoices.issueInvoice(tx, { payment, plan, periodStart: start, periodEnd: end, now });
    if (payment.coupon_code) await redeem(tx, payment, now);
    return invoice;
  }

  return { fulfil };
}
