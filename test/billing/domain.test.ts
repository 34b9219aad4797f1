import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addInterval,
  type CouponRule,
  discountDisplay,
  discountFor,
  dueTransitions,
  effectiveStatus,
  evaluateCoupon,
  invoiceNumber,
  newMerchantOid,
  nextState,
  renewalStart,
  type SubscriptionStatus,
} from '../../src/modules/billing/billing.domain.js';

const DAY = 86_400_000;
const end = new Date('2026-03-01T00:00:00.000Z');
const at = (days: number) => new Date(end.getTime() + days * DAY);
const sub = (status: SubscriptionStatus, cancel = false) => ({ status, current_period_end: end, cancel_at_period_end: cancel });

describe('nextState (subscription lifecycle)', () => {
  it('keeps every status before its period end', () => {
    for (const status of ['trialing', 'active', 'past_due', 'suspended', 'canceled', 'expired'] as const) {
      expect(nextState(sub(status), at(-1), 7)).toBeNull();
      expect(nextState(sub(status, true), new Date(end.getTime() - 1), 7)).toBeNull();
    }
  });

  it('ends a trial as expired at its period end (also when cancel_at_period_end)', () => {
    expect(nextState(sub('trialing'), end, 7)).toEqual({ from: 'trialing', to: 'expired', at: end, reason: 'trial_ended' });
    expect(nextState(sub('trialing', true), at(3), 7)?.to).toBe('expired');
  });

  it('ends an active period as past_due, or canceled when cancel_at_period_end', () => {
    expect(nextState(sub('active'), end, 7)).toEqual({ from: 'active', to: 'past_due', at: end, reason: 'period_ended_unpaid' });
    expect(nextState(sub('active', true), end, 7)).toEqual({ from: 'active', to: 'canceled', at: end, reason: 'period_ended_canceled' });
  });

  it('suspends past_due once the grace period is over, not before', () => {
    expect(nextState(sub('past_due'), new Date(at(7).getTime() - 1), 7)).toBeNull();
    expect(nextState(sub('past_due'), at(7), 7)).toEqual({ from: 'past_due', to: 'suspended', at: at(7), reason: 'grace_ended' });
    expect(nextState(sub('past_due'), end, 0)?.to).toBe('suspended');
  });

  it('leaves terminal statuses alone forever', () => {
    for (const status of ['suspended', 'canceled', 'expired'] as const) expect(nextState(sub(status), at(10_000), 7)).toBeNull();
  });

  it('catches up on missed steps in order (active -> past_due -> suspended)', () => {
    const { state, transitions } = dueTransitions(sub('active'), at(30), 7);
    expect(state.status).toBe('suspended');
    expect(transitions.map((t) => [t.from, t.to, t.at.toISOString()])).toEqual([
      ['active', 'past_due', end.toISOString()],
      ['past_due', 'suspended', at(7).toISOString()],
    ]);
    expect(effectiveStatus(sub('active'), at(3), 7)).toBe('past_due');
    expect(effectiveStatus(sub('active', true), at(30), 7)).toBe('canceled');
  });

  it('always settles in a status with nothing further due (property)', () => {
    const statuses = ['trialing', 'active', 'past_due', 'suspended', 'canceled', 'expired'] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...statuses),
        fc.boolean(),
        fc.integer({ min: -100, max: 1000 }),
        fc.integer({ min: 0, max: 365 }),
        (status, cancel, days, grace) => {
          const { state, transitions } = dueTransitions(sub(status, cancel), at(days), grace);
          expect(transitions.length).toBeLessThanOrEqual(2);
          expect(nextState(state, at(days), grace)).toBeNull();
        },
      ),
    );
  });
});

describe('addInterval', () => {
  it('adds calendar months and years in UTC, clamping to the month end', () => {
    expect(addInterval(new Date('2026-01-15T09:00:00.000Z'), 'month').toISOString()).toBe('2026-02-15T09:00:00.000Z');
    expect(addInterval(new Date('2026-01-31T09:00:00.000Z'), 'month').toISOString()).toBe('2026-02-28T09:00:00.000Z');
    expect(addInterval(new Date('2028-01-31T00:00:00.000Z'), 'month').toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(addInterval(new Date('2026-12-10T00:00:00.000Z'), 'month').toISOString()).toBe('2027-01-10T00:00:00.000Z');
    expect(addInterval(new Date('2028-02-29T12:00:00.000Z'), 'year').toISOString()).toBe('2029-02-28T12:00:00.000Z');
  });

  it('always moves forward by 28..31 days a month, 365..366 a year (property)', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }), (d) => {
        const m = (addInterval(d, 'month').getTime() - d.getTime()) / DAY;
        const y = (addInterval(d, 'year').getTime() - d.getTime()) / DAY;
        expect(m).toBeGreaterThanOrEqual(28);
        expect(m).toBeLessThanOrEqual(31);
        expect(y).toBeGreaterThanOrEqual(365 - 1);
        expect(y).toBeLessThanOrEqual(366);
      }),
    );
  });
});

