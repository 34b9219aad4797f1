-- Issue filters, the workspace-wide issue list and "my issues" (contract 23.2). Only adds: indexes for the first pages,
-- and counts the database keeps so that the exact `total` of the common filters costs the same at a million issues as
-- at a thousand (the way of 1070 and 1080).

-- ---- first pages ----------------------------------------------------------------------------------------------------

-- `assignee_id=<user>`: an issue's assignees are an array column (0001), so the issues of a member are found through
-- GIN, as labels are (1080). A member with few issues: a bitmap of them and a sort; one with many: the list walks its
-- order's index and checks each row (the list plans that statement with its values: CUSTOM_PLAN).
CREATE INDEX issues_assignee_ids_idx ON issues USING gin (assignee_ids);
-- `assignee_id=none` within a project, in the list's order (only the unassigned issues are in it). The predicate is
-- written as the repository writes the condition (a partial index serves only queries that imply it).
CREATE INDEX issues_unassigned_idx ON issues (project_id, sequence_id) WHERE assignee_ids = '{}';
-- `state_id` and `created_by` within a project, in the list's order, whatever the value's share: a state or creator
-- whose issues are all old would otherwise be found only after walking past every newer issue. A state belongs to one
-- project, so the state leads; the creator leads too, so that `created_by=me` across a workspace finds that
-- creator's issues before it sorts them.
CREATE INDEX issues_state_id_sort_idx ON issues (state_id, sequence_id);
CREATE INDEX issues_created_by_idx ON issues (created_by, project_id, sequence_id);
-- The workspace-wide list, newest first (`created_at` descending, then `id`).
CREATE INDEX issues_workspace_created_idx ON issues (workspace_id, created_at, id);
-- `parent_id=none` alone: its total is the project's kept count less its sub-issues, counted index-only from this
-- index (only the sub-issues are in it; most issues of a project are top-level).
CREATE INDEX issues_children_idx ON issues (project_id, workspace_id) WHERE parent_id IS NOT NULL;

-- ---- kept counts ----------------------------------------------------------------------------------------------------
--
-- Counted at read, the total of `assignee_id=me` across a workspace of 1,100,000 issues (73,391 of them the member's)
-- took 110-150 ms (a bitmap heap scan of 32,068 pages) and `state_group=completed` in a project of 1,000,000 (600,096
-- issues) 65-170 ms (an index-only scan at best). So the database keeps, for each combination of project, state,
-- priority and creator, how many issues there are, and how many of them each member is assigned to:
--
--   by_assignee = false, assignee_id = nil:  one row per issue (counts issues whatever their assignees)
--   by_assignee = true,  assignee_id = user: one row per assignee of an issue
--   by_assignee = true,  assignee_id = nil:  one row per issue without assignees (`assignee_id=none`)
--
-- A total is then a sum over a few hundred rows: no filter on assignees sums the first kind; one member (or one member
-- and `none`, disjoint sets) the second kind. Several members are not summed (an issue of two would count twice): the
-- list counts those.
--
-- Every change appends its +1/-1 rows to `issue_count_changes` (statement triggers with transition tables on insert
-- and delete, a row trigger on an update that changed a counted column): appending takes no lock anyone waits for,
-- as with the label counts (1080). The `issues.counts` job moves the changes into `issue_counts`, one row per
-- combination (it is the only writer there, so no two writers meet on a counter row), and drops combinations that
-- reached zero. A reader sums both tables in one snapshot: exact whatever the job's lag.
--
-- No foreign keys: a cascade (a deleted workspace or project) appends its -1 rows after the rows it deletes are gone,
-- and they net the counts to zero, which the job then drops.

CREATE TABLE issue_counts (
  workspace_id uuid NOT NULL,
  by_assignee  boolean NOT NULL,
  assignee_id  uuid NOT NULL,
  project_id   uuid NOT NULL,
  state_id     uuid NOT NULL,
  state_group  text NOT NULL,
  priority     text NOT NULL,
  created_by   uuid NOT NULL,
  n            bigint NOT NULL,
  -- The reads: a workspace's (or a project's) rows of one kind and assignee; the rest is filtered on the few left.
  PRIMARY KEY (workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by)
);

CREATE TABLE issue_count_changes (
  workspace_id uuid NOT NULL,
  by_assignee  boolean NOT NULL,
  assignee_id  uuid NOT NULL,
  project_id   uuid NOT NULL,
  state_id     uuid NOT NULL,
  state_group  text NOT NULL,
  priority     text NOT NULL,
  created_by   uuid NOT NULL,
  n            integer NOT NULL
);
CREATE INDEX issue_count_changes_key_idx ON issue_count_changes (workspace_id, by_assignee, assignee_id, project_id);
-- Its rows live seconds (the job deletes what it moves), and a reader's bitmap scan revisits dead ones until a vacuum:
-- vacuumed after a fixed number of dead rows rather than a share of a table that is mostly empty.
ALTER TABLE issue_count_changes SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);

