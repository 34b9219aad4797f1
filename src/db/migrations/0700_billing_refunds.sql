-- Billing round 2: refunds with credit notes, reconciliation with the provider.

-- refunded_amount: what the provider has confirmed as refunded. refund_reserved_amount: refunds asked of the provider
-- and not yet answered (reserved before the HTTP call, so two concurrent refunds can never exceed the amount).
ALTER TABLE payments ADD COLUMN refunded_amount integer NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0);
ALTER TABLE payments ADD COLUMN refund_reserved_amount integer NOT NULL DEFAULT 0 CHECK (refund_reserved_amount >= 0);
ALTER TABLE payments ADD CONSTRAINT payments_refund_within_amount CHECK (refunded_amount + refund_reserved_amount <= amount);
-- reconciliation: when the periodic job may look at this pending payment again (a lease: claimed by one instance)
ALTER TABLE payments ADD COLUMN reconcile_after timestamptz;
CREATE INDEX payments_pending_idx ON payments (created_at) WHERE status = 'pending';

-- Gapless credit-note numbers per calendar year, like invoice_counters.
CREATE TABLE credit_note_counters (
  year        integer PRIMARY KEY CHECK (year BETWEEN 2000 AND 9999),
  last_number integer NOT NULL CHECK (last_number >= 0)
);

-- One refund of (part of) a payment. `reserved` while the provider is asked; `succeeded` with its credit note once
-- the provider accepted. A refused refund's row is deleted (nothing changes, its Idempotency-Key is free again).
CREATE TABLE refunds (
  id                  uuid PRIMARY KEY,
  payment_id          uuid NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
  workspace_id        uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  amount              integer NOT NULL CHECK (amount > 0),
  currency            text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  reason              text,
  cancel_subscription boolean NOT NULL DEFAULT false,
  status              text NOT NULL CHECK (status IN ('reserved', 'succeeded')),
  credit_note_number  text CHECK (credit_note_number ~ '^CN-[0-9]{4}-[0-9]{6,}$'),
  idempotency_key     text,
  created_by          uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at          timestamptz NOT NULL,
  CHECK ((status = 'succeeded') = (credit_note_number IS NOT NULL))
);
CREATE UNIQUE INDEX refunds_credit_note_key ON refunds (credit_note_number);
CREATE UNIQUE INDEX refunds_idempotency_key ON refunds (idempotency_key);
CREATE INDEX refunds_payment_idx ON refunds (payment_id);
CREATE INDEX refunds_workspace_idx ON refunds (workspace_id, created_at DESC, id DESC) WHERE status = 'succeeded';
