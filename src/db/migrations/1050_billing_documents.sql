-- Billing documents (contract 19.4-19.6): the KDV split of every invoice and credit note, the workspace's billing
-- profile, and what each document froze at issue (buyer, seller, lines). Only adds: stored amounts are never rewritten.

-- The buyer's details, one row per workspace (no row: GET answers every field null but country TR).
CREATE TABLE billing_profiles (
  workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  legal_name   text NOT NULL CHECK (length(legal_name) BETWEEN 1 AND 255),
  tax_id       text,
  tax_office   text,
  address_line text,
  city         text,
  postal_code  text,
  country      text NOT NULL DEFAULT 'TR' CHECK (country ~ '^[A-Z]{2}$'),
  email        text,
  updated_at   timestamptz NOT NULL
);

-- Invoices: the tax split over total_amount (gross, tax included), the rate frozen at issue, the parties and lines.
-- Invoices issued before this migration get the default rate (2000 bp, 20 % KDV: the only rate the service ever
-- billed at), no bill_to / seller (nothing was recorded) and no stored lines (derived from their fields on read).
ALTER TABLE invoices ADD COLUMN tax_rate_bp integer CHECK (tax_rate_bp BETWEEN 0 AND 10000);
ALTER TABLE invoices ADD COLUMN net_amount integer CHECK (net_amount >= 0);
ALTER TABLE invoices ADD COLUMN tax_amount integer CHECK (tax_amount >= 0);
ALTER TABLE invoices ADD COLUMN bill_to jsonb CHECK (bill_to IS NULL OR jsonb_typeof(bill_to) = 'object');
ALTER TABLE invoices ADD COLUMN seller jsonb CHECK (seller IS NULL OR jsonb_typeof(seller) = 'object');
ALTER TABLE invoices ADD COLUMN lines jsonb CHECK (lines IS NULL OR jsonb_typeof(lines) = 'array');
-- net = round_half_up(gross * 10000 / (10000 + bp)) = floor((2 * gross * 10000 + d) / (2 * d)), d = 10000 + bp
UPDATE invoices
   SET tax_rate_bp = 2000,
       net_amount  = ((2 * total_amount::bigint * 10000 + 12000) / 24000)::integer,
       tax_amount  = total_amount - ((2 * total_amount::bigint * 10000 + 12000) / 24000)::integer
 WHERE tax_rate_bp IS NULL;
ALTER TABLE invoices ALTER COLUMN tax_rate_bp SET NOT NULL;
ALTER TABLE invoices ALTER COLUMN net_amount SET NOT NULL;
ALTER TABLE invoices ALTER COLUMN tax_amount SET NOT NULL;
ALTER TABLE invoices ADD CONSTRAINT invoices_tax_split_check CHECK (net_amount + tax_amount = total_amount);

-- Credit notes (succeeded refunds): the same split over amount, set when the credit note is issued; a refund still
-- `reserved` has no credit note yet, so none of it.
ALTER TABLE refunds ADD COLUMN tax_rate_bp integer CHECK (tax_rate_bp BETWEEN 0 AND 10000);
ALTER TABLE refunds ADD COLUMN net_amount integer CHECK (net_amount >= 0);
ALTER TABLE refunds ADD COLUMN tax_amount integer CHECK (tax_amount >= 0);
ALTER TABLE refunds ADD COLUMN bill_to jsonb CHECK (bill_to IS NULL OR jsonb_typeof(bill_to) = 'object');
ALTER TABLE refunds ADD COLUMN seller jsonb CHECK (seller IS NULL OR jsonb_typeof(seller) = 'object');
-- when the credit note was issued (the refund row is written before the provider is asked); before 1050: created_at
ALTER TABLE refunds ADD COLUMN issued_at timestamptz;
UPDATE refunds
   SET tax_rate_bp = 2000,
       net_amount  = ((2 * amount::bigint * 10000 + 12000) / 24000)::integer,
       tax_amount  = amount - ((2 * amount::bigint * 10000 + 12000) / 24000)::integer,
       issued_at   = created_at
 WHERE status = 'succeeded' AND tax_rate_bp IS NULL;
ALTER TABLE refunds ADD CONSTRAINT refunds_tax_split_check
  CHECK ((status = 'succeeded') = (tax_rate_bp IS NOT NULL)
         AND (tax_rate_bp IS NULL) = (net_amount IS NULL)
         AND (tax_rate_bp IS NULL) = (tax_amount IS NULL)
         AND (tax_rate_bp IS NULL) = (issued_at IS NULL)
         AND (net_amount IS NULL OR net_amount + tax_amount = amount));
