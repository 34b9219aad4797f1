import { Type } from 'typebox';
import { NullableTimestamp, Slug, Timestamp, Uuid } from '../../http/schemas.js';

const PlanSlug = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,31}$', description: 'Plan identifier, e.g. pro' });
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217, upper case (TRY, USD, EUR)' });
const Money = (description: string) => Type.Integer({ description: `${description}, in minor units (29900 = 299.00)` });
const Cap = (description: string) => Type.Integer({ minimum: -1, maximum: 2_000_000_000, description: `${description}; -1 = unlimited` });
const Interval = Type.Enum(['month', 'year'], { description: 'Billing interval' });
const Features = Type.Record(Type.String(), Type.Boolean(), { description: 'Feature name -> included (time_tracking, custom_properties, ...)' });
const Price = Type.Union([Type.Integer({ minimum: 0, maximum: 2_000_000_000 }), Type.Null()], {
  description: 'Price in minor units; null: cannot be bought for this interval',
});
const CouponCode = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$', description: 'Coupon code (case-insensitive)' });

export const SubscriptionStatusSchema = Type.Enum(['trialing', 'active', 'past_due', 'suspended', 'canceled', 'expired']);
export const PaymentStatusSchema = Type.Enum(['pending', 'success', 'failed', 'refunded']);

export const PlanParams = Type.Object({ planSlug: PlanSlug });
export const CouponParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) });
export const WorkspaceParams = Type.Object({ slug: Slug });

export const Plan = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  plan_slug: Type.String({ description: 'Same as slug (the name the limits use)' }),
  plan_name: Type.String({ description: 'Same as name (the name the limits use)' }),
  max_users: Type.Integer(),
  max_projects: Type.Integer(),
  max_storage_gb: Type.Integer(),
  ai_tokens_monthly: Type.Integer(),
  features: Features,
  price_month: Type.Union([Type.Integer(), Type.Null()]),
  price_year: Type.Union([Type.Integer(), Type.Null()]),
  currency: Type.String(),
  trial_days: Type.Integer(),
  is_active: Type.Boolean({ description: 'Retired plans cannot be bought' }),
  sort_order: Type.Integer(),
});

export const CreatePlanBody = Type.Object(
  {
    slug: PlanSlug,
    name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
    max_users: Cap('Members'),
    max_projects: Cap('Projects'),
    max_storage_gb: Cap('Storage in GB'),
    ai_tokens_monthly: Cap('AI tokens a month'),
    features: Type.Optional(Features),
    price_month: Type.Optional(Price),
    price_year: Type.Optional(Price),
    currency: Currency,
    trial_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
    is_active: Type.Optional(Type.Boolean()),
    sort_order: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);

export const UpdatePlanBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' })),
    max_users: Type.Optional(Cap('Members')),
    max_projects: Type.Optional(Cap('Projects')),
    max_storage_gb: Type.Optional(Cap('Storage in GB')),
    ai_tokens_monthly: Type.Optional(Cap('AI tokens a month')),
    features: Type.Optional(Features),
    price_month: Type.Optional(Price),
    price_year: Type.Optional(Price),
    currency: Type.Optional(Currency),
    trial_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
    is_active: Type.Optional(Type.Boolean()),
    sort_order: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);

export const Subscription = Type.Object({
  id: Uuid,
  plan_slug: Type.String(),
  status: SubscriptionStatusSchema,
  billing_interval: Interval,
  currency: Type.String(),
  amount_per_period: Money('Amount per billing period (0 during a trial)'),
  current_period_start: Timestamp,
  current_period_end: Timestamp,
  cancel_at_period_end: Type.Boolean(),
  scheduled_plan_slug: Type.Union([Type.String(), Type.Null()], { description: 'A downgrade that takes effect at current_period_end' }),
  dunning: Type.Union(
    [
      Type.Object({
        attempts: Type.Integer({ description: 'Failed charges of the unpaid period, the renewal charge included (0: there was no card to charge)' }),
        next_retry_at: Type.Union([Timestamp, Type.Null()], { description: 'The next scheduled retry of the default card; null when none is left' }),
        last_failure_reason: Type.Union([Type.String(), Type.Null()], { description: "The provider's reason for the last failed charge" }),
      }),
      Type.Null(),
    ],
    { description: 'Collection of the unpaid period while past_due or suspended (19.3); null otherwise' },
  ),
});