-- The assignee part of the rows an issue counts in (see above); the nil UUID stands for "not by assignee" and "no
-- assignee". The other columns are the issue's own.
CREATE FUNCTION issue_count_assignees(assignee_ids uuid[])
RETURNS TABLE (by_assignee boolean, assignee_id uuid)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT false, '00000000-0000-0000-0000-000000000000'::uuid
  UNION ALL
  SELECT DISTINCT true, a
  FROM unnest(CASE WHEN cardinality(assignee_ids) > 0 THEN assignee_ids
                   ELSE ARRAY['00000000-0000-0000-0000-000000000000'::uuid] END) AS a
$$;

CREATE FUNCTION issues_count_filters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO issue_count_changes (workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by, n)
    SELECT i.workspace_id, k.by_assignee, k.assignee_id, i.project_id, i.state_id, i.state_group, i.priority, i.created_by, count(*)
    FROM added i, issue_count_assignees(i.assignee_ids) k
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
  ELSE
    INSERT INTO issue_count_changes (workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by, n)
    SELECT i.workspace_id, k.by_assignee, k.assignee_id, i.project_id, i.state_id, i.state_group, i.priority, i.created_by, -count(*)
    FROM removed i, issue_count_assignees(i.assignee_ids) k
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
  END IF;
  RETURN NULL;
END $$;

-- An update moves an issue between combinations only when a counted column changed: a row trigger that fires only
-- then (a statement trigger would cost every PATCH of a name), appending the rows it left (-1) and entered (+1).
CREATE FUNCTION issues_count_filter_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO issue_count_changes (workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by, n)
  SELECT *, -1 FROM (
    SELECT OLD.workspace_id, k.by_assignee, k.assignee_id, OLD.project_id, OLD.state_id, OLD.state_group, OLD.priority, OLD.created_by
    FROM issue_count_assignees(OLD.assignee_ids) k
    EXCEPT
    SELECT NEW.workspace_id, k.by_assignee, k.assignee_id, NEW.project_id, NEW.state_id, NEW.state_group, NEW.priority, NEW.created_by
    FROM issue_count_assignees(NEW.assignee_ids) k) AS left_rows
  UNION ALL
  SELECT *, 1 FROM (
    SELECT NEW.workspace_id, k.by_assignee, k.assignee_id, NEW.project_id, NEW.state_id, NEW.state_group, NEW.priority, NEW.created_by
    FROM issue_count_assignees(NEW.assignee_ids) k
    EXCEPT
    SELECT OLD.workspace_id, k.by_assignee, k.assignee_id, OLD.project_id, OLD.state_id, OLD.state_group, OLD.priority, OLD.created_by
    FROM issue_count_assignees(OLD.assignee_ids) k) AS entered_rows;
  RETURN NULL;
END $$;

-- The triggers come before the backfill: creating them locks out writers until this transaction commits, so none is
-- missed and none counted twice.
CREATE TRIGGER issues_count_filters_added AFTER INSERT ON issues REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION issues_count_filters();
CREATE TRIGGER issues_count_filters_removed AFTER DELETE ON issues REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION issues_count_filters();
CREATE TRIGGER issues_count_filter_changes
  AFTER UPDATE OF workspace_id, project_id, state_id, state_group, priority, assignee_ids, created_by ON issues
  FOR EACH ROW WHEN (
    OLD.state_id IS DISTINCT FROM NEW.state_id OR OLD.state_group IS DISTINCT FROM NEW.state_group
    OR OLD.priority IS DISTINCT FROM NEW.priority OR OLD.assignee_ids IS DISTINCT FROM NEW.assignee_ids
    OR OLD.created_by IS DISTINCT FROM NEW.created_by OR OLD.project_id IS DISTINCT FROM NEW.project_id
    OR OLD.workspace_id IS DISTINCT FROM NEW.workspace_id)
  EXECUTE FUNCTION issues_count_filter_changes();

INSERT INTO issue_counts (workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by, n)
SELECT i.workspace_id, k.by_assignee, k.assignee_id, i.project_id, i.state_id, i.state_group, i.priority, i.created_by, count(*)
FROM issues i, issue_count_assignees(i.assignee_ids) k
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;

ANALYZE issues;
ANALYZE issue_counts;
