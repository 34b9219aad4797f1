-- The transactional outbox: every event a change causes, recorded in the transaction of that change.
-- Webhook deliveries (0510) are fanned out from these rows.

CREATE TABLE events (
  id           uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  type         text NOT NULL CHECK (type ~ '^[a-z_]+\.[a-z_]+$'),
  data         jsonb NOT NULL,
  created_at   timestamptz NOT NULL,
  UNIQUE (workspace_id, id)
);

CREATE INDEX events_workspace_created_idx ON events (workspace_id, created_at, id);
CREATE INDEX events_created_idx ON events (created_at);
