import type { BillingParty, StoredInvoiceLine } from '../../../db/tables/billing.js';

/**
 * The lines of an invoice (contract 19.6), amounts tax included, adding up to its total: the plan for the period
 * first, then a coupon discount and an upgrade's proration credit as negative lines. Written on the invoice at issue;
 * invoices issued before that (migration 1050) get the same lines derived from their stored fields on read.
 */
export type InvoiceLine = StoredInvoiceLine;

export interface LineSource {
  plan_name: string;
  billing_interval: 'month' | 'year';
  subtotal_amount: number;
  discount_amount: number;
  coupon_code: string | null;
  proration_credit: number;
  period_start: Date;
  period_end: Date;
}

export function invoiceLines(s: LineSource): InvoiceLine[] {
  const period = { period_start: s.period_start.toISOString(), period_end: s.period_end.toISOString() };
  const lines: InvoiceLine[] = [
    { description: `${s.plan_name} plan, ${s.billing_interval === 'year' ? 'yearly' : 'monthly'}`, ...period, quantity: 1, amount: s.subtotal_amount },
  ];
  if (s.discount_amount > 0) {
    lines.push({ description: s.coupon_code ? `Coupon ${s.coupon_code}` : 'Discount', ...period, quantity: 1, amount: -s.discount_amount });
  }
  if (s.proration_credit > 0) {
    // The unused share of the previous plan's period: that period is not stored on the invoice, so no dates.
    lines.push({ description: 'Credit for unused time on the previous plan', period_start: null, period_end: null, quantity: 1, amount: -s.proration_credit });
  }
  return lines;
}

/** The seller as frozen on a document (from BILLING_SELLER_* at issue). */
export interface SellerParty extends BillingParty {
  name: string;
  tax_id: string | null;
  tax_office: string | null;
  address: string | null;
}
