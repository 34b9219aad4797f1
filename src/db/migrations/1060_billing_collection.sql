-- Billing that bills (contract 19.1-19.3, 19.7): stored cards, automatic renewal, dunning and test clocks.
-- Only adds: no stored row is rewritten (every existing payment is a checkout; every subscription starts out of dunning).

-- The workspace's PayTR user token (`utoken`): one per workspace, kept and reused for every card it stores.
CREATE TABLE payment_customers (
  workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  utoken       text NOT NULL,
  created_at   timestamptz NOT NULL
);

-- Stored cards. `ctoken` is the provider's card token: never in an answer or a log. One default per workspace.
CREATE TABLE payment_methods (
  id                   uuid PRIMARY KEY,
  workspace_id         uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  ctoken               text NOT NULL,
  brand                text NOT NULL,
  last4                text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
  exp_month            integer NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
  exp_year             integer NOT NULL CHECK (exp_year BETWEEN 2000 AND 9999),
  is_default           boolean NOT NULL DEFAULT false,
  created_at           timestamptz NOT NULL,
  -- payment_method.expiring was sent (once per card).
  expiring_notified_at timestamptz,
  UNIQUE (workspace_id, ctoken)
);
CREATE INDEX payment_methods_workspace_idx ON payment_methods (workspace_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX payment_methods_one_default_idx ON payment_methods (workspace_id) WHERE is_default;

-- Payments: what they were for (checkout, the renewal charge, a dunning retry), whether the checkout stores the card,
-- which card a charge used, the period a renewal or retry pays for, and the key that makes it once.
ALTER TABLE payments ADD COLUMN kind text NOT NULL DEFAULT 'checkout' CHECK (kind IN ('checkout', 'renewal', 'retry'));
ALTER TABLE payments ADD COLUMN save_card boolean NOT NULL DEFAULT false;
ALTER TABLE payments ADD COLUMN payment_method_id uuid;
ALTER TABLE payments ADD COLUMN period_start timestamptz;
-- `renewal:<subscription>:<period end>` or `retry:<subscription>:<period end>:<attempt>`: at most one charge each.
ALTER TABLE payments ADD COLUMN charge_key text;
CREATE UNIQUE INDEX payments_charge_key_idx ON payments (charge_key) WHERE charge_key IS NOT NULL;
-- The customer's address at checkout: a charge without the customer present tells PayTR the address that stored the card.
ALTER TABLE payments ADD COLUMN user_ip text;
-- A declined charge the provider marks final (PayTR try_again false): no more retries.
ALTER TABLE payments ADD COLUMN try_again boolean;

-- Dunning state of the unpaid period (null / 0 outside dunning), and the period whose renewal charge was made.
ALTER TABLE subscriptions ADD COLUMN dunning_attempts integer NOT NULL DEFAULT 0 CHECK (dunning_attempts >= 0);
ALTER TABLE subscriptions ADD COLUMN next_retry_at timestamptz;
ALTER TABLE subscriptions ADD COLUMN last_failure_reason text;
ALTER TABLE subscriptions ADD COLUMN renewal_charged_for timestamptz;
CREATE INDEX subscriptions_retry_due_idx ON subscriptions (next_retry_at) WHERE next_retry_at IS NOT NULL;

-- Sandbox test clocks: how far a workspace's billing time runs ahead of the real clock (never back).
CREATE TABLE billing_test_clocks (
  workspace_id   uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  offset_seconds bigint NOT NULL DEFAULT 0 CHECK (offset_seconds >= 0),
  updated_at     timestamptz NOT NULL
);
