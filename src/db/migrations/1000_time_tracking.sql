-- Planning and time tracking (contract 18.1-18.3): the workspace time zone, dates and estimates on issues, worklogs
-- and running timers. Only adds: every existing row keeps working as before (no dates, no estimate, nothing spent).

-- "Today" and every day boundary of the timesheet are in this IANA zone; the service validates the name.
ALTER TABLE workspaces ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC';

ALTER TABLE issues
  ADD COLUMN start_date date,
  ADD COLUMN target_date date,
  ADD COLUMN estimate_minutes integer CHECK (estimate_minutes BETWEEN 0 AND 1000000),
  -- null: the remaining estimate follows the original one (max(0, estimate - spent)); set: the user's own figure
  ADD COLUMN remaining_minutes integer CHECK (remaining_minutes BETWEEN 0 AND 1000000),
  -- the sum of the issue's worklogs, kept in the transaction of every worklog write, so the list and its sorts
  -- never aggregate worklogs
  ADD COLUMN time_spent_minutes integer NOT NULL DEFAULT 0 CHECK (time_spent_minutes >= 0),
  ADD CONSTRAINT issues_dates_order_check CHECK (start_date IS NULL OR target_date IS NULL OR start_date <= target_date);

-- Sorts of the issue list (contract 18.1, section 14 rules), as in 0800: nulls last either way, ties by sequence_id.
CREATE INDEX issues_start_date_sort_idx ON issues (project_id, start_date, sequence_id);
CREATE INDEX issues_target_date_sort_idx ON issues (project_id, target_date, sequence_id);
CREATE INDEX issues_estimate_sort_idx ON issues (project_id, estimate_minutes, sequence_id);

-- History gains the planning kinds (from/to as stored, null included).
ALTER TABLE issue_history DROP CONSTRAINT issue_history_kind_check;
ALTER TABLE issue_history ADD CONSTRAINT issue_history_kind_check
  CHECK (kind IN ('created', 'state', 'priority', 'comment', 'project_policy', 'dates', 'estimate'));

CREATE TABLE worklogs (
  id               uuid PRIMARY KEY,
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  issue_id         uuid NOT NULL,
  -- the issue's project (issues never change project), so that a timesheet by project is a scan of worklogs alone
  project_id       uuid NOT NULL,
  -- removing a member keeps their worklogs (membership is another table; the user stays)
  user_id          uuid NOT NULL REFERENCES users (id),
  started_at       timestamptz NOT NULL,
  duration_minutes integer NOT NULL CHECK (duration_minutes BETWEEN 1 AND 1440),
  note             text NOT NULL DEFAULT '' CHECK (char_length(note) <= 2000),
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  CONSTRAINT worklogs_workspace_id_id_key UNIQUE (workspace_id, id),
  CONSTRAINT worklogs_issue_fkey FOREIGN KEY (workspace_id, issue_id) REFERENCES issues (workspace_id, id) ON DELETE CASCADE
);
-- the timesheet: one range scan over the UTC bounds of the local days; the included columns make it index-only
CREATE INDEX worklogs_timesheet_idx ON worklogs (workspace_id, started_at) INCLUDE (user_id, project_id, issue_id, duration_minutes);
-- an issue's worklogs, newest first (also serves the cascade from issues)
CREATE INDEX worklogs_issue_idx ON worklogs (workspace_id, issue_id, started_at DESC);

-- At most one running timer per member of a workspace.
CREATE TABLE timers (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  issue_id     uuid NOT NULL,
  started_at   timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, user_id),
  CONSTRAINT timers_issue_fkey FOREIGN KEY (workspace_id, issue_id) REFERENCES issues (workspace_id, id) ON DELETE CASCADE
);