export const Limits = Type.Object({
  plan_slug: Type.String(),
  plan_name: Type.String(),
  max_users: Type.Integer({ description: '-1 = unlimited' }),
  max_projects: Type.Integer({ description: '-1 = unlimited' }),
  max_storage_gb: Type.Integer(),
  ai_tokens_monthly: Type.Integer(),
  features: Features,
  is_active: Type.Boolean(),
});

/** The limits in effect with what the workspace uses of them (contract 25.3: 1 GB = 1,073,741,824 bytes). */
export const LimitsWithUsage = Type.Object({
  ...Limits.properties,
  usage: Type.Object({
    storage_used_bytes: Type.Integer({ description: 'Bytes of stored attachments and their thumbnails' }),
    storage_reserved_bytes: Type.Integer({ description: 'Bytes held for uploads under way' }),
  }),
});

export const SubscriptionResponse = Type.Object({
  subscription: Type.Union([Subscription, Type.Null()], { description: 'null: the workspace never subscribed (free plan)' }),
  limits: LimitsWithUsage,
});

export const CheckoutBody = Type.Object({
  plan_slug: Type.String({ minLength: 1, maxLength: 64 }),
  billing_interval: Interval,
  coupon_code: Type.Optional(CouponCode),
  save_card: Type.Optional(
    Type.Boolean({ default: true, description: 'Store the card at the provider; once paid it becomes the default card the renewals charge (19.1)' }),
  ),
});

export const CheckoutSession = Type.Object({
  iframe_token: Type.Union([Type.String(), Type.Null()], { description: 'Payment-session token; null when nothing is due' }),
  iframe_url: Type.Union([Type.String(), Type.Null()], {
    description:
      "Embed in an iframe to show the payment form (PayTR's, the sandbox's, or with save_card and PAYMENT_PROVIDER=paytr the service's own card page posting to PayTR's Direct API); null when nothing is due",
  }),
  merchant_oid: Type.String({ description: 'Order id of the payment (alphanumeric)' }),
  amount: Money('Amount to pay'),
  currency: Type.String(),
  proration_credit: Money('Credit for the unused share of the current period (an upgrade); 0 otherwise'),
});

export const CancelBody = Type.Object({
  immediate: Type.Boolean({ description: 'true: cancel now; false: at the end of the current period' }),
});

export const TrialBody = Type.Object({ plan_slug: Type.String({ minLength: 1, maxLength: 64 }) });

export const Payment = Type.Object({
  id: Uuid,
  merchant_oid: Type.String(),
  plan_slug: Type.String(),
  billing_interval: Interval,
  amount: Money('Amount charged (after discount)'),
  list_amount: Money('Plan price before discount'),
  discount_amount: Money('Coupon discount'),
  currency: Type.String(),
  coupon_code: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Enum(['checkout', 'renewal', 'retry'], { description: 'checkout; the renewal charge of a period; a dunning retry (19.2, 19.3)' }),
  status: PaymentStatusSchema,
  failure_reason: Type.Union([Type.String(), Type.Null()]),
  refunded_amount: Money('Refunded so far'),
  proration_credit: Money('Upgrade credit for the unused share of the previous plan'),
  created_at: Timestamp,
  paid_at: NullableTimestamp,
});

/** The KDV split of a document over its gross (contract 19.4): the rate frozen at issue. */
export const TaxSplitFields = {
  net_amount: Money('Amount without tax (matrah): round_half_up(gross * 10000 / (10000 + tax_rate_bp))'),
  tax_rate_bp: Type.Integer({ description: 'KDV rate in force at issue, in basis points (2000 = 20 %)' }),
  tax_amount: Money('KDV: gross - net_amount'),
};

