-- Billing: plan catalogue, one subscription per workspace, trials, payments, invoices, coupons, an audit trail.
-- Money is an integer in minor units everywhere (29900 = 299.00).

CREATE TABLE plans (
  slug              text PRIMARY KEY CHECK (slug ~ '^[a-z0-9][a-z0-9_-]{0,31}$'),
  name              text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  -- -1 means unlimited
  max_users         integer NOT NULL CHECK (max_users >= -1),
  max_projects      integer NOT NULL CHECK (max_projects >= -1),
  max_storage_gb    integer NOT NULL CHECK (max_storage_gb >= -1),
  ai_tokens_monthly bigint NOT NULL CHECK (ai_tokens_monthly >= -1),
  features          jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(features) = 'object'),
  -- null: cannot be bought for that interval
  price_month       integer CHECK (price_month >= 0),
  price_year        integer CHECK (price_year >= 0),
  currency          text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  trial_days        integer NOT NULL DEFAULT 0 CHECK (trial_days BETWEEN 0 AND 365),
  is_active         boolean NOT NULL DEFAULT true,
  sort_order        integer NOT NULL DEFAULT 0
);

INSERT INTO plans (slug, name, max_users, max_projects, max_storage_gb, ai_tokens_monthly, features,
                   price_month, price_year, currency, trial_days, is_active, sort_order)
VALUES
  ('free', 'Free', 5, 3, 1, 0, '{"time_tracking": false, "custom_properties": false}', NULL, NULL, 'TRY', 0, true, 0),
  ('pro', 'Pro', 50, -1, 100, 1000000, '{"time_tracking": true, "custom_properties": true}', 29900, 299000, 'TRY', 14, true, 10),
  ('business', 'Business', -1, -1, 1000, 10000000, '{"time_tracking": true, "custom_properties": true}', 79900, 799000, 'TRY', 14, true, 20);

-- The one current subscription of a workspace (a new one replaces a canceled or expired one in place).
CREATE TABLE subscriptions (
  id                   uuid PRIMARY KEY,
  workspace_id         uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  plan_slug            text NOT NULL REFERENCES plans (slug),
  status               text NOT NULL CHECK (status IN ('trialing', 'active', 'past_due', 'suspended', 'canceled', 'expired')),
  billing_interval     text NOT NULL CHECK (billing_interval IN ('month', 'year')),
  currency             text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  amount_per_period    integer NOT NULL CHECK (amount_per_period >= 0),
  current_period_start timestamptz NOT NULL,
  current_period_end   timestamptz NOT NULL,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  canceled_at          timestamptz,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL,
  CHECK (current_period_end >= current_period_start)
);
CREATE UNIQUE INDEX subscriptions_workspace_key ON subscriptions (workspace_id);
-- the lifecycle job looks for subscriptions whose period (or grace) is over
CREATE INDEX subscriptions_due_idx ON subscriptions (current_period_end)
  WHERE status IN ('trialing', 'active', 'past_due');

-- A workspace gets one trial, ever: this row outlives the subscription it started.
CREATE TABLE workspace_trials (
  workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  plan_slug    text NOT NULL REFERENCES plans (slug),
  started_at   timestamptz NOT NULL,
  ends_at      timestamptz NOT NULL
);

CREATE TABLE payments (
  id               uuid PRIMARY KEY,
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  -- PayTR accepts only alphanumeric order ids of at most 64 characters
  merchant_oid     text NOT NULL CHECK (merchant_oid ~ '^[A-Za-z0-9]{1,64}$'),
  plan_slug        text NOT NULL REFERENCES plans (slug),
  billing_interval text NOT NULL CHECK (billing_interval IN ('month', 'year')),
  list_amount      integer NOT NULL CHECK (list_amount >= 0),
  discount_amount  integer NOT NULL DEFAULT 0 CHECK (discount_amount >= 0),
  amount           integer NOT NULL CHECK (amount >= 0),
  currency         text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  -- kept as text: the payment keeps its history when the coupon is deleted
  coupon_code      text,
  status           text NOT NULL CHECK (status IN ('pending', 'success', 'failed', 'refunded')),
  failure_reason   text,
  provider_total_amount integer,
  created_by       uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at       timestamptz NOT NULL,
  paid_at          timestamptz,
  updated_at       timestamptz NOT NULL,
  CHECK (amount = list_amount - discount_amount),
  CHECK (paid_at IS NULL OR status IN ('success', 'refunded'))
);
CREATE UNIQUE INDEX payments_merchant_oid_key ON payments (merchant_oid);
CREATE INDEX payments_workspace_idx ON payments (workspace_id, created_at DESC, id DESC);