describe('renewalStart', () => {
  const now = new Date('2026-02-10T00:00:00.000Z');
  it('starts at the period end for an early renewal of the same active plan, else now', () => {
    expect(renewalStart({ status: 'active', plan_slug: 'pro', current_period_end: end }, 'pro', now)).toBe(end);
    expect(renewalStart({ status: 'active', plan_slug: 'pro', current_period_end: end }, 'business', now)).toBe(now);
    expect(renewalStart({ status: 'trialing', plan_slug: 'pro', current_period_end: end }, 'pro', now)).toBe(now);
    expect(renewalStart(undefined, 'pro', now)).toBe(now);
  });
  it('a renewal charge and a payment while past_due start at the old period end; while suspended at the payment (19.2, 19.3)', () => {
    const ended = new Date('2026-02-01T00:00:00.000Z');
    expect(renewalStart({ status: 'active', plan_slug: 'pro', current_period_end: ended }, 'pro', now)).toBe(ended);
    expect(renewalStart({ status: 'past_due', plan_slug: 'pro', current_period_end: ended }, 'pro', now)).toBe(ended);
    expect(renewalStart({ status: 'past_due', plan_slug: 'pro', current_period_end: ended }, 'business', now)).toBe(ended);
    expect(renewalStart({ status: 'suspended', plan_slug: 'pro', current_period_end: ended }, 'pro', now)).toBe(now);
  });
});

const coupon = (c: Partial<CouponRule>): CouponRule => ({
  code: 'c',
  percent_off: null,
  amount_off: null,
  currency: null,
  plan_slugs: null,
  max_redemptions: null,
  redeem_by: null,
  times_redeemed: 0,
  ...c,
});
const ctx = { planSlug: 'pro', currency: 'TRY', amount: 29900, now: end, redeemedByWorkspace: false };

describe('coupons', () => {
  it('gives the contract example: 20% of 29900 -> 23920 and "-59.80"', () => {
    const check = evaluateCoupon(coupon({ percent_off: 20 }), ctx);
    expect(check).toEqual({ valid: true, discount: 5980, discountedAmount: 23920 });
    expect(discountDisplay(5980)).toBe('-59.80');
    expect(discountDisplay(0)).toBe('0.00');
    expect(discountDisplay(5)).toBe('-0.05');
    expect(discountDisplay(123456)).toBe('-1234.56');
  });

  it('rounds percent discounts half up to the minor unit', () => {
    expect(discountFor({ percent_off: 50, amount_off: null }, 1)).toBe(1); // 0.5 -> 1
    expect(discountFor({ percent_off: 10, amount_off: null }, 4)).toBe(0); // 0.4 -> 0
    expect(discountFor({ percent_off: 15, amount_off: null }, 10)).toBe(2); // 1.5 -> 2
    expect(discountFor({ percent_off: 20, amount_off: null }, 29901)).toBe(5980); // 5980.2 -> 5980
  });

  it('caps a fixed discount at the amount', () => {
    expect(evaluateCoupon(coupon({ amount_off: 50000, currency: 'TRY' }), ctx)).toEqual({ valid: true, discount: 29900, discountedAmount: 0 });
  });

  it('says why a coupon is not valid', () => {
    expect(evaluateCoupon(undefined, ctx)).toEqual({ valid: false, reason: 'not_found' });
    expect(evaluateCoupon(coupon({ percent_off: 5, redeem_by: at(-1) }), ctx)).toEqual({ valid: false, reason: 'expired' });
    expect(evaluateCoupon(coupon({ percent_off: 5, redeem_by: end }), ctx).valid).toBe(true);
    expect(evaluateCoupon(coupon({ percent_off: 5, max_redemptions: 2, times_redeemed: 2 }), ctx)).toEqual({ valid: false, reason: 'max_redemptions_reached' });
    expect(evaluateCoupon(coupon({ percent_off: 5, plan_slugs: ['business'] }), ctx)).toEqual({ valid: false, reason: 'not_applicable_to_plan' });
    expect(evaluateCoupon(coupon({ amount_off: 100, currency: 'USD' }), ctx)).toEqual({ valid: false, reason: 'currency_mismatch' });
    expect(evaluateCoupon(coupon({ percent_off: 5 }), { ...ctx, redeemedByWorkspace: true })).toEqual({ valid: false, reason: 'already_redeemed' });
  });

  it('never discounts below zero or above the amount (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000_000_000 }),
        fc.oneof(
          fc.record({ percent_off: fc.integer({ min: 1, max: 100 }), amount_off: fc.constant(null) }),
          fc.record({ percent_off: fc.constant(null), amount_off: fc.integer({ min: 1, max: 2_000_000_000 }) }),
        ),
        (amount, rule) => {
          const check = evaluateCoupon(coupon({ ...rule, currency: rule.amount_off ? 'TRY' : null }), { ...ctx, amount });
          expect(check.valid).toBe(true);
          if (!check.valid) return;
          expect(check.discount).toBeGreaterThanOrEqual(0);
          expect(check.discount).toBeLessThanOrEqual(amount);
          expect(check.discountedAmount).toBe(amount - check.discount);
          expect(check.discountedAmount).toBeGreaterThanOrEqual(0);
          expect(Number.isInteger(check.discount)).toBe(true);
          if (rule.percent_off !== null) expect(Math.abs(check.discount - (amount * rule.percent_off) / 100)).toBeLessThanOrEqual(0.5);
          const shown = discountDisplay(check.discount);
          expect(shown).toMatch(/^(0\.00|-\d+\.\d{2})$/);
          expect(Math.round(Math.abs(Number(shown)) * 100)).toBe(check.discount);
        },
      ),
    );
  });
});

describe('identifiers', () => {
  it('makes alphanumeric merchant_oids of at most 64 characters, all different', () => {
    const oids = new Set(Array.from({ length: 1000 }, newMerchantOid));
    expect(oids.size).toBe(1000);
    for (const oid of oids) expect(oid).toMatch(/^[A-Za-z0-9]{1,64}$/);
  });

  it('formats invoice numbers as INV-YYYY-NNNNNN', () => {
    expect(invoiceNumber(2026, 1)).toBe('INV-2026-000001');
    expect(invoiceNumber(2026, 123456)).toBe('INV-2026-123456');
  });
});
