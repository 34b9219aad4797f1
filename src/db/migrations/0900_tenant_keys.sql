-- Tenant keys: a child row that points at a tenant row points at it through (workspace_id, id), so the database
-- itself refuses a comment, tracker, custom value, history entry, invoice, redemption, billing event or refund whose
-- parent belongs to another workspace. The single-column foreign keys they replace allowed that.
--
-- Parents get the (workspace_id, id) unique key the composite references need (projects, sla_policies, sla_calendars,
-- baselines, baseline_schedules, webhook_endpoints, events and sla_trackers have one already).

ALTER TABLE issues ADD CONSTRAINT issues_workspace_id_id_key UNIQUE (workspace_id, id);
ALTER TABLE custom_properties ADD CONSTRAINT custom_properties_workspace_id_id_key UNIQUE (workspace_id, id);
ALTER TABLE payments ADD CONSTRAINT payments_workspace_id_id_key UNIQUE (workspace_id, id);

ALTER TABLE comments
  DROP CONSTRAINT comments_issue_id_fkey,
  ADD CONSTRAINT comments_issue_fkey FOREIGN KEY (workspace_id, issue_id)
    REFERENCES issues (workspace_id, id) ON DELETE CASCADE;

ALTER TABLE sla_trackers
  DROP CONSTRAINT sla_trackers_issue_id_fkey,
  ADD CONSTRAINT sla_trackers_issue_fkey FOREIGN KEY (workspace_id, issue_id)
    REFERENCES issues (workspace_id, id) ON DELETE CASCADE;

ALTER TABLE issue_history
  DROP CONSTRAINT issue_history_issue_id_fkey,
  ADD CONSTRAINT issue_history_issue_fkey FOREIGN KEY (workspace_id, issue_id)
    REFERENCES issues (workspace_id, id) ON DELETE CASCADE;

ALTER TABLE custom_values
  DROP CONSTRAINT custom_values_issue_id_fkey,
  DROP CONSTRAINT custom_values_property_id_fkey,
  ADD CONSTRAINT custom_values_issue_fkey FOREIGN KEY (workspace_id, issue_id)
    REFERENCES issues (workspace_id, id) ON DELETE CASCADE,
  ADD CONSTRAINT custom_values_property_fkey FOREIGN KEY (workspace_id, property_id)
    REFERENCES custom_properties (workspace_id, id) ON DELETE CASCADE;

ALTER TABLE invoices
  DROP CONSTRAINT invoices_payment_id_fkey,
  ADD CONSTRAINT invoices_payment_fkey FOREIGN KEY (workspace_id, payment_id)
    REFERENCES payments (workspace_id, id) ON DELETE CASCADE;

ALTER TABLE coupon_redemptions
  DROP CONSTRAINT coupon_redemptions_payment_id_fkey,
  ADD CONSTRAINT coupon_redemptions_payment_fkey FOREIGN KEY (workspace_id, payment_id)
    REFERENCES payments (workspace_id, id) ON DELETE CASCADE;

-- payment_id is optional here: a row without one is not checked (MATCH SIMPLE), as before.
ALTER TABLE billing_events
  DROP CONSTRAINT billing_events_payment_id_fkey,
  ADD CONSTRAINT billing_events_payment_fkey FOREIGN KEY (workspace_id, payment_id)
    REFERENCES payments (workspace_id, id) ON DELETE CASCADE;

ALTER TABLE refunds
  DROP CONSTRAINT refunds_payment_id_fkey,
  ADD CONSTRAINT refunds_payment_fkey FOREIGN KEY (workspace_id, payment_id)
    REFERENCES payments (workspace_id, id) ON DELETE CASCADE;
