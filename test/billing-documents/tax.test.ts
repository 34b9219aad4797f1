import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMinor, MAX_GROSS, ratePercent, splitTax } from '../../src/modules/billing/invoices/invoices.tax.js';
import { invoiceLines } from '../../src/modules/billing/invoices/invoices.lines.js';

/** The model: the exact rational gross * 10000 / (10000 + bp), rounded half up, in BigInt. */
function modelNet(gross: number, bp: number): number {
  const num = BigInt(gross) * 10000n;
  const den = BigInt(10000 + bp);
  const q = num / den;
  const r = num - q * den;
  return Number(2n * r >= den ? q + 1n : q);
}

describe('the KDV split (contract 19.4)', () => {
  it('29900 at 20 % is 24917 + 4983', () => {
    expect(splitTax(29900, 2000)).toEqual({ net_amount: 24917, tax_rate_bp: 2000, tax_amount: 4983 });
    expect(splitTax(0, 2000)).toEqual({ net_amount: 0, tax_rate_bp: 2000, tax_amount: 0 });
    expect(splitTax(29900, 0)).toEqual({ net_amount: 29900, tax_rate_bp: 0, tax_amount: 0 });
    // exactly half a kuruş rounds up: 3 * 10000 / 12000 = 2.5 -> 3
    expect(splitTax(3, 2000).net_amount).toBe(3);
    expect(splitTax(9, 2000).net_amount).toBe(8); // 7.5 -> 8
  });

  it('matches the rational model for wide gross and rates, and the parts add up', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_GROSS }), fc.integer({ min: 0, max: 10_000 }), (gross, bp) => {
        const split = splitTax(gross, bp);
        expect(split.net_amount).toBe(modelNet(gross, bp));
        expect(split.net_amount + split.tax_amount).toBe(gross);
        expect(split.tax_amount).toBeGreaterThanOrEqual(0);
        expect(split.tax_rate_bp).toBe(bp);
      }),
      { numRuns: 5000 },
    );
  });

  it('matches the model at the edges where the float quotient is closest to a half', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 100_000 }), (bp, k) => {
        // gross values whose exact net is k + 1/2 or next to it, when they exist
        const d = 10_000 + bp;
        for (const gross of [Math.floor(((2 * k + 1) * d) / 20_000), Math.ceil(((2 * k + 1) * d) / 20_000)]) {
          if (gross <= MAX_GROSS) expect(splitTax(gross, bp).net_amount).toBe(modelNet(gross, bp));
        }
      }),
    );
  });

  it('refuses what it cannot split exactly', () => {
    expect(() => splitTax(-1, 2000)).toThrow(RangeError);
    expect(() => splitTax(1.5, 2000)).toThrow(RangeError);
    expect(() => splitTax(100, 10_001)).toThrow(RangeError);
  });

  it('prints rates and amounts the Turkish way, from integers', () => {
    expect(ratePercent(2000)).toBe('%20');
    expect(ratePercent(150)).toBe('%1,5');
    expect(ratePercent(1825)).toBe('%18,25');
    expect(ratePercent(0)).toBe('%0');
    expect(formatMinor(29900)).toBe('299,00');
    expect(formatMinor(123456789)).toBe('1.234.567,89');
    expect(formatMinor(-5980)).toBe('-59,80');
    expect(formatMinor(5)).toBe('0,05');
  });
});

describe('invoice lines (contract 19.6)', () => {
  const base = {
    plan_name: 'Pro',
    billing_interval: 'month' as const,
    coupon_code: null,
    period_start: new Date('2026-01-01T00:00:00Z'),
    period_end: new Date('2026-02-01T00:00:00Z'),
  };

  it('the plan first, then the coupon and the proration credit as negative lines, adding up to the total', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.nat(), fc.nat(), (subtotal, a, b) => {
        const discount = a % (subtotal + 1);
        const credit = b % (subtotal - discount + 1);
        const lines = invoiceLines({
          ...base,
          coupon_code: discount ? 'spring' : null,
          subtotal_amount: subtotal,
          discount_amount: discount,
          proration_credit: credit,
        });
        expect(lines[0]).toMatchObject({ amount: subtotal, quantity: 1, period_start: '2026-01-01T00:00:00.000Z', period_end: '2026-02-01T00:00:00.000Z' });
        expect(lines.reduce((sum, l) => sum + l.amount, 0)).toBe(subtotal - discount - credit);
        expect(lines).toHaveLength(1 + (discount > 0 ? 1 : 0) + (credit > 0 ? 1 : 0));
        for (const l of lines.slice(1)) expect(l.amount).toBeLessThan(0);
      }),
    );
  });

  it('names the plan and the coupon', () => {
    const lines = invoiceLines({ ...base, coupon_code: 'spring', subtotal_amount: 29900, discount_amount: 5980, proration_credit: 1000 });
    expect(lines.map((l) => [l.description, l.amount])).toEqual([
      ['Pro plan, monthly', 29900],
      ['Coupon spring', -5980],
      ['Credit for unused time on the previous plan', -1000],
    ]);
  });
});
