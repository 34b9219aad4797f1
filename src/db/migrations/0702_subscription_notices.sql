-- Renewal and trial-end notices, recorded once per subscription, kind and period (the period end they were sent for).
CREATE TABLE subscription_notices (
  subscription_id uuid NOT NULL,
  workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('renewal_upcoming', 'trial_will_end')),
  period_end      timestamptz NOT NULL,
  sent_at         timestamptz NOT NULL,
  PRIMARY KEY (subscription_id, kind, period_end)
);
CREATE INDEX subscription_notices_workspace_idx ON subscription_notices (workspace_id);
