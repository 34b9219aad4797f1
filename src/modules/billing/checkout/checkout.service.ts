import type { Actor } from '../../../kernel/actor.js';
import { AppError, invalid } from '../../../kernel/errors.js';
import { newId } from '../../../kernel/ids.js';
import { pageOf, type PageQuery } from '../../../kernel/pagination.js';
import { recordEvent } from '../subscriptions/subscriptions.audit.js';
import type { CouponsService } from '../catalog/catalog.coupons.js';
import { type BillingInterval, newMerchantOid, priceFor, REJECTION_TEXT } from '../billing.domain.js';
import type { Fulfilment } from './checkout.fulfilment.js';
import { classifyChange, prorationCredit, upgradeCharge } from '../subscriptions/subscriptions.plan-change.js';
import { planOrThrow } from '../catalog/catalog.plans.js';
import type { BillingDeps } from '../billing.deps.js';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.js';
import type { Dunning } from '../collection/collection.dunning.js';
import type { PaymentMethodsService } from '../payment-methods/payment-methods.service.js';
import { invoiceView, paymentView } from '../billing.views.js';
import { PaytrError, parseCallback } from '../provider/paytr/index.js';
import { cardPageNotFound, createCardPage } from './checkout.card-page.js';

/** What the provider says about an order, from its callback or from a status query (reconciliation). */
export interface ProviderOutcome {
  status: 'success' | 'failed';
  /** Minor units the provider reports for a success (compared with the payment's amount). */
  totalAmount: number | null;
  currency: string | null;
  failedReason: string | null;
  testMode?: boolean | null;
  paymentType?: string | null;
  /** The provider's user token of a card stored by this payment (checkout with save_card, 19.1). */
  utoken?: string | null;
  /** A failed charge the provider may retry (PayTR try_again); false: a final decline, dunning stops (19.3). */
  tryAgain?: boolean;
  /** `callback`, `reconciliation` or `charge` (a stored-card charge's answer): written to the audit event. */
  source: 'callback' | 'reconciliation' | 'charge';
}

export interface CallbackResult {
  status: 200 | 400 | 404;
  text: string;
}

/** Where the provider's payment page sends the browser afterwards (served by the paytr module's return pages). */
const returnUrls = (base: string) => ({ okUrl: `${base}/billing/return/ok`, failUrl: `${base}/billing/return/fail` });

export interface CheckoutDeps extends Pick<
  BillingDeps,
  'db' | 'repo' | 'clock' | 'time' | 'identity' | 'provider' | 'credentials' | 'publicBaseUrl' | 'log' | 'outbox' | 'cardPage'
