-- Flat list totals (issue 27): the exact `total` of a project's issue list and of a workspace's sla-breached and
-- sla-at-risk lists costs the same at a million rows as at ten thousand. The database keeps the counts, in the
-- transaction of every change (triggers, so every writer keeps them: the service, a cascade, an older instance during
-- an upgrade, a script).

-- ---- the issues of a project ----------------------------------------------------------------------------------------

ALTER TABLE projects ADD COLUMN issue_count integer NOT NULL DEFAULT 0;

CREATE FUNCTION projects_count_issues() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE projects p SET issue_count = p.issue_count + n.n
    FROM (SELECT project_id, count(*) AS n FROM added GROUP BY project_id) n WHERE p.id = n.project_id;
  ELSE
    UPDATE projects p SET issue_count = p.issue_count - n.n
    FROM (SELECT project_id, count(*) AS n FROM removed GROUP BY project_id) n WHERE p.id = n.project_id;
  END IF;
  RETURN NULL;
END $$;

-- An issue never moves to another project (no route changes project_id), so inserts and deletes are all there is.
-- The triggers come before the backfill: they lock out writers until this transaction commits, so none is missed.
CREATE TRIGGER issues_count_added AFTER INSERT ON issues REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION projects_count_issues();
CREATE TRIGGER issues_count_removed AFTER DELETE ON issues REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION projects_count_issues();

UPDATE projects p SET issue_count = n.n
FROM (SELECT project_id, count(*) AS n FROM issues GROUP BY project_id) n WHERE p.id = n.project_id;

