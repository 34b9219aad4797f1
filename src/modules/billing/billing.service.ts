import type { Static } from 'typebox';
import type { Db, Executor, Tx } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import type { Outbox } from '../../kernel/outbox.js';
import { addMs, type Clock, DAY_MS } from '../../kernel/clock.js';
import { AppError, conflict, forbidden, invalid, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { pageOf, type PageQuery } from '../../kernel/pagination.js';
import type { IdentityService } from '../identity/index.js';
import {
  addInterval,
  type BillingInterval,
  discountDisplay,
  dueTransitions,
  effectiveStatus,
  evaluateCoupon,
  FREE_PLAN,
  invoiceNumber,
  newMerchantOid,
  nextState,
  normalizeCouponCode,
  PLAN_IN_EFFECT,
  priceFor,
  REJECTION_TEXT,
  renewalStart,
} from './billing.domain.js';
import { classifyChange, planViolations, prorationCredit, upgradeCharge } from './billing.plan-change.js';
import type { BillingRepository, PaymentRow, PlanRow, SubscriptionRow } from './billing.repository.js';
import type { CreatePlanBody, UpdatePlanBody } from './billing.schemas.js';
import { couponView, invoiceView, limitsView, paymentView, planView, subscriptionView } from './billing.views.js';
import { type PaytrClient, type PaytrCredentials, PaytrError, parseCallback } from './paytr/index.js';

/** The logging the service needs (pino's and Fastify's loggers fit). */
export interface BillingLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface BillingDeps {
  db: Db;
  repo: BillingRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access' | 'me'>;
  provider: PaytrClient;
  credentials: PaytrCredentials;
  graceDays: number;
  publicBaseUrl: string;
  log: BillingLogger;
  /** Events that leave the service (webhooks), recorded in the transaction of the change. */
  outbox: Outbox<Tx>;
}

/** What the provider says about an order, from its callback or from a status query (reconciliation). */
export interface ProviderOutcome {
  status: 'success' | 'failed';
  /** Minor units the provider reports for a success (compared with the payment's amount). */
  totalAmount: number | null;
  currency: string | null;
  failedReason: string | null;
  testMode?: boolean | null;
  paymentType?: string | null;
  /** `callback` or `reconciliation`: written to the audit event. */
  source: 'callback' | 'reconciliation';
}

export interface CallbackResult {
  status: 200 | 400 | 404;
  text: string;
}

const LIFECYCLE_BATCH = 100;

/** Where the provider's payment page sends the browser afterwards (served by the paytr module's return pages). */
const returnUrls = (base: string) => ({ okUrl: `${base}/billing/return/ok`, failUrl: `${base}/billing/return/fail` });

export type BillingService = ReturnType<typeof createBillingService>;

export function createBillingService(deps: BillingDeps) {
  const { db, repo, clock, identity, log } = deps;
  const graceDays = deps.graceDays;

  function assertInstanceAdmin(actor: Actor) {
    if (!actor.isInstanceAdmin) throw forbidden('Only an instance admin can manage plans and coupons');
  }

  async function planOrThrow(slug: string, tx: Executor, path = '/plan_slug'): Promise<PlanRow> {
    const plan = await repo.findPlan(slug, tx);
    if (!plan) throw invalid(path, `no plan "${slug}"`);
    return plan;
  }

  /** Writes down every transition that is due (the row must be locked by the caller), once, with an audit event each. */
  async function applyDue(tx: Executor, row: SubscriptionRow, now: Date): Promise<SubscriptionRow> {
    row = await applyScheduledChange(tx, row, now);
    const { state, transitions } = dueTransitions(row, now, graceDays);
    if (transitions.length === 0) return row;
    const last = transitions[transitions.length - 1]!;
    const updated = await repo.updateSubscription(tx, row.id, {
      status: state.status,
      canceled_at: state.status === 'canceled' ? (row.canceled_at ?? last.at) : row.canceled_at,
      updated_at: now,
    });
    await subscriptionUpdated(tx, updated, row.status, now);
    for (const t of transitions) {
      await repo.insertEvent(tx, {
        id: newId(),
        workspace_id: row.workspace_id,
        subscription_id: row.id,
        payment_id: null,
        type: 'subscription.transition',
        from_status: t.from,
        to_status: t.to,
        data: JSON.stringify({ reason: t.reason }),
        at: t.at,
      });
    }
    return updated;
  }

  /**
   * A downgrade paid during the previous period takes over at its end: the new plan's period follows on at once
   * (it is paid), so the subscription stays active. Written once (the caller holds the row lock).
   */
  async function applyScheduledChange(tx: Executor, row: SubscriptionRow, now: Date): Promise<SubscriptionRow> {
    if (!row.scheduled_plan_slug || row.status !== 'active' || row.current_period_end > now) return row;
    const start = row.current_period_end;
    const interval = row.scheduled_billing_interval!;
    const updated = await repo.updateSubscription(tx, row.id, {
      plan_slug: row.scheduled_plan_slug,
      billing_interval: interval,
      amount_per_period: row.scheduled_amount_per_period!,
      current_period_start: start,
      current_period_end: addInterval(start, interval),
      scheduled_plan_slug: null,
      scheduled_billing_interval: null,
      scheduled_amount_per_period: null,
      updated_at: now,
    });
    await subscriptionUpdated(tx, updated, row.status, now);
    await event(tx, {
      workspaceId: row.workspace_id,
      type: 'subscription.plan_changed',
      subscriptionId: row.id,
      from: row.status,
      to: updated.status,
      data: { from_plan: row.plan_slug, to_plan: updated.plan_slug, reason: 'scheduled_downgrade' },
      at: start,
    });
    return updated;
  }

  /** The workspace's subscription, locked, with due transitions applied. */
  async function lockedSubscription(tx: Executor, workspaceId: string, now: Date): Promise<SubscriptionRow | undefined> {
    const row = await repo.findSubscription(workspaceId, tx, true);
    return row ? applyDue(tx, row, now) : undefined;
  }

  /** Applied on read: the row is locked only when a transition is due, so plain reads stay cheap. */
  async function currentSubscription(tx: Executor, workspaceId: string, now: Date): Promise<SubscriptionRow | undefined> {
    const row = await repo.findSubscription(workspaceId, tx);
    if (!row || !nextState(row, now, graceDays)) return row;
    return lockedSubscription(tx, workspaceId, now);
  }

  async function freePlan(tx: Executor): Promise<PlanRow> {
    const free = await repo.findPlan(FREE_PLAN, tx);
    if (!free) throw new Error('The free plan is missing from the catalogue');
    return free;
  }

  /** The plan whose limits apply: the subscription's while it is trialing, active or past_due; else free. */
  async function planInEffect(tx: Executor, sub: SubscriptionRow | undefined, now: Date): Promise<PlanRow> {
    if (sub && PLAN_IN_EFFECT.includes(effectiveStatus(sub, now, graceDays))) {
      const plan = await repo.findPlan(sub.plan_slug, tx);
      if (plan) return plan;
    }
    return freePlan(tx);
  }

  async function subscriptionResponse(tx: Executor, sub: SubscriptionRow | undefined, now: Date) {
    return { subscription: sub ? subscriptionView(sub) : null, limits: limitsView(await planInEffect(tx, sub, now)) };
  }

  /** `subscription.updated` for webhooks: the subscription response plus the status it had before. */
  async function subscriptionUpdated(tx: Executor, sub: SubscriptionRow, previousStatus: string | null, now: Date) {
    const data = { ...(await subscriptionResponse(tx, sub, now)), previous_status: previousStatus };
    await deps.outbox.record(tx as Tx, { workspaceId: sub.workspace_id, type: 'subscription.updated', data });
  }

  async function event(
    tx: Executor,
    e: { workspaceId: string; type: string; subscriptionId?: string | null; paymentId?: string | null; from?: string | null; to?: string | null; data?: Record<string, unknown>; at: Date },
  ) {
    await repo.insertEvent(tx, {
      id: newId(),
      workspace_id: e.workspaceId,
      subscription_id: e.subscriptionId ?? null,
      payment_id: e.paymentId ?? null,
      type: e.type,
      from_status: e.from ?? null,
      to_status: e.to ?? null,
      data: JSON.stringify(e.data ?? {}),
      at: e.at,
    });
  }

  /**
   * A successful payment: activates or renews the subscription, issues the invoice (gapless number) and records the
   * coupon redemption, all in the caller's transaction.
   */
  async function fulfil(tx: Executor, payment: PaymentRow, now: Date) {
    await repo.lockWorkspace(tx, payment.workspace_id);
    const current = await lockedSubscription(tx, payment.workspace_id, now);
    const plan = await planOrThrow(payment.plan_slug, tx);
    const change = classifyChange(current, { plan_slug: payment.plan_slug, price: payment.list_amount, interval: payment.billing_interval }, now);
    if (change === 'downgrade' && current) return scheduleDowngrade(tx, current, payment, plan, now);
    const start = renewalStart(current, payment.plan_slug, now);
    const end = addInterval(start, payment.billing_interval);
    const earlyRenewal = start.getTime() !== now.getTime();
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
      subscription = await repo.replaceSubscription(tx, current.id, { id: newId(), ...fields, current_period_start: start, created_at: now });
    } else {
      // Early renewal keeps the running period's start: the paid time simply extends to the new end.
      subscription = await repo.updateSubscription(tx, current.id, {
        ...fields,
        current_period_start: earlyRenewal ? current.current_period_start : start,
      });
    }
    await subscriptionUpdated(tx, subscription, current?.status ?? null, now);
    await event(tx, {
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
    const subscription = await repo.updateSubscription(tx, current.id, {
      scheduled_plan_slug: payment.plan_slug,
      scheduled_billing_interval: payment.billing_interval,
      scheduled_amount_per_period: payment.list_amount,
      cancel_at_period_end: false,
      updated_at: now,
    });
    await subscriptionUpdated(tx, subscription, current.status, now);
    await event(tx, {
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
    const year = now.getUTCFullYear();
    const invoice = await repo.insertInvoice(tx, {
      id: newId(),
      workspace_id: payment.workspace_id,
      payment_id: payment.id,
      invoice_number: invoiceNumber(year, await repo.nextInvoiceNumber(tx, year)),
      plan_slug: plan.slug,
      plan_name: plan.name,
      billing_interval: payment.billing_interval,
      subtotal_amount: payment.list_amount,
      discount_amount: payment.discount_amount,
      proration_credit: payment.proration_credit,
      total_amount: payment.amount,
      currency: payment.currency,
      coupon_code: payment.coupon_code,
      period_start: start,
      period_end: end,
      created_at: now,
    });
    await deps.outbox.record(tx as Tx, { workspaceId: payment.workspace_id, type: 'invoice.created', data: invoiceView(invoice) });

    if (payment.coupon_code) await redeem(tx, payment, now);
    return invoice;
  }

  /**
   * The money was taken at the price we quoted, so a payment is always honoured; a coupon that can no longer be
   * redeemed (its last redemption went to another payment first, or this workspace already used it) is not counted
   * twice: the anomaly is logged and kept as an audit event.
   */
  async function redeem(tx: Executor, payment: PaymentRow, now: Date) {
    const code = payment.coupon_code!;
    let outcome: 'redeemed' | 'already_redeemed' | 'exhausted_or_deleted';
    if (await repo.hasRedeemed(tx, code, payment.workspace_id)) outcome = 'already_redeemed';
    else if (await repo.takeRedemption(tx, code)) {
      await repo.insertRedemption(tx, { coupon_code: code, workspace_id: payment.workspace_id, payment_id: payment.id, redeemed_at: now });
      outcome = 'redeemed';
    } else outcome = 'exhausted_or_deleted';
    if (outcome !== 'redeemed') {
      log.warn({ merchantOid: payment.merchant_oid, coupon: code, outcome }, 'billing: payment honoured but the coupon redemption was not counted');
    }
    await event(tx, {
      workspaceId: payment.workspace_id,
      type: outcome === 'redeemed' ? 'coupon.redeemed' : 'coupon.redemption_skipped',
      paymentId: payment.id,
      data: { coupon_code: code, outcome },
      at: now,
    });
  }

  async function checkCoupon(
    tx: Executor,
    workspaceId: string,
    rawCode: string,
    plan: PlanRow,
    amount: number,
    now: Date,
  ) {
    const code = normalizeCouponCode(rawCode);
    const coupon = await repo.findCoupon(code, tx);
    const redeemedByWorkspace = coupon ? await repo.hasRedeemed(tx, code, workspaceId) : false;
    return { code, check: evaluateCoupon(coupon, { planSlug: plan.slug, currency: plan.currency, amount, now, redeemedByWorkspace }) };
  }

  /**
   * The single code path from a provider's word to a settled payment, used by the callback and by reconciliation:
   * only the first notification per merchant_oid takes effect. The conditional update (pending, or failed as
   * `expired` by reconciliation, -> success/failed) is the idempotency point, and everything it causes (activation,
   * invoice, redemption, events) commits with it; concurrent callers wait on the row lock and then find it settled.
   */
  async function settle(merchantOid: string, o: ProviderOutcome): Promise<'settled' | 'already_settled' | 'unknown'> {
    return db.transaction().execute(async (tx) => {
      const now = clock.now();
      const payment = await repo.findPaymentByOid(merchantOid, tx);
      if (!payment) {
        log.warn({ merchantOid, source: o.source }, 'billing: provider notification for an unknown merchant_oid');
        return 'unknown';
      }
      let status = o.status;
      let reason: string | null = o.failedReason;
      if (o.status === 'success' && (o.totalAmount !== payment.amount || (o.currency !== null && o.currency !== payment.currency))) {
        // Never activate on a different amount than the one we asked for; the money needs a human look.
        status = 'failed';
        reason = `amount_mismatch: expected ${payment.amount} ${payment.currency}, provider reported ${o.totalAmount} ${o.currency ?? ''}`.trim();
      }
      if (status === 'failed' && !reason) reason = 'declined';
      const settled = await repo.settlePendingPayment(tx, merchantOid, {
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
      await event(tx, {
        workspaceId: settled.workspace_id,
        type: status === 'success' ? 'payment.succeeded' : 'payment.failed',
        paymentId: settled.id,
        from: payment.status,
        to: status,
        data: { reason, test_mode: o.testMode ?? null, payment_type: o.paymentType ?? null, source: o.source },
        at: now,
      });
      await deps.outbox.record(tx, { workspaceId: settled.workspace_id, type: status === 'success' ? 'payment.succeeded' : 'payment.failed', data: paymentView(settled) });
      if (status === 'success') await fulfil(tx, settled, now);
      else if (reason?.startsWith('amount_mismatch')) log.error({ merchantOid, reason, source: o.source }, 'billing: provider amount differs from the payment');
      else log.info({ merchantOid, reason }, 'billing: payment failed');
      return 'settled';
    });
  }

  return {
    /** Rules shared with the round-2 parts of the module (refunds, reconciliation, notices). */
    internals: { fulfil, subscriptionUpdated, subscriptionResponse, lockedSubscription, assertInstanceAdmin },

    // ---- catalogue ----

    async listPublicPlans() {
      return (await repo.listPlans(db, true)).map(planView);
    },

    async adminListPlans(actor: Actor) {
      assertInstanceAdmin(actor);
      return (await repo.listPlans()).map(planView);
    },

    async adminCreatePlan(
      actor: Actor,
      input: Static<typeof CreatePlanBody>,
    ) {
      assertInstanceAdmin(actor);
      const plan = await repo.insertPlan(db, {
        slug: input.slug,
        name: input.name.trim(),
        max_users: input.max_users,
        max_projects: input.max_projects,
        max_storage_gb: input.max_storage_gb,
        ai_tokens_monthly: input.ai_tokens_monthly,
        features: JSON.stringify({ time_tracking: false, custom_properties: false, ...input.features }),
        price_month: input.price_month ?? null,
        price_year: input.price_year ?? null,
        currency: input.currency,
        trial_days: input.trial_days ?? 0,
        is_active: input.is_active ?? true,
        sort_order: input.sort_order ?? 0,
      });
      if (!plan) throw conflict(`A plan "${input.slug}" already exists`);
      return planView(plan);
    },

    async adminUpdatePlan(
      actor: Actor,
      slug: string,
      input: Static<typeof UpdatePlanBody>,
    ) {
      assertInstanceAdmin(actor);
      return db.transaction().execute(async (tx) => {
        const existing = await repo.findPlan(slug, tx);
        if (!existing) throw notFound('Plan');
        const { features, name, ...rest } = input;
        const patch = {
          ...rest,
          ...(name !== undefined ? { name: name.trim() } : {}),
          ...(features !== undefined ? { features: JSON.stringify({ ...existing.features, ...features }) } : {}),
        };
        if (Object.keys(patch).length === 0) return planView(existing);
        return planView((await repo.updatePlan(tx, slug, patch))!);
      });
    },

    // ---- subscription ----

    async getSubscription(actor: Actor, slug: string) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'read', tx);
        const now = clock.now();
        return subscriptionResponse(tx, await currentSubscription(tx, ws.workspaceId, now), now);
      });
    },

    async startTrial(actor: Actor, slug: string, input: { plan_slug: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        const now = clock.now();
        await repo.lockWorkspace(tx, ws.workspaceId);
        const plan = await planOrThrow(input.plan_slug, tx);
        if (!plan.is_active || plan.trial_days <= 0) throw invalid('/plan_slug', `the ${plan.name} plan has no trial`);
        const current = await lockedSubscription(tx, ws.workspaceId, now);
        if (current && (current.status === 'trialing' || current.status === 'active' || current.status === 'past_due')) {
          throw conflict('The workspace already has a subscription');
        }
        const end = addMs(now, plan.trial_days * DAY_MS);
        if (!(await repo.insertTrial(tx, { workspace_id: ws.workspaceId, plan_slug: plan.slug, started_at: now, ends_at: end }))) {
          throw conflict('This workspace has already used its free trial');
        }
        const fields = {
          plan_slug: plan.slug,
          status: 'trialing' as const,
          billing_interval: 'month' as const,
          currency: plan.currency,
          amount_per_period: 0,
          current_period_start: now,
          current_period_end: end,
          cancel_at_period_end: false,
          canceled_at: null,
          created_at: now,
          updated_at: now,
        };
        const sub = current
          ? await repo.replaceSubscription(tx, current.id, { id: newId(), ...fields })
          : await repo.insertSubscription(tx, { id: newId(), workspace_id: ws.workspaceId, ...fields });
        await subscriptionUpdated(tx, sub, current?.status ?? null, now);
        await event(tx, { workspaceId: ws.workspaceId, type: 'subscription.trial_started', subscriptionId: sub.id, from: current?.status ?? null, to: 'trialing', at: now });
        return subscriptionResponse(tx, sub, now);
      });
    },

    async cancel(actor: Actor, slug: string, input: { immediate: boolean }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        const now = clock.now();
        await repo.lockWorkspace(tx, ws.workspaceId);
        const current = await lockedSubscription(tx, ws.workspaceId, now);
        if (!current || current.status === 'canceled' || current.status === 'expired') {
          throw conflict('There is no subscription to cancel');
        }
        // A period that already ended (past_due, suspended) has nothing left to wait for: cancel now.
        const now_ = input.immediate || current.status === 'past_due' || current.status === 'suspended';
        let sub: SubscriptionRow;
        if (now_) {
          const end = current.current_period_end > now ? now : current.current_period_end;
          sub = await repo.updateSubscription(tx, current.id, {
            status: 'canceled',
            canceled_at: now,
            current_period_end: end < current.current_period_start ? current.current_period_start : end,
            updated_at: now,
          });
          await subscriptionUpdated(tx, sub, current.status, now);
          await event(tx, { workspaceId: ws.workspaceId, type: 'subscription.canceled', subscriptionId: sub.id, from: current.status, to: 'canceled', data: { immediate: true }, at: now });
        } else if (current.cancel_at_period_end) {
          sub = current;
        } else {
          sub = await repo.updateSubscription(tx, current.id, { cancel_at_period_end: true, updated_at: now });
          await event(tx, { workspaceId: ws.workspaceId, type: 'subscription.cancel_scheduled', subscriptionId: sub.id, from: current.status, to: current.status, data: { immediate: false }, at: now });
        }
        return subscriptionResponse(tx, sub, now);
      });
    },

    // ---- checkout and payments ----

    async checkout(
      actor: Actor,
      slug: string,
      input: { plan_slug: string; billing_interval: BillingInterval; coupon_code?: string },
      ctx: { ip: string },
    ) {
      const user = await identity.me(actor);
      const payment = await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        const now = clock.now();
        const plan = await planOrThrow(input.plan_slug, tx);
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
        });
        await event(tx, { workspaceId: ws.workspaceId, type: 'payment.created', paymentId: row.id, to: row.status, data: { amount, currency: row.currency }, at: now });
        // Nothing to charge: no provider round trip, the subscription is active at once.
        if (amount === 0) await fulfil(tx, row, now);
        return row;
      });

      const session = { merchant_oid: payment.merchant_oid, amount: payment.amount, currency: payment.currency, proration_credit: payment.proration_credit };
      if (payment.amount === 0) return { iframe_token: null, iframe_url: null, ...session };

      // The provider call runs outside any transaction: the pending payment is already committed, so a callback that
      // arrives before this returns finds it.
      try {
        const plan = await planOrThrow(payment.plan_slug, db);
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
        });
        return { iframe_token: token.token, iframe_url: token.iframeUrl, ...session };
      } catch (error) {
        const reason = error instanceof PaytrError ? error.reason : 'unexpected error';
        if (!(error instanceof PaytrError)) log.error({ err: error, merchantOid: payment.merchant_oid }, 'billing: token request crashed');
        await db.transaction().execute(async (tx) => {
          const now = clock.now();
          const failed = await repo.failPendingPayment(tx, payment.id, `provider_error: ${reason}`, now);
          if (failed) {
            await event(tx, { workspaceId: payment.workspace_id, type: 'payment.failed', paymentId: payment.id, from: 'pending', to: 'failed', data: { reason }, at: now });
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
        source: 'callback',
      });
      if (result === 'unknown') return { status: 404, text: 'UNKNOWN MERCHANT_OID' };
      return { status: 200, text: 'OK' };
    },

    settle: (merchantOid: string, outcome: ProviderOutcome) => settle(merchantOid, outcome),

    /** `plan-check`: what the workspace uses beyond what a plan allows (section 13). */
    async planCheck(actor: Actor, slug: string, planSlug: string) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        const plan = await planOrThrow(planSlug, tx, '/plan_slug');
        const violations = planViolations(
          { max_users: plan.max_users, max_projects: plan.max_projects, features: plan.features },
          {
            members: await repo.countMembers(tx, ws.workspaceId),
            projects: await repo.countProjects(tx, ws.workspaceId),
            customProperties: await repo.countCustomProperties(tx, ws.workspaceId),
          },
        );
        return { plan_slug: plan.slug, allowed: violations.length === 0, violations };
      });
    },

    async listPayments(actor: Actor, slug: string, page: PageQuery) {
      const ws = await identity.access(actor, slug, 'billing');
      const { rows, total } = await repo.listPayments(ws.workspaceId, page.offset, page.per_page);
      return pageOf(rows.map(paymentView), total, page);
    },

    async listInvoices(actor: Actor, slug: string, page: PageQuery) {
      const ws = await identity.access(actor, slug, 'billing');
      const { rows, total } = await repo.listInvoices(ws.workspaceId, page.offset, page.per_page);
      return pageOf(rows.map(invoiceView), total, page);
    },

    // ---- coupons ----

    async validateCoupon(actor: Actor, slug: string, input: { code: string; plan_slug: string; amount: number }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        const plan = await planOrThrow(input.plan_slug, tx);
        const { check } = await checkCoupon(tx, ws.workspaceId, input.code, plan, input.amount, clock.now());
        if (!check.valid) {
          return { valid: false, discounted_amount: input.amount, discount_display: '0.00', discount_amount: 0, reason: REJECTION_TEXT[check.reason], reason_code: check.reason };
        }
        return {
          valid: true,
          discounted_amount: check.discountedAmount,
          discount_display: discountDisplay(check.discount),
          discount_amount: check.discount,
          reason: null,
          reason_code: null,
        };
      });
    },

    async adminListCoupons(actor: Actor) {
      assertInstanceAdmin(actor);
      return (await repo.listCoupons()).map(couponView);
    },

    async adminCreateCoupon(
      actor: Actor,
      input: {
        code: string;
        percent_off?: number | null;
        amount_off?: number | null;
        currency?: string | null;
        plan_slugs?: string[] | null;
        max_redemptions?: number | null;
        redeem_by?: string | null;
      },
    ) {
      assertInstanceAdmin(actor);
      const percent = input.percent_off ?? null;
      const amountOff = input.amount_off ?? null;
      if ((percent === null) === (amountOff === null)) throw invalid('/percent_off', 'give exactly one of percent_off and amount_off');
      const currency = input.currency ?? null;
      if (amountOff !== null && currency === null) throw invalid('/currency', 'is required with amount_off');
      if (amountOff === null && currency !== null) throw invalid('/currency', 'is only allowed with amount_off');
      return db.transaction().execute(async (tx) => {
        const planSlugs = input.plan_slugs ? [...new Set(input.plan_slugs)] : null;
        for (const [i, s] of (planSlugs ?? []).entries()) {
          if (!(await repo.findPlan(s, tx))) throw invalid(`/plan_slugs/${i}`, `no plan "${s}"`);
        }
        const coupon = await repo.insertCoupon(tx, {
          code: normalizeCouponCode(input.code),
          percent_off: percent,
          amount_off: amountOff,
          currency,
          plan_slugs: planSlugs,
          max_redemptions: input.max_redemptions ?? null,
          redeem_by: input.redeem_by ? new Date(input.redeem_by) : null,
          created_at: clock.now(),
        });
        if (!coupon) throw conflict(`A coupon "${input.code}" already exists`);
        return couponView(coupon);
      });
    },

    async adminDeleteCoupon(actor: Actor, code: string) {
      assertInstanceAdmin(actor);
      if (!(await repo.deleteCoupon(normalizeCouponCode(code)))) throw notFound('Coupon');
    },

    // ---- lifecycle ----

    /**
     * The periodic job: claims due subscriptions in batches with FOR UPDATE SKIP LOCKED, so any number of instances
     * can run it at once and each transition is written exactly once.
     */
    async runLifecycle(): Promise<{ transitioned: number }> {
      let transitioned = 0;
      for (;;) {
        const { claimed, changed } = await db.transaction().execute(async (tx: Tx) => {
          const now = clock.now();
          const rows = await repo.claimDueSubscriptions(tx, now, addMs(now, -graceDays * DAY_MS), LIFECYCLE_BATCH);
          let n = 0;
          for (const row of rows) if ((await applyDue(tx, row, now)) !== row) n++;
          return { claimed: rows.length, changed: n };
        });
        transitioned += changed;
        if (claimed < LIFECYCLE_BATCH || changed === 0) break;
      }
      return { transitioned };
    },

    /** The plan in effect for a workspace, read inside the caller's transaction (no writes). */
    async planInEffect(tx: Executor, workspaceId: string): Promise<PlanRow> {
      const now = clock.now();
      return planInEffect(tx, await repo.findSubscription(workspaceId, tx), now);
    },

    /** Audit trail of one workspace (tests and operators). */
    async events(workspaceId: string) {
      return repo.listEvents(workspaceId);
    },
  };
}
