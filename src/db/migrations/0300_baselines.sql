-- Project baselines: a point-in-time snapshot of a project's issue counts, and of each issue's state group and
-- priority at that instant, so that a deviation can name the issues added, removed or changed since.

CREATE TABLE baselines (
  id               uuid PRIMARY KEY,
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  project_id       uuid NOT NULL,
  name             text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  total_issues     integer NOT NULL DEFAULT 0 CHECK (total_issues >= 0),
  completed_issues integer NOT NULL DEFAULT 0,
  state_backlog    integer NOT NULL DEFAULT 0 CHECK (state_backlog >= 0),
  state_unstarted  integer NOT NULL DEFAULT 0 CHECK (state_unstarted >= 0),
  state_started    integer NOT NULL DEFAULT 0 CHECK (state_started >= 0),
  state_completed  integer NOT NULL DEFAULT 0 CHECK (state_completed >= 0),
  state_cancelled  integer NOT NULL DEFAULT 0 CHECK (state_cancelled >= 0),
  priority_urgent  integer NOT NULL DEFAULT 0 CHECK (priority_urgent >= 0),
  priority_high    integer NOT NULL DEFAULT 0 CHECK (priority_high >= 0),
  priority_medium  integer NOT NULL DEFAULT 0 CHECK (priority_medium >= 0),
  priority_low     integer NOT NULL DEFAULT 0 CHECK (priority_low >= 0),
  priority_none    integer NOT NULL DEFAULT 0 CHECK (priority_none >= 0),
  snapshot_at      timestamptz NOT NULL,
  created_by       uuid NOT NULL REFERENCES users (id),
  created_at       timestamptz NOT NULL,
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id) ON DELETE CASCADE,
  UNIQUE (workspace_id, id),
  -- each breakdown accounts for every issue, and "completed" is the completed group
  CONSTRAINT baselines_state_sum CHECK (
    state_backlog + state_unstarted + state_started + state_completed + state_cancelled = total_issues),
  CONSTRAINT baselines_priority_sum CHECK (
    priority_urgent + priority_high + priority_medium + priority_low + priority_none = total_issues),
  CONSTRAINT baselines_completed CHECK (completed_issues = state_completed)
);
-- the list: a project's baselines, newest first
CREATE INDEX baselines_project_idx ON baselines (project_id, snapshot_at DESC, id DESC);

-- One row per issue of the project at snapshot time, written by one INSERT ... SELECT. No foreign key to issues:
-- an issue deleted since is exactly what the deviation reports as removed, so the row keeps what describes it.
CREATE TABLE baseline_items (
  workspace_id uuid NOT NULL,
  baseline_id  uuid NOT NULL,
  issue_id     uuid NOT NULL,
  sequence_id  integer NOT NULL,
  name         text NOT NULL,
  state_group  text NOT NULL CHECK (state_group IN ('backlog', 'unstarted', 'started', 'completed', 'cancelled')),
  priority     text NOT NULL CHECK (priority IN ('urgent', 'high', 'medium', 'low', 'none')),
  PRIMARY KEY (baseline_id, issue_id)
);

-- The link from items to their baseline is not a declarative foreign key: that checks and locks the parent once per
-- row, which more than doubled the time of a 100,000-issue snapshot. Instead, items are written only by the
-- snapshot's INSERT ... SELECT, which takes (workspace_id, baseline_id) from the baseline row it joins; they are
-- immutable; and deleting a baseline (directly, or by the cascade from its project or workspace) deletes its items,
-- once per statement.
CREATE FUNCTION baseline_items_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'baseline items are immutable' USING ERRCODE = 'integrity_constraint_violation';
END
$$;
CREATE TRIGGER baseline_items_no_update BEFORE UPDATE ON baseline_items
  FOR EACH STATEMENT EXECUTE FUNCTION baseline_items_immutable();

CREATE FUNCTION baselines_delete_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM baseline_items i USING old_baselines o WHERE i.baseline_id = o.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER baselines_items_cascade AFTER DELETE ON baselines
  REFERENCING OLD TABLE AS old_baselines FOR EACH STATEMENT EXECUTE FUNCTION baselines_delete_items();