> {
  subscriptions: Pick<SubscriptionsService, 'currentSubscription'>;
  coupons: Pick<CouponsService, 'checkCoupon'>;
  fulfilment: Fulfilment;
  /** What a failed renewal or retry does to the subscription. */
  dunning: Dunning;
  /** Stores the cards a paid checkout with save_card left at the provider. */
  cards: Pick<PaymentMethodsService, 'syncCards'>;
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;

/** Checkout (the provider's token request), the provider's callback and the payments and invoices it leaves. */
export function createCheckoutService(deps: CheckoutDeps) {
  const { db, repo, time, identity, log } = deps;
  const { currentSubscription } = deps.subscriptions;
  const { checkCoupon } = deps.coupons;
  const { fulfil } = deps.fulfilment;
  // PAYMENT_PROVIDER=paytr: PayTR stores cards through its Direct API only, so a checkout with save_card goes to the
  // service's own card page, whose form posts to PayTR (19.1). The sandbox's page stores cards itself.
  const cardPage = deps.cardPage ? createCardPage({ db, repo, publicBaseUrl: deps.publicBaseUrl, paytr: deps.cardPage.paytr }) : null;

  /**
   * The single code path from a provider's word to a settled payment, used by the callback and by reconciliation:
   * only the first notification per merchant_oid takes effect. The conditional update (pending, or failed as
   * `expired` by reconciliation, -> success/failed) is the idempotency point, and everything it causes (activation,
   * invoice, redemption, events) commits with it; concurrent callers wait on the row lock and then find it settled.
   */
  async function settle(merchantOid: string, o: ProviderOutcome): Promise<'settled' | 'already_settled' | 'unknown'> {
    // The provider says the same thing twice as a rule (a charge's answer and its notification, PayTR's repeated
    // notifications): a payment already settled for good is seen without opening a transaction. The payment as read
    // here is all the transaction needs: its conditional update below is the one guard against a concurrent settle.
    const found = await repo.findPaymentForSettle(db, merchantOid);
    if (!found) {
      log.warn({ merchantOid, source: o.source }, 'billing: provider notification for an unknown merchant_oid');
      return 'unknown';
    }
    const { clock_offset_seconds: offset, ...payment } = found;
    if (payment.status !== 'pending' && !(payment.status === 'failed' && payment.failure_reason === 'expired')) {
      log.info({ merchantOid, status: payment.status, source: o.source }, 'billing: repeated provider notification ignored');
      return 'already_settled';
    }
    return db.transaction().execute(async (tx) => {
      const now = time.at(offset);
      let status = o.status;
      let reason: string | null = o.failedReason;
      if (o.status === 'success' && (o.totalAmount !== payment.amount || (o.currency !== null && o.currency !== payment.currency))) {
        // Never activate on a different amount than the one we asked for; the money needs a human look.
        status = 'failed';
        reason = `amount_mismatch: expected ${payment.amount} ${payment.currency}, provider reported ${o.totalAmount} ${o.currency ?? ''}`.trim();
      }
      if (status === 'failed' && !reason) reason = 'declined';
      const settled = await repo.settlePendingPayment(tx, payment.workspace_id, merchantOid, {
        status,
        failure_reason: status === 'success' ? null : reason,
        provider_total_amount: o.totalAmount,
        paid_at: status === 'success' ? now : null,
        updated_at: now,
      });
      if (!settled) {
        log.info({ merchantOid, status: payment.status, source: o.source }, 'billing: repeated provider notification ignored');
        return 'already_settled';
      }
      await recordEvent(repo, tx, {
        workspaceId: settled.workspace_id,
        type: status === 'success' ? 'payment.succeeded' : 'payment.failed',
        paymentId: settled.id,
        from: payment.status,
        to: status,
        data: { reason, test_mode: o.testMode ?? null, payment_type: o.paymentType ?? null, source: o.source },
        at: now,
      });
      await deps.outbox.record(tx, {
        workspaceId: settled.workspace_id,
        type: status === 'success' ? 'payment.succeeded' : 'payment.failed',
        data: paymentView(settled),
      });
      if (status === 'success') {
        if (settled.save_card && o.utoken) await repo.keepUtoken(tx, settled.workspace_id, o.utoken, now);
        await fulfil(tx, settled, now);
        return 'settled';
      }
      // A failed renewal or retry: the subscription's dunning (19.2, 19.3).
      await deps.dunning.chargeFailed(tx, settled, { reason: reason ?? 'declined', tryAgain: o.tryAgain ?? true }, now);
      if (reason?.startsWith('amount_mismatch')) log.error({ merchantOid, reason, source: o.source }, 'billing: provider amount differs from the payment');
      else log.info({ merchantOid, reason }, 'billing: payment failed');
      return 'settled';
    });
  }

  return {
    async checkout(
      actor: Actor,
      slug: string,
      input: { plan_slug: string; billing_interval: BillingInterval; coupon_code?: string; save_card?: boolean },
      ctx: { ip: string },
    ) {
      const user = await identity.me(actor);
      const saveCard = input.save_card ?? true;
      const { payment, utoken } = await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        const now = await time.now(tx, ws.workspaceId);
        const plan = await planOrThrow(repo, input.plan_slug, tx);
        if (!plan.is_active) throw invalid('/plan_slug', `the ${plan.name} plan is retired and cannot be bought`);
        const price = priceFor(plan, input.billing_interval);
        if (price === null) throw invalid('/billing_interval', `the ${plan.name} plan cannot be bought ${input.billing_interval}ly`);
        let discount = 0;
        let couponCode: string | null = null;
        if (input.coupon_code !== undefined) {
          const { code, check } = await checkCoupon(tx, ws.workspaceId, input.coupon_code, plan, price, now);
          if (!check.valid) throw new AppError('coupon_invalid', REJECTION_TEXT[check.reason], [{ path: '/coupon_code', message: check.reason }]);
          discount = check.discount;
          couponCode = code;
        }
        // An upgrade during a paid period is credited the unused share of what was paid for it (section 13).
        let credit = 0;
        const current = await currentSubscription(tx, ws.workspaceId, now);
        if (classifyChange(current, { plan_slug: plan.slug, price, interval: input.billing_interval }, now) === 'upgrade' && current) {
          const last = await repo.lastPaidFor(tx, ws.workspaceId, current.plan_slug);
          const paid = last ? last.amount - last.refunded_amount : 0;
          credit = upgradeCharge(price - discount, prorationCredit(paid, current.current_period_start, current.current_period_end, now)).credit;
        }
        const amount = price - discount - credit;
        const row = await repo.insertPayment(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          merchant_oid: newMerchantOid(),
          plan_slug: plan.slug,
          billing_interval: input.billing_interval,
          list_amount: price,
          discount_amount: discount,
          proration_credit: credit,
          amount,
          currency: plan.currency,
          coupon_code: couponCode,
          status: amount === 0 ? 'success' : 'pending',
          failure_reason: null,
          provider_total_amount: null,
          created_by: actor.userId,
          created_at: now,
          paid_at: amount === 0 ? now : null,
          updated_at: now,
          save_card: saveCard && amount > 0,
          user_ip: ctx.ip,
        });
        await recordEvent(repo, tx, {
          workspaceId: ws.workspaceId,
          type: 'payment.created',
          paymentId: row.id,
          to: row.status,
          data: { amount, currency: row.currency },
          at: now,
        });
        // Nothing to charge: no provider round trip, the subscription is active at once.
        if (amount === 0) await fulfil(tx, row, now);
        return { payment: row, utoken: saveCard ? await repo.findUtoken(tx, ws.workspaceId) : null };
      });

      const session = { merchant_oid: payment.merchant_oid, amount: payment.amount, currency: payment.currency, proration_credit: payment.proration_credit };
      if (payment.amount === 0) return { iframe_token: null, iframe_url: null, ...session };
      if (payment.save_card && cardPage) {
        // No token request: the card page's form is the Direct API payment (its paytr_token is made when it is shown).
        const page = cardPage.session(payment.merchant_oid);
        return { iframe_token: page.token, iframe_url: page.url, ...session };
      }

      // The provider call runs outside any transaction: the pending payment is already committed, so a callback that
      // arrives before this returns finds it.
      try {
        const plan = await planOrThrow(repo, payment.plan_slug, db);
        const token = await deps.provider.getToken({
          merchantOid: payment.merchant_oid,
          email: user.email,
          amount: payment.amount,
          currency: payment.currency,
          userIp: ctx.ip,
          userName: user.display_name,
          userAddress: 'Not provided',
          userPhone: '0000000000',
          basket: [{ name: `${plan.name} plan, 1 ${payment.billing_interval}`, amount: payment.amount, quantity: 1 }],
          ...returnUrls(deps.publicBaseUrl),
          storeCard: payment.save_card,
          utoken,
        });
        return { iframe_token: token.token, iframe_url: token.iframeUrl, ...session };
      } catch (error) {
        const reason = error instanceof PaytrError ? error.reason : 'unexpected error';
        if (!(error instanceof PaytrError)) log.error({ err: error, merchantOid: payment.merchant_oid }, 'billing: token request crashed');
        await db.transaction().execute(async (tx) => {
          const now = await time.now(tx, payment.workspace_id);
          const failed = await repo.failPendingPayment(tx, payment.workspace_id, payment.id, `provider_error: ${reason}`, now);
          if (failed) {
            await recordEvent(repo, tx, {
              workspaceId: payment.workspace_id,
              type: 'payment.failed',
              paymentId: payment.id,
              from: 'pending',
              to: 'failed',
              data: { reason },
              at: now,
            });
            await deps.outbox.record(tx, { workspaceId: payment.workspace_id, type: 'payment.failed', data: paymentView(failed) });
          }
        });
        log.warn({ merchantOid: payment.merchant_oid, reason }, 'billing: the payment provider refused or failed the token request');
        throw new AppError('payment_provider_error', `The payment provider failed: ${reason}`);
      }
    },

    /**
     * The provider's notification. Only the first one per merchant_oid takes effect: the pending -> success/failed
     * update is the idempotency point, and everything it causes (activation, invoice, redemption) commits with it.
     */
    async handleCallback(body: unknown): Promise<CallbackResult> {
      const parsed = parseCallback(body, deps.credentials);
      if (!parsed.ok) {
        log.warn({ error: parsed.error }, 'billing: provider callback refused');
        return { status: 400, text: parsed.error === 'bad_hash' ? 'BAD HASH' : 'MISSING FIELDS' };
      }
      const p = parsed.payload;
      const failedReason = p.status === 'failed' ? [p.failedReasonCode, p.failedReasonMsg].filter(Boolean).join(': ') || 'declined' : null;
      const result = await settle(p.merchantOid, {
        status: p.status,
        totalAmount: p.totalAmount,
        currency: p.currency,
        failedReason,
        testMode: p.testMode,
        paymentType: p.paymentType,
        utoken: p.utoken,
        source: 'callback',
      });
      if (result === 'unknown') return { status: 404, text: 'UNKNOWN MERCHANT_OID' };
      if (p.status === 'success' && p.utoken) {
        // The card this payment stored becomes the default (19.1). Until it is listed, the provider is told to try
        // the notification again (anything but OK), and settle's idempotency makes the repeat harmless.
        const payment = await repo.findPaymentByOid(db, p.merchantOid);
        if (payment?.save_card && payment.status === 'success' && !(await deps.cards.syncCards(payment.workspace_id))) {
          return { status: 200, text: 'CARD NOT STORED YET' };
        }
      }
      return { status: 200, text: 'OK' };
    },

    settle: (merchantOid: string, outcome: ProviderOutcome) => settle(merchantOid, outcome),

    /** `GET /billing/card/<token>` (19.1, PAYMENT_PROVIDER=paytr): the card page of a pending checkout, or a 404 page. */
    async cardPage(token: string, ip: string) {
      if (!cardPage) return { status: 404 as const, html: cardPageNotFound() };
      return cardPage.render(token, ip);
    },

    async listPayments(actor: Actor, slug: string, page: PageQuery) {
      const ws = await identity.access(actor, slug, 'billing');
      const { rows, total } = await repo.listPayments(db, ws.workspaceId, page.offset, page.per_page);
      return pageOf(rows.map(paymentView), total, page);
    },

    async listInvoices(actor: Actor, slug: string, page: PageQuery) {
      const ws = await identity.access(actor, slug, 'billing');
      const { rows, total } = await repo.listInvoices(db, ws.workspaceId, page.offset, page.per_page);
      return pageOf(rows.map(invoiceView), total, page);
    },
  };
}
