-- Outgoing webhooks: endpoints of a workspace, and one delivery per (event, endpoint) with its attempt log.

CREATE TABLE webhook_endpoints (
  id                         uuid PRIMARY KEY,
  workspace_id               uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url                        text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
  description                text,
  event_types                text[] NOT NULL CHECK (cardinality(event_types) >= 1),
  -- the signing key ("whsec_" + base64): a key the service must use, so it is stored, never shown again
  secret                     text NOT NULL,
  -- after a rotation the previous key signs too, until it expires
  previous_secret            text,
  previous_secret_expires_at timestamptz,
  is_active                  boolean NOT NULL DEFAULT true,
  disabled_reason            text CHECK (disabled_reason IN ('gone', 'failing')),
  -- deliveries in a row that ended failed; a success resets it
  consecutive_failures       integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  created_at                 timestamptz NOT NULL,
  updated_at                 timestamptz NOT NULL,
  UNIQUE (workspace_id, id)
);

CREATE INDEX webhook_endpoints_workspace_idx ON webhook_endpoints (workspace_id, created_at, id);

CREATE TABLE webhook_deliveries (
  id               uuid PRIMARY KEY,
  workspace_id     uuid NOT NULL,
  webhook_id       uuid NOT NULL,
  event_id         uuid NOT NULL,
  event_type       text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- when the next attempt is due (pending), or the lease of the attempt in flight; null once final
  next_attempt_at  timestamptz,
  last_status_code integer,
  last_error       text,
  attempt_log      jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at       timestamptz NOT NULL,
  succeeded_at     timestamptz,
  FOREIGN KEY (workspace_id, webhook_id) REFERENCES webhook_endpoints (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, event_id) REFERENCES events (workspace_id, id) ON DELETE CASCADE,
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);

-- the worker's claim: due pending deliveries, soonest first
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
-- the delivery log of an endpoint, newest first, optionally by status
CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (workspace_id, webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_status_idx ON webhook_deliveries (workspace_id, webhook_id, status, created_at DESC, id DESC);
-- retention
CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (workspace_id, event_id);