-- Gapless invoice numbers per calendar year: the row is locked by the payment's transaction until it commits.
CREATE TABLE invoice_counters (
  year        integer PRIMARY KEY CHECK (year BETWEEN 2000 AND 9999),
  last_number integer NOT NULL CHECK (last_number >= 0)
);

CREATE TABLE invoices (
  id               uuid PRIMARY KEY,
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  -- one payment never gets two invoices
  payment_id       uuid NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
  invoice_number   text NOT NULL CHECK (invoice_number ~ '^INV-[0-9]{4}-[0-9]{6,}$'),
  plan_slug        text NOT NULL,
  plan_name        text NOT NULL,
  billing_interval text NOT NULL CHECK (billing_interval IN ('month', 'year')),
  subtotal_amount  integer NOT NULL CHECK (subtotal_amount >= 0),
  discount_amount  integer NOT NULL CHECK (discount_amount >= 0),
  total_amount     integer NOT NULL CHECK (total_amount >= 0),
  currency         text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  coupon_code      text,
  period_start     timestamptz NOT NULL,
  period_end       timestamptz NOT NULL,
  created_at       timestamptz NOT NULL,
  CHECK (total_amount = subtotal_amount - discount_amount),
  CHECK (period_end > period_start)
);
CREATE UNIQUE INDEX invoices_number_key ON invoices (invoice_number);
CREATE UNIQUE INDEX invoices_payment_key ON invoices (payment_id);
CREATE INDEX invoices_workspace_idx ON invoices (workspace_id, created_at DESC, id DESC);

CREATE TABLE coupons (
  -- stored lower case: codes are case-insensitive
  code            text PRIMARY KEY CHECK (code ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
  percent_off     integer CHECK (percent_off BETWEEN 1 AND 100),
  amount_off      integer CHECK (amount_off > 0),
  currency        text CHECK (currency ~ '^[A-Z]{3}$'),
  plan_slugs      text[],
  max_redemptions integer CHECK (max_redemptions > 0),
  redeem_by       timestamptz,
  times_redeemed  integer NOT NULL DEFAULT 0 CHECK (times_redeemed >= 0),
  created_at      timestamptz NOT NULL,
  CHECK ((percent_off IS NULL) <> (amount_off IS NULL)),
  CHECK ((amount_off IS NULL) = (currency IS NULL)),
  CHECK (max_redemptions IS NULL OR times_redeemed <= max_redemptions)
);

CREATE TABLE coupon_redemptions (
  coupon_code  text NOT NULL REFERENCES coupons (code) ON DELETE CASCADE,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  payment_id   uuid NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
  redeemed_at  timestamptz NOT NULL,
  PRIMARY KEY (coupon_code, workspace_id)
);
CREATE UNIQUE INDEX coupon_redemptions_payment_key ON coupon_redemptions (payment_id);
CREATE INDEX coupon_redemptions_workspace_idx ON coupon_redemptions (workspace_id);

-- What happened to a workspace's billing, once per happening: transitions, payments, anomalies.
CREATE TABLE billing_events (
  id              uuid PRIMARY KEY,
  workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  subscription_id uuid,
  payment_id      uuid REFERENCES payments (id) ON DELETE CASCADE,
  type            text NOT NULL,
  from_status     text,
  to_status       text,
  data            jsonb NOT NULL DEFAULT '{}',
  at              timestamptz NOT NULL
);
CREATE INDEX billing_events_workspace_idx ON billing_events (workspace_id, at, id);
CREATE INDEX billing_events_payment_idx ON billing_events (payment_id) WHERE payment_id IS NOT NULL;
