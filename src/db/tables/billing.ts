import type { ColumnType, Generated } from 'kysely';

/** Table types of the billing module's migration (0400). Kept by hand beside the SQL they describe. */
type Timestamp = ColumnType<Date, Date, Date>;
/** jsonb: read as a value, written as JSON text. */
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;

/** 1050: a party of a document (buyer or seller) as frozen on it: string fields, absent ones null. */
export type BillingParty = Record<string, string | null>;
export interface StoredInvoiceLine {
  description: string;
  period_start: string | null;
  period_end: string | null;
  quantity: number;
  amount: number;
}

export type SubscriptionStatus = 'trialing' | 'active' | 'past_due' | 'suspended' | 'canceled' | 'expired';
export type BillingInterval = 'month' | 'year';
export type PaymentStatus = 'pending' | 'success' | 'failed' | 'refunded';
export type PaymentKind = 'checkout' | 'renewal' | 'retry';

export interface PlansTable {
  slug: string;
  name: string;
  max_users: number;
  max_projects: number;
  max_storage_gb: number;
  ai_tokens_monthly: number;
  features: Json<Record<string, boolean>>;
  price_month: number | null;
  price_year: number | null;
  currency: string;
  trial_days: number;
  is_active: boolean;
  sort_order: number;
}

export interface SubscriptionsTable {
  id: string;
  workspace_id: string;
  plan_slug: string;
  status: SubscriptionStatus;
  billing_interval: BillingInterval;
  currency: string;
  amount_per_period: number;
  current_period_start: Timestamp;
  current_period_end: Timestamp;
  cancel_at_period_end: boolean;
  canceled_at: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** 0703: a downgrade that takes over at current_period_end. */
  scheduled_plan_slug: ColumnType<string | null, string | null | undefined, string | null>;
  scheduled_billing_interval: ColumnType<BillingInterval | null, BillingInterval | null | undefined, BillingInterval | null>;
  scheduled_amount_per_period: ColumnType<number | null, number | null | undefined, number | null>;
  /** 1060: failed charges of the unpaid period (dunning), the next scheduled retry, the last decline. */
  dunning_attempts: Generated<number>;
  next_retry_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_failure_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1060: the period end whose renewal charge was made (at most one per period). */
  renewal_charged_for: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface WorkspaceTrialsTable {
  workspace_id: string;
  plan_slug: string;
  started_at: Timestamp;
  ends_at: Timestamp;
}

export interface PaymentsTable {
  id: string;
  workspace_id: string;
  merchant_oid: string;
  plan_slug: string;
  billing_interval: BillingInterval;
  list_amount: number;
  discount_amount: number;
  amount: number;
  currency: string;
  coupon_code: string | null;
  status: PaymentStatus;
  failure_reason: string | null;
  provider_total_amount: number | null;
  /** 0700: confirmed by the provider. */
  refunded_amount: Generated<number>;
  /** 0700: asked of the provider, not yet answered. */
  refund_reserved_amount: Generated<number>;
  /** 0703: an upgrade's credit for the unused share of the current period. */
  proration_credit: Generated<number>;
  /** 0700: the reconciliation job's lease. */
  reconcile_after: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_by: string | null;
  created_at: Timestamp;
  paid_at: Date | null;
  updated_at: Timestamp;
  /** 1060: checkout, the renewal charge or a dunning retry. */
  kind: Generated<PaymentKind>;
  /** 1060: a checkout that stores the card it is paid with. */
  save_card: Generated<boolean>;
  /** 1060: the stored card a renewal or retry charged. */
  payment_method_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1060: the start of the period a renewal or retry pays for (the old current_period_end). */
  period_start: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** 1060: at most one charge per key (`renewal:<sub>:<period end>`, `retry:<sub>:<period end>:<n>`). */
  charge_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1060: the customer's address at checkout. */
  user_ip: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1060: false when the provider marked the decline final. */
  try_again: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
}

export interface InvoiceCountersTable {
  year: number;
  last_number: number;
}

export interface InvoicesTable {
  id: string;
  workspace_id: string;
  payment_id: string;
  invoice_number: string;
  plan_slug: string;
  plan_name: string;
  billing_interval: BillingInterval;
  subtotal_amount: number;
  discount_amount: number;
  total_amount: number;
  currency: string;
  coupon_code: string | null;
  /** 0703 */
  proration_credit: Generated<number>;
  /** 1050: the KDV split of total_amount, the rate frozen at issue. */
  tax_rate_bp: number;
  net_amount: number;
  tax_amount: number;
  /** 1050: the billing profile and the seller at issue (null before 1050, or no profile). */
  bill_to: NullableJson<BillingParty>;
  seller: NullableJson<BillingParty>;
  /** 1050: the lines at issue (null before 1050: derived from the other fields). */
  lines: NullableJson<StoredInvoiceLine[]>;
  period_start: Timestamp;
  period_end: Timestamp;
  created_at: Timestamp;
}

export interface CouponsTable {
  code: string;
  percent_off: number | null;
  amount_off: number | null;
  currency: string | null;
  plan_slugs: string[] | null;
  max_redemptions: number | null;
  redeem_by: Date | null;
  times_redeemed: Generated<number>;
  created_at: Timestamp;
}

export interface CouponRedemptionsTable {
  coupon_code: string;
  workspace_id: string;
  payment_id: string;
  redeemed_at: Timestamp;
}

export interface BillingEventsTable {
  id: string;
  workspace_id: string;
  subscription_id: string | null;
  payment_id: string | null;
  type: string;
  from_status: string | null;
  to_status: string | null;
  data: Json<Record<string, unknown>>;
  at: Timestamp;
}

export interface CreditNoteCountersTable {
  year: number;
  last_number: number;
}

export interface RefundsTable {
  id: string;
  payment_id: string;
  workspace_id: string;
  amount: number;
  currency: string;
  reason: string | null;
  cancel_subscription: boolean;
  status: 'reserved' | 'succeeded';
  credit_note_number: string | null;
  idempotency_key: string | null;
  created_by: string | null;
  created_at: Timestamp;
  /** 1050: set with the credit note (null while reserved). */
  tax_rate_bp: ColumnType<number | null, number | null | undefined, number | null>;
  net_amount: ColumnType<number | null, number | null | undefined, number | null>;
  tax_amount: ColumnType<number | null, number | null | undefined, number | null>;
  bill_to: NullableJson<BillingParty>;
  seller: NullableJson<BillingParty>;
  issued_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface SandboxOrdersTable {
  token: string;
  merchant_oid: string;
  state: 'open' | 'paid' | 'declined';
  amount: number;
  refunded_amount: Generated<number>;
  expires_at: Timestamp;
  details: Json<Record<string, unknown>>;
}

export interface SubscriptionNoticesTable {
  subscription_id: string;
  workspace_id: string;
  kind: 'renewal_upcoming' | 'trial_will_end';
  period_end: Timestamp;
  sent_at: Timestamp;
}

export interface BillingProfilesTable {
  workspace_id: string;
  legal_name: string;
  tax_id: string | null;
  tax_office: string | null;
  address_line: string | null;
  city: string | null;
  postal_code: string | null;
  country: string;
  email: string | null;
  updated_at: Timestamp;
}

/** 1060: the workspace's PayTR user token. */
export interface PaymentCustomersTable {
  workspace_id: string;
  utoken: string;
  created_at: Timestamp;
}

/** 1060: a stored card; `ctoken` never leaves the service. */
export interface PaymentMethodsTable {
  id: string;
  workspace_id: string;
  ctoken: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  is_default: Generated<boolean>;
  created_at: Timestamp;
  expiring_notified_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** 1060: a sandbox workspace's billing time offset. */
export interface BillingTestClocksTable {
  workspace_id: string;
  offset_seconds: ColumnType<number, number, number>;
  updated_at: Timestamp;
}

export interface BillingTables {
  payment_customers: PaymentCustomersTable;
  payment_methods: PaymentMethodsTable;
  billing_test_clocks: BillingTestClocksTable;
  billing_profiles: BillingProfilesTable;
  subscription_notices: SubscriptionNoticesTable;
  sandbox_orders: SandboxOrdersTable;
  credit_note_counters: CreditNoteCountersTable;
  refunds: RefundsTable;
  plans: PlansTable;
  subscriptions: SubscriptionsTable;
  workspace_trials: WorkspaceTrialsTable;
  payments: PaymentsTable;
  invoice_counters: InvoiceCountersTable;
  invoices: InvoicesTable;
  coupons: CouponsTable;
  coupon_redemptions: CouponRedemptionsTable;
  billing_events: BillingEventsTable;
}
