-- SLA policies, their per-priority rules, and one SLA tracker row per issue.

CREATE TABLE sla_policies (
  id           uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  description  text NOT NULL DEFAULT '',
  is_default   boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  UNIQUE (workspace_id, id)
);
-- At most one default policy per workspace.
CREATE UNIQUE INDEX sla_policies_one_default ON sla_policies (workspace_id) WHERE is_default;
CREATE INDEX sla_policies_workspace_idx ON sla_policies (workspace_id, created_at, id);

CREATE TABLE sla_rules (
  workspace_id      uuid NOT NULL,
  policy_id         uuid NOT NULL,
  priority          text NOT NULL CHECK (priority IN ('urgent', 'high', 'medium', 'low')),
  -- the targets as sent (hours, fractions allowed) ...
  response_time_h   double precision NOT NULL CHECK (response_time_h > 0),
  resolution_time_h double precision NOT NULL CHECK (resolution_time_h >= response_time_h),
  -- ... and as whole milliseconds, so due times are exact integer arithmetic in SQL and in code alike
  response_ms       bigint NOT NULL CHECK (response_ms >= 0),
  resolution_ms     bigint NOT NULL CHECK (resolution_ms >= response_ms),
  PRIMARY KEY (policy_id, priority),
  FOREIGN KEY (workspace_id, policy_id) REFERENCES sla_policies (workspace_id, id) ON DELETE CASCADE
);

-- A project's own policy must be a policy of the same workspace. Deferred, so that the SLA module's event handler
-- (which runs after the project row is written, in the same transaction) answers a clean 400 before the check.
ALTER TABLE projects
  ADD CONSTRAINT projects_sla_policy_fkey FOREIGN KEY (workspace_id, sla_policy_id)
  REFERENCES sla_policies (workspace_id, id) ON DELETE SET NULL (sla_policy_id) DEFERRABLE INITIALLY DEFERRED;
CREATE INDEX projects_sla_policy_idx ON projects (sla_policy_id) WHERE sla_policy_id IS NOT NULL;

-- One row per issue. It keeps the issue's SLA facts (responded_at, resolved_at) from the issue's creation on; the
-- tracker the API shows exists when a policy and a rule apply (policy_id is not null), else it is "not applicable".
CREATE TABLE sla_trackers (
  id                uuid PRIMARY KEY,
  workspace_id      uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  issue_id          uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  policy_id         uuid,
  priority          text CHECK (priority IN ('urgent', 'high', 'medium', 'low')),
  response_due_at   timestamptz,
  resolution_due_at timestamptz,
  responded_at      timestamptz,
  resolved_at       timestamptz,
  -- The earliest instant at which a target is or will be breached; null when both targets were met or no rule
  -- applies. "Breached now" is breach_at < now, so the breached list is a range scan of one index.
  breach_at         timestamptz GENERATED ALWAYS AS (
    LEAST(
      CASE WHEN responded_at IS NULL OR responded_at > response_due_at THEN response_due_at END,
      CASE WHEN resolved_at IS NULL OR resolved_at > resolution_due_at THEN resolution_due_at END
    )
  ) STORED,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  UNIQUE (issue_id),
  FOREIGN KEY (workspace_id, policy_id) REFERENCES sla_policies (workspace_id, id),
  CONSTRAINT sla_trackers_applicable CHECK (
    (policy_id IS NULL AND priority IS NULL AND response_due_at IS NULL AND resolution_due_at IS NULL)
    OR (policy_id IS NOT NULL AND priority IS NOT NULL AND response_due_at IS NOT NULL AND resolution_due_at IS NOT NULL)
  )
);
CREATE INDEX sla_trackers_breach_idx ON sla_trackers (workspace_id, breach_at, id) WHERE breach_at IS NOT NULL;
CREATE INDEX sla_trackers_policy_idx ON sla_trackers (policy_id) WHERE policy_id IS NOT NULL;

-- Issues that exist before this migration get their row; no policy exists yet, so none is applicable.
INSERT INTO sla_trackers (id, workspace_id, issue_id, responded_at, resolved_at, created_at, updated_at)
SELECT gen_random_uuid(), i.workspace_id, i.id,
       LEAST(
         CASE WHEN i.state_group IN ('started', 'completed', 'cancelled') THEN i.updated_at END,
         (SELECT min(c.created_at) FROM comments c WHERE c.issue_id = i.id AND c.author_id <> i.created_by)
       ),
       CASE WHEN i.state_group IN ('completed', 'cancelled') THEN coalesce(i.completed_at, i.updated_at) END,
       i.created_at, i.updated_at
FROM issues i;
