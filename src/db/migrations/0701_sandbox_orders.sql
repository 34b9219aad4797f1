-- The built-in sandbox provider's orders, so a restart keeps open payment pages working (and refunds known).
CREATE TABLE sandbox_orders (
  token           text PRIMARY KEY,
  merchant_oid    text NOT NULL,
  state           text NOT NULL CHECK (state IN ('open', 'paid', 'declined')),
  amount          integer NOT NULL CHECK (amount > 0),
  refunded_amount integer NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0 AND refunded_amount <= amount),
  expires_at      timestamptz NOT NULL,
  -- the rest of the order as the token request gave it (email, basket, return URLs, ...)
  details         jsonb NOT NULL
);
CREATE INDEX sandbox_orders_oid_idx ON sandbox_orders (merchant_oid);
-- a merchant_oid is paid at most once
CREATE UNIQUE INDEX sandbox_orders_paid_key ON sandbox_orders (merchant_oid) WHERE state = 'paid';