-- A project belongs to one workspace, so a filter on both is no narrower than the project's. Without that fact the
-- planner multiplied the two selectivities (10,000 issues of a project among 1,000,000 estimated as 72) and chose a
-- bitmap AND plus a sort over the whole project for the list's first page: 27.6 ms, against 1.0 ms by the
-- sequence index with the estimate right (measured on the bench's data).
CREATE STATISTICS issues_workspace_project_stats (dependencies) ON workspace_id, project_id FROM issues;
ANALYZE issues;

-- ---- breached and at risk in a workspace ----------------------------------------------------------------------------
--
-- Both depend on the time: a tracker is breached once `breach_at < now`, at risk while its at-risk instant has passed
-- and its breach instant has not. So the counts are kept for an instant, `as_of`, and a reader adds what changed
-- between `as_of` and its own `now`: the trackers with an instant in between (an index range, a few seconds of
-- crossings, because the `sla.totals` job moves `as_of` up to now every few seconds).
--
--   total(now) = counts.n(as_of) + sum(changes since the job folded them) + window(as_of, now)
--
-- Every write to sla_trackers adds to sla_count_changes the change it made to the counts at `as_of`, reading `as_of`
-- under a share lock of the counts row; the job takes that row FOR UPDATE (so no writer is between its read of `as_of`
-- and its commit), folds the changes and the window into the row and moves `as_of`. The invariant
-- `n = count at as_of, given the folded changes` holds in every committed state, so a reader's one snapshot is exact.
-- A row at '-infinity' with zero counts is right for any workspace (nothing is breached or at risk before time began).

CREATE TABLE sla_counts (
  workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  as_of        timestamptz NOT NULL DEFAULT '-infinity',
  breached     bigint NOT NULL DEFAULT 0,
  at_risk      bigint NOT NULL DEFAULT 0
);
CREATE INDEX sla_counts_as_of_idx ON sla_counts (as_of);

-- No foreign key: a cascade from a deleted workspace writes here after its workspace row is gone; the job removes
-- the changes of a workspace that has no counts row.
CREATE TABLE sla_count_changes (
  workspace_id uuid NOT NULL,
  breached     integer NOT NULL,
  at_risk      integer NOT NULL
);
CREATE INDEX sla_count_changes_workspace_idx ON sla_count_changes (workspace_id);

-- At risk at `at` (1) or not (0), exactly as the sla-at-risk list selects: a running tracker whose unmet target has
-- reached its at-risk instant and not its breach instant, on either target.
CREATE FUNCTION sla_at_risk(response_risk_at timestamptz, response_breach_at timestamptz, responded_at timestamptz,
                            resolution_risk_at timestamptz, resolution_breach_at timestamptz, resolved_at timestamptz,
                            paused boolean, at timestamptz)
RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN NOT paused AND (
           (response_risk_at IS NOT NULL AND responded_at IS NULL AND response_risk_at <= at AND response_breach_at > at)
        OR (resolution_risk_at IS NOT NULL AND resolved_at IS NULL AND resolution_risk_at <= at AND resolution_breach_at > at))
    THEN 1 ELSE 0 END
$$;

-- A statement whose rows hold no instant, or change none of the columns that count, changes no count at any instant:
-- it returns before the lock (a new tracker is inserted empty and given its instants by an update).
CREATE FUNCTION sla_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT EXISTS (SELECT 1 FROM added WHERE breach_at IS NOT NULL OR response_risk_at IS NOT NULL OR resolution_risk_at IS NOT NULL) THEN
      RETURN NULL;
    END IF;
    INSERT INTO sla_count_changes (workspace_id, breached, at_risk)
    SELECT c.workspace_id, sum(CASE WHEN t.breach_at < c.as_of THEN 1 ELSE 0 END),
           sum(sla_at_risk(t.response_risk_at, t.response_breach_at, t.responded_at, t.resolution_risk_at,
                           t.resolution_breach_at, t.resolved_at, t.paused, c.as_of))
    FROM added t
    JOIN (SELECT workspace_id, as_of FROM sla_counts WHERE workspace_id IN (SELECT workspace_id FROM added) FOR SHARE) c
      ON c.workspace_id = t.workspace_id
    GROUP BY c.workspace_id
    HAVING sum(CASE WHEN t.breach_at < c.as_of THEN 1 ELSE 0 END) <> 0
        OR sum(sla_at_risk(t.response_risk_at, t.response_breach_at, t.responded_at, t.resolution_risk_at,
                           t.resolution_breach_at, t.resolved_at, t.paused, c.as_of)) <> 0;
  ELSIF TG_OP = 'DELETE' THEN
    IF NOT EXISTS (SELECT 1 FROM removed WHERE breach_at IS NOT NULL OR response_risk_at IS NOT NULL OR resolution_risk_at IS NOT NULL) THEN
      RETURN NULL;
    END IF;
    INSERT INTO sla_count_changes (workspace_id, breached, at_risk)
    SELECT c.workspace_id, -sum(CASE WHEN t.breach_at < c.as_of THEN 1 ELSE 0 END),
           -sum(sla_at_risk(t.response_risk_at, t.response_breach_at, t.responded_at, t.resolution_risk_at,
                            t.resolution_breach_at, t.resolved_at, t.paused, c.as_of))
    FROM removed t
    JOIN (SELECT workspace_id, as_of FROM sla_counts WHERE workspace_id IN (SELECT workspace_id FROM removed) FOR SHARE) c
      ON c.workspace_id = t.workspace_id
    GROUP BY c.workspace_id
    HAVING sum(CASE WHEN t.breach_at < c.as_of THEN 1 ELSE 0 END) <> 0
        OR sum(sla_at_risk(t.response_risk_at, t.response_breach_at, t.responded_at, t.resolution_risk_at,
                           t.resolution_breach_at, t.resolved_at, t.paused, c.as_of)) <> 0;
  ELSE
    IF NOT EXISTS (
      SELECT 1 FROM added t JOIN removed o ON o.id = t.id
      WHERE (t.breach_at, t.response_risk_at, t.response_breach_at, t.responded_at,
             t.resolution_risk_at, t.resolution_breach_at, t.resolved_at, t.paused)
            IS DISTINCT FROM (o.breach_at, o.response_risk_at, o.response_breach_at, o.responded_at,
                              o.resolution_risk_at, o.resolution_breach_at, o.resolved_at, o.paused)) THEN
      RETURN NULL;
    END IF;
    INSERT INTO sla_count_changes (workspace_id, breached, at_risk)
    SELECT workspace_id, sum(breached), sum(at_risk)
    FROM (
      SELECT c.workspace_id,
             CASE WHEN t.breach_at < c.as_of THEN 1 ELSE 0 END - CASE WHEN o.breach_at < c.as_of THEN 1 ELSE 0 END AS breached,
             sla_at_risk(t.response_risk_at, t.response_breach_at, t.responded_at, t.resolution_risk_at,
                         t.resolution_breach_at, t.resolved_at, t.paused, c.as_of)
             - sla_at_risk(o.response_risk_at, o.response_breach_at, o.responded_at, o.resolution_risk_at,
                           o.resolution_breach_at, o.resolved_at, o.paused, c.as_of) AS at_risk
      FROM added t
      JOIN removed o ON o.id = t.id
      JOIN (SELECT workspace_id, as_of FROM sla_counts WHERE workspace_id IN (SELECT workspace_id FROM added) FOR SHARE) c
        ON c.workspace_id = t.workspace_id
    ) d
    GROUP BY workspace_id
    HAVING sum(breached) <> 0 OR sum(at_risk) <> 0;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER sla_trackers_count_added AFTER INSERT ON sla_trackers REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION sla_counts_track();
CREATE TRIGGER sla_trackers_count_removed AFTER DELETE ON sla_trackers REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION sla_counts_track();
CREATE TRIGGER sla_trackers_count_changed AFTER UPDATE ON sla_trackers REFERENCING OLD TABLE AS removed NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION sla_counts_track();

-- A new workspace starts with its row (nothing is breached in it yet at any instant).
CREATE FUNCTION sla_counts_open() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sla_counts (workspace_id) SELECT id FROM opened;
  RETURN NULL;
END $$;
CREATE TRIGGER workspaces_sla_counts AFTER INSERT ON workspaces REFERENCING NEW TABLE AS opened
  FOR EACH STATEMENT EXECUTE FUNCTION sla_counts_open();

-- Every existing workspace at '-infinity': exact at once, and the job catches each up on its first run.
INSERT INTO sla_counts (workspace_id) SELECT id FROM workspaces;

-- The window's other two instants: where an at-risk instant lies (the breach instants have their indexes, 0602).
CREATE INDEX sla_trackers_response_risk_at_idx ON sla_trackers (workspace_id, response_risk_at)
  WHERE response_risk_at IS NOT NULL AND responded_at IS NULL AND NOT paused;
CREATE INDEX sla_trackers_resolution_risk_at_idx ON sla_trackers (workspace_id, resolution_risk_at)
  WHERE resolution_risk_at IS NOT NULL AND resolved_at IS NULL AND NOT paused;
