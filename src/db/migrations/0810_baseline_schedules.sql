-- Scheduled baselines: a project's snapshot taken every day or week at a local time, keeping the last N.

CREATE TABLE baseline_schedules (
  id           uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  project_id   uuid NOT NULL,
  name_prefix  text NOT NULL CHECK (char_length(name_prefix) BETWEEN 1 AND 200),
  every        text NOT NULL CHECK (every IN ('day', 'week')),
  weekday      text CHECK (weekday IN ('mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun')),
  at           text NOT NULL CHECK (at ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  time_zone    text NOT NULL,
  keep_last    integer NOT NULL CHECK (keep_last BETWEEN 1 AND 365),
  next_run_at  timestamptz NOT NULL,
  -- the author of the baselines it takes
  created_by   uuid NOT NULL REFERENCES users (id),
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id) ON DELETE CASCADE,
  UNIQUE (workspace_id, id),
  CHECK ((every = 'week') = (weekday IS NOT NULL))
);
CREATE INDEX baseline_schedules_project_idx ON baseline_schedules (workspace_id, project_id, created_at, id);
-- the job's claim: schedules due, soonest first
CREATE INDEX baseline_schedules_due_idx ON baseline_schedules (next_run_at);

ALTER TABLE baselines ADD COLUMN schedule_id uuid;
ALTER TABLE baselines ADD CONSTRAINT baselines_schedule_fk
  FOREIGN KEY (workspace_id, schedule_id) REFERENCES baseline_schedules (workspace_id, id) ON DELETE SET NULL (schedule_id);
CREATE INDEX baselines_schedule_idx ON baselines (schedule_id, created_at) WHERE schedule_id IS NOT NULL;