/** The buyer as frozen at issue: the workspace's billing profile then (null when it had none, or before 1050). */
export const BillTo = Type.Union(
  [
    Type.Object({
      legal_name: Type.Union([Type.String(), Type.Null()]),
      tax_id: Type.Union([Type.String(), Type.Null()]),
      tax_office: Type.Union([Type.String(), Type.Null()]),
      address_line: Type.Union([Type.String(), Type.Null()]),
      city: Type.Union([Type.String(), Type.Null()]),
      postal_code: Type.Union([Type.String(), Type.Null()]),
      country: Type.Union([Type.String(), Type.Null()]),
      email: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ],
  { description: 'The billing profile at issue; null when there was none' },
);

/** The seller as frozen at issue (BILLING_SELLER_*; null on documents issued before the seller was recorded). */
export const Seller = Type.Union(
  [
    Type.Object({
      name: Type.String(),
      tax_id: Type.Union([Type.String(), Type.Null()]),
      tax_office: Type.Union([Type.String(), Type.Null()]),
      address: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ],
  { description: 'The seller at issue; null on documents issued before it was recorded' },
);

export const Invoice = Type.Object({
  id: Uuid,
  invoice_number: Type.String({ description: 'INV-YYYY-NNNNNN, gapless within a year' }),
  plan_name: Type.String(),
  billing_interval: Interval,
  total_amount: Money('Invoice total'),
  currency: Type.String(),
  period_start: Timestamp,
  period_end: Timestamp,
  created_at: Timestamp,
  workspace_id: Uuid,
  payment_id: Uuid,
  plan_slug: Type.String(),
  subtotal_amount: Money('Before discount'),
  discount_amount: Money('Coupon discount'),
  coupon_code: Type.Union([Type.String(), Type.Null()]),
  proration_credit: Money('Upgrade credit for the unused share of the previous plan'),
  ...TaxSplitFields,
  bill_to: BillTo,
  seller: Seller,
});

export const ValidateCouponBody = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 64 }),
  plan_slug: Type.String({ minLength: 1, maxLength: 64 }),
  amount: Type.Integer({ minimum: 1, maximum: 2_000_000_000, description: 'Amount in minor units (a positive integer)' }),
});

export const CouponValidation = Type.Object({
  valid: Type.Boolean(),
  discounted_amount: Money('Amount after the discount (the amount itself when invalid)'),
  discount_display: Type.String({ description: 'Discount in major units with sign, e.g. "-59.80"; "0.00" when invalid' }),
  discount_amount: Money('The discount'),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the coupon is not valid' }),
  reason_code: Type.Union([Type.String(), Type.Null()], {
    description: 'not_found, expired, max_redemptions_reached, not_applicable_to_plan, currency_mismatch, already_redeemed',
  }),
});

export const Coupon = Type.Object({
  code: Type.String({ description: 'Stored lower case' }),
  percent_off: Type.Union([Type.Integer(), Type.Null()]),
  amount_off: Type.Union([Type.Integer(), Type.Null()]),
  currency: Type.Union([Type.String(), Type.Null()]),
  plan_slugs: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null: every plan' }),
  max_redemptions: Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited' }),
  redeem_by: NullableTimestamp,
  times_redeemed: Type.Integer(),
  created_at: Timestamp,
});

export const CreateCouponBody = Type.Object(
  {
    code: CouponCode,
    percent_off: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 100 }), Type.Null()])),
    amount_off: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 2_000_000_000 }), Type.Null()])),
    currency: Type.Optional(Type.Union([Currency, Type.Null()])),
    plan_slugs: Type.Optional(Type.Union([Type.Array(PlanSlug, { minItems: 1, maxItems: 100 }), Type.Null()])),
    max_redemptions: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 2_000_000_000 }), Type.Null()])),
    redeem_by: Type.Optional(NullableTimestamp),
  },
  { additionalProperties: false },
);

/** 19.1: a stored card (never its number or the provider's token). */
export const PaymentMethod = Type.Object({
  id: Uuid,
  brand: Type.String({ description: 'visa, mastercard, troy, amex, ...' }),
  last4: Type.String({ pattern: '^[0-9]{4}$' }),
  exp_month: Type.Integer({ minimum: 1, maximum: 12 }),
  exp_year: Type.Integer({ description: 'Four digits, such as 2030' }),
  is_default: Type.Boolean({ description: 'The card the renewals and retries charge' }),
  created_at: Timestamp,
});
export const PaymentMethodParams = Type.Object({ slug: Slug, methodId: Uuid });

/** 19.3: `POST .../billing/retry/`: the charge as it stands and the subscription. */
export const RetryResponse = Type.Object({ payment: Payment, subscription: Type.Union([Subscription, Type.Null()]), limits: LimitsWithUsage });

/** 19.7: a sandbox workspace's test clock. */
export const TestClock = Type.Object({
  now: Timestamp,
  offset_seconds: Type.Integer({ minimum: 0, description: "How far this workspace's billing time runs ahead of the real clock" }),
});
export const AdvanceClockBody = Type.Object({ to: Type.String({ format: 'date-time', description: 'The billing time to move to (never back)' }) });
export const AdvanceClockResponse = Type.Object({
  now: Timestamp,
  offset_seconds: Type.Integer({ minimum: 0 }),
  subscription: Type.Union([Subscription, Type.Null()]),
  limits: LimitsWithUsage,
});
