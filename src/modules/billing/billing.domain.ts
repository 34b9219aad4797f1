import { createHash, randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { DAY_MS } from '../../kernel/clock.js';

/** Pure billing rules: no I/O, unit-tested without HTTP. Money is an integer in minor units. */

export type SubscriptionStatus = 'trialing' | 'active' | 'past_due' | 'suspended' | 'canceled' | 'expired';
export type BillingInterval = 'month' | 'year';

/** Statuses whose plan is in effect; every other status (or none) gets the free plan's limits. */
export const PLAN_IN_EFFECT: readonly SubscriptionStatus[] = ['trialing', 'active', 'past_due'];
export const FREE_PLAN = 'free';

export interface LifecycleState {
  status: SubscriptionStatus;
  current_period_end: Date;
  cancel_at_period_end: boolean;
}

/**
 * What the lifecycle knows besides the row. `autoRenew`: the workspace has a default card, so an active period's end
 * is the renewal charge's business (19.2), not a transition: the subscription stays active until the charge's outcome.
 */
export interface LifecycleOptions {
  autoRenew?: boolean;
}

export interface Transition {
  from: SubscriptionStatus;
  to: SubscriptionStatus;
  /** When the transition became due (not when it was noticed): the period end, or the end of the grace period. */
  at: Date;
  reason: 'trial_ended' | 'period_ended_canceled' | 'period_ended_unpaid' | 'grace_ended';
}

export const graceEndsAt = (periodEnd: Date, graceDays: number): Date => new Date(periodEnd.getTime() + graceDays * DAY_MS);

/**
 * The one transition that is due for a subscription at `now`, or null. Trial end -> expired; an active period's
 * end -> canceled (when cancel_at_period_end) or past_due; past_due -> suspended once the grace period is over.
 * Applying it repeatedly until null catches up on any number of missed steps.
 */
export function nextState(sub: LifecycleState, now: Date, graceDays: number, opts: LifecycleOptions = {}): Transition | null {
  const end = sub.current_period_end;
  switch (sub.status) {
    case 'trialing':
      return now >= end ? { from: 'trialing', to: 'expired', at: end, reason: 'trial_ended' } : null;
    case 'active':
      if (now < end) return null;
      if (sub.cancel_at_period_end) return { from: 'active', to: 'canceled', at: end, reason: 'period_ended_canceled' };
      return opts.autoRenew ? null : { from: 'active', to: 'past_due', at: end, reason: 'period_ended_unpaid' };
    case 'past_due': {
      const graceEnd = graceEndsAt(end, graceDays);
      return now >= graceEnd ? { from: 'past_due', to: 'suspended', at: graceEnd, reason: 'grace_ended' } : null;
    }
    default:
      return null;
  }
}

/** Every transition due at `now`, in order, and the state they lead to. */
export function dueTransitions<S extends LifecycleState>(
  sub: S,
  now: Date,
  graceDays: number,
  opts: LifecycleOptions = {},
): { state: S; transitions: Transition[] } {
  const transitions: Transition[] = [];
  let state = sub;
  for (let t = nextState(state, now, graceDays, opts); t; t = nextState(state, now, graceDays, opts)) {
    transitions.push(t);
    state = { ...state, status: t.to };
  }
  return { state, transitions };
}

/** The status in effect at `now`, whether or not anyone has written it down yet. */
export const effectiveStatus = (sub: LifecycleState, now: Date, graceDays: number): SubscriptionStatus => dueTransitions(sub, now, graceDays).state.status;

/**
 * Adds one billing interval in UTC calendar terms. A day that the target month lacks is clamped to its last day
 * (Jan 31 + 1 month = Feb 28/29), so a period never spills into the month after.
 */
export function addInterval(from: Date, interval: BillingInterval, count = 1): Date {
  const months = interval === 'year' ? 12 * count : count;
  const y = from.getUTCFullYear();
  const m = from.getUTCMonth() + months;
  const targetYear = y + Math.floor(m / 12);
  const targetMonth = ((m % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(targetYear, targetMonth + 1, 0)).getUTCDate();
  const day = Math.min(from.getUTCDate(), lastDay);
  return new Date(Date.UTC(targetYear, targetMonth, day, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds()));
}

/**
 * Where a paid period starts: at the end of the current one when an active subscription of the same plan is renewed
 * (early, or by its renewal charge: the customer keeps the days already paid for, none lost or gained) and when a
 * past_due one is paid (the grace days were served, 19.3); else now (a suspended workspace's days are not billed).
 */
export function renewalStart(
  current: { status: SubscriptionStatus; plan_slug: string; current_period_end: Date } | undefined,
  planSlug: string,
  now: Date,
): Date {
  if (!current) return now;
  if (current.status === 'active' && current.plan_slug === planSlug) return current.current_period_end;
  if (current.status === 'past_due') return current.current_period_end;
  return now;
}

// ---- dunning (19.3) ----

/**
 * The next scheduled retry after a failed charge at `now`: the first `periodEnd + d days` (d from
 * BILLING_RETRY_SCHEDULE) later than `now` and before the grace period ends, or null when none is left.
 */
export function nextRetryAt(periodEnd: Date, retryDays: readonly number[], graceDays: number, now: Date): Date | null {
  const graceEnd = graceEndsAt(periodEnd, graceDays);
  for (const d of [...retryDays].sort((a, b) => a - b)) {
    const at = new Date(periodEnd.getTime() + d * DAY_MS);
    if (at >= graceEnd) return null;
    if (at > now) return at;
  }
  return null;
}

/** The key that makes a charge once: the renewal of a period, or the n-th charge of its dunning. */
export const chargeKey = (subscriptionId: string, periodEnd: Date, kind: 'renewal' | 'retry', attempt = 0): string =>
  kind === 'renewal' ? `renewal:${subscriptionId}:${periodEnd.toISOString()}` : `retry:${subscriptionId}:${periodEnd.toISOString()}:${attempt}`;

/** A merchant_oid derived from the charge key (PayTR: alphanumeric, at most 64): the same key never makes two orders. */
export const merchantOidFor = (key: string): string => `WIR${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;

// ---- coupons ----

/** What the coupon rules need of a coupon: its columns, as stored. */
export type CouponRule = Pick<
  Selectable<Database['coupons']>,
  'code' | 'percent_off' | 'amount_off' | 'currency' | 'plan_slugs' | 'max_redemptions' | 'redeem_by' | 'times_redeemed'
>;

export type CouponRejection = 'not_found' | 'expired' | 'max_redemptions_reached' | 'not_applicable_to_plan' | 'currency_mismatch' | 'already_redeemed';

export const REJECTION_TEXT: Record<CouponRejection, string> = {
  not_found: 'No such coupon',
  expired: 'The coupon has expired',
  max_redemptions_reached: 'The coupon has been redeemed the maximum number of times',
  not_applicable_to_plan: 'The coupon does not apply to this plan',
  currency_mismatch: 'The coupon is in another currency than the plan',
  already_redeemed: 'This workspace has already redeemed the coupon',
};

/**
 * The discount for `amount`: percent discounts round half up to the minor unit (20% of 29901 = 5980.2 -> 5980,
 * 50% of 1 = 0.5 -> 1); fixed discounts never exceed the amount. Always 0..amount.
 */
export function discountFor(coupon: Pick<CouponRule, 'percent_off' | 'amount_off'>, amount: number): number {
  if (amount <= 0) return 0;
  let discount = 0;
  if (coupon.percent_off !== null) discount = Math.floor((amount * coupon.percent_off + 50) / 100);
  else if (coupon.amount_off !== null) discount = coupon.amount_off;
  return Math.max(0, Math.min(amount, discount));
}

export type CouponCheck = { valid: true; discount: number; discountedAmount: number } | { valid: false; reason: CouponRejection };

/** The one set of coupon rules, shared by validate-coupon and checkout. */
export function evaluateCoupon(
  coupon: CouponRule | undefined,
  ctx: { planSlug: string; currency: string; amount: number; now: Date; redeemedByWorkspace: boolean },
): CouponCheck {
  if (!coupon) return { valid: false, reason: 'not_found' };
  if (coupon.redeem_by && ctx.now > coupon.redeem_by) return { valid: false, reason: 'expired' };
  if (coupon.max_redemptions !== null && coupon.times_redeemed >= coupon.max_redemptions) {
    return { valid: false, reason: 'max_redemptions_reached' };
  }
  if (coupon.plan_slugs && !coupon.plan_slugs.includes(ctx.planSlug)) return { valid: false, reason: 'not_applicable_to_plan' };
  if (coupon.amount_off !== null && coupon.currency !== ctx.currency) return { valid: false, reason: 'currency_mismatch' };
  if (ctx.redeemedByWorkspace) return { valid: false, reason: 'already_redeemed' };
  const discount = discountFor(coupon, ctx.amount);
  return { valid: true, discount, discountedAmount: ctx.amount - discount };
}

/** Minor units as a signed major-unit decimal with two places: 5980 -> "-59.80"; 0 -> "0.00". */
export function discountDisplay(discount: number): string {
  if (discount <= 0) return '0.00';
  return `-${Math.floor(discount / 100)}.${String(discount % 100).padStart(2, '0')}`;
}

export const normalizeCouponCode = (code: string): string => code.trim().toLowerCase();

// ---- payments and invoices ----

/** PayTR accepts only alphanumeric order ids of at most 64 characters: 'WIS' + 32 hex digits. */
export const newMerchantOid = (): string => `WIS${randomUUID().replaceAll('-', '')}`;

export const invoiceNumber = (year: number, n: number): string => `INV-${year}-${String(n).padStart(6, '0')}`;

export const priceFor = (plan: { price_month: number | null; price_year: number | null }, interval: BillingInterval): number | null =>
  interval === 'year' ? plan.price_year : plan.price_month;
