import { iso, isoOrNull } from '../../kernel/time.js';
import type { BillingParty } from '../../db/tables/billing.js';
import type { CouponRow, InvoiceRow, PaymentMethodRow, PaymentRow, PlanRow, SubscriptionRow } from './billing.repository.js';

/** Row -> API shape. Field names of the subscription, limits and invoice are the spec's, letter for letter. */

const KNOWN_FEATURES = { time_tracking: false, custom_properties: false };

export const featuresOf = (plan: Pick<PlanRow, 'features'>): Record<string, boolean> => ({ ...KNOWN_FEATURES, ...plan.features });

/** The spec's `limits` (2.8): what the plan allows. */
export const limitsView = (p: PlanRow) => ({
  plan_slug: p.slug,
  plan_name: p.name,
  max_users: p.max_users,
  max_projects: p.max_projects,
  max_storage_gb: p.max_storage_gb,
  ai_tokens_monthly: p.ai_tokens_monthly,
  features: featuresOf(p),
  is_active: p.is_active,
});

/** A catalogue entry: the limits, plus prices and trial. */
export const planView = (p: PlanRow) => ({
  slug: p.slug,
  name: p.name,
  ...limitsView(p),
  price_month: p.price_month,
  price_year: p.price_year,
  currency: p.currency,
  trial_days: p.trial_days,
  sort_order: p.sort_order,
});

export const subscriptionView = (s: SubscriptionRow) => ({
  id: s.id,
  plan_slug: s.plan_slug,
  status: s.status,
  billing_interval: s.billing_interval,
  currency: s.currency,
  amount_per_period: s.amount_per_period,
  current_period_start: iso(s.current_period_start),
  current_period_end: iso(s.current_period_end),
  cancel_at_period_end: s.cancel_at_period_end,
  scheduled_plan_slug: s.scheduled_plan_slug,
  dunning: dunningView(s),
});

/** 19.3: the unpaid period's collection while past_due or suspended, else null. */
export const dunningView = (s: SubscriptionRow) =>
  s.status === 'past_due' || s.status === 'suspended'
    ? { attempts: s.dunning_attempts, next_retry_at: isoOrNull(s.next_retry_at), last_failure_reason: s.last_failure_reason }
    : null;

/** 19.1: a stored card, never its provider token. */
export const paymentMethodView = (m: PaymentMethodRow) => ({
  id: m.id,
  brand: m.brand,
  last4: m.last4,
  exp_month: m.exp_month,
  exp_year: m.exp_year,
  is_default: m.is_default,
  created_at: iso(m.created_at),
});

export const paymentView = (p: PaymentRow) => ({
  id: p.id,
  merchant_oid: p.merchant_oid,
  plan_slug: p.plan_slug,
  billing_interval: p.billing_interval,
  amount: p.amount,
  list_amount: p.list_amount,
  discount_amount: p.discount_amount,
  currency: p.currency,
  coupon_code: p.coupon_code,
  kind: p.kind,
  status: p.status,
  failure_reason: p.failure_reason,
  refunded_amount: p.refunded_amount,
  proration_credit: p.proration_credit,
  created_at: iso(p.created_at),
  paid_at: isoOrNull(p.paid_at),
});

const field = (p: BillingParty, key: string): string | null => p[key] ?? null;

/** The buyer frozen on a document (the billing profile's fields at issue), or null. */
export const billToView = (p: BillingParty | null) =>
  p
    ? {
        legal_name: field(p, 'legal_name'),
        tax_id: field(p, 'tax_id'),
        tax_office: field(p, 'tax_office'),
        address_line: field(p, 'address_line'),
        city: field(p, 'city'),
        postal_code: field(p, 'postal_code'),
        country: field(p, 'country'),
        email: field(p, 'email'),
      }
    : null;

/** The seller frozen on a document, or null (documents issued before 1050). */
export const sellerView = (p: BillingParty | null) =>
  p ? { name: field(p, 'name') ?? '', tax_id: field(p, 'tax_id'), tax_office: field(p, 'tax_office'), address: field(p, 'address') } : null;

export const invoiceView = (i: InvoiceRow) => ({
  id: i.id,
  invoice_number: i.invoice_number,
  plan_name: i.plan_name,
  billing_interval: i.billing_interval,
  total_amount: i.total_amount,
  currency: i.currency,
  period_start: iso(i.period_start),
  period_end: iso(i.period_end),
  created_at: iso(i.created_at),
  workspace_id: i.workspace_id,
  payment_id: i.payment_id,
  plan_slug: i.plan_slug,
  subtotal_amount: i.subtotal_amount,
  discount_amount: i.discount_amount,
  coupon_code: i.coupon_code,
  proration_credit: i.proration_credit,
  net_amount: i.net_amount,
  tax_rate_bp: i.tax_rate_bp,
  tax_amount: i.tax_amount,
  bill_to: billToView(i.bill_to),
  seller: sellerView(i.seller),
});

export const couponView = (c: CouponRow) => ({
  code: c.code,
  percent_off: c.percent_off,
  amount_off: c.amount_off,
  currency: c.currency,
  plan_slugs: c.plan_slugs,
  max_redemptions: c.max_redemptions,
  redeem_by: isoOrNull(c.redeem_by),
  times_redeemed: c.times_redeemed,
  created_at: iso(c.created_at),
});
