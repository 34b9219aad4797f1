-- Plan changes: an upgrade's proration credit on the payment and the invoice; a downgrade scheduled at period end.
ALTER TABLE payments ADD COLUMN proration_credit integer NOT NULL DEFAULT 0 CHECK (proration_credit >= 0);
ALTER TABLE payments DROP CONSTRAINT payments_check;
ALTER TABLE payments ADD CONSTRAINT payments_charge_check CHECK (amount = list_amount - discount_amount - proration_credit);

ALTER TABLE invoices ADD COLUMN proration_credit integer NOT NULL DEFAULT 0 CHECK (proration_credit >= 0);
ALTER TABLE invoices DROP CONSTRAINT invoices_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_total_check CHECK (total_amount = subtotal_amount - discount_amount - proration_credit);

-- A downgrade paid while a period runs: the plan, interval and price that take over at current_period_end.
ALTER TABLE subscriptions ADD COLUMN scheduled_plan_slug text REFERENCES plans (slug);
ALTER TABLE subscriptions ADD COLUMN scheduled_billing_interval text CHECK (scheduled_billing_interval IN ('month', 'year'));
ALTER TABLE subscriptions ADD COLUMN scheduled_amount_per_period integer CHECK (scheduled_amount_per_period >= 0);
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_scheduled_check
  CHECK ((scheduled_plan_slug IS NULL) = (scheduled_billing_interval IS NULL) AND (scheduled_plan_slug IS NULL) = (scheduled_amount_per_period IS NULL));
