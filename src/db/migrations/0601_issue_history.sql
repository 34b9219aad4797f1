-- Issue history (contract 11.3): an append-only record of what moves an SLA clock, written in the transaction of the
-- change. kind: created | state | priority | comment | project_policy. from/to: see the README.

CREATE TABLE issue_history (
  id           uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  issue_id     uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  -- a counter so that entries of one instant keep the order they were written in
  seq          bigserial NOT NULL,
  at           timestamptz NOT NULL,
  actor_id     uuid,
  kind         text NOT NULL CHECK (kind IN ('created', 'state', 'priority', 'comment', 'project_policy')),
  "from"       jsonb,
  "to"         jsonb
);
CREATE INDEX issue_history_issue_idx ON issue_history (issue_id, at, seq);

-- Existing issues: their creation (state and priority as of this migration: no earlier moves were recorded) ...
INSERT INTO issue_history (id, workspace_id, issue_id, at, actor_id, kind, "from", "to")
SELECT gen_random_uuid(), i.workspace_id, i.id, i.created_at, i.created_by, 'created', NULL,
       jsonb_build_object('state_id', i.state_id, 'group', i.state_group, 'pauses_sla', s.pauses_sla, 'priority', i.priority)
FROM issues i JOIN states s ON s.id = i.state_id
ORDER BY i.created_at, i.id;

-- ... and the comments that count as a response (by a member other than the issue's creator), which are exact.
INSERT INTO issue_history (id, workspace_id, issue_id, at, actor_id, kind, "from", "to")
SELECT gen_random_uuid(), c.workspace_id, c.issue_id, c.created_at, c.author_id, 'comment', NULL,
       jsonb_build_object('comment_id', c.id)
FROM comments c JOIN issues i ON i.id = c.issue_id
WHERE c.author_id <> i.created_by
ORDER BY c.created_at, c.id;
