-- The work-item core completed (contract 24): labels, sub-issues, relations. Only adds: every issue stored before
-- reads `label_ids: []`, `parent_id: null`, `blocked: false` and `sub_issues: {total: 0, completed: 0}`.

-- ---- labels ---------------------------------------------------------------------------------------------------------

CREATE TABLE labels (
  id           uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  project_id   uuid NOT NULL,
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
  -- the name folded for "unique ignoring case" by the service (Unicode-aware: PGlite's lower() is the C locale's)
  name_key     text NOT NULL,
  color        text NOT NULL CHECK (color ~ '^#[0-9a-f]{6}$'),
  description  text NOT NULL DEFAULT '' CHECK (char_length(description) <= 500),
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  UNIQUE (workspace_id, id),
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX labels_project_name_key ON labels (project_id, name_key);

-- An issue's labels, stored sorted, as the API shows them. The GIN index answers the list's `label_id` filter.
ALTER TABLE issues ADD COLUMN label_ids uuid[] NOT NULL DEFAULT '{}';
CREATE INDEX issues_label_ids_idx ON issues USING gin (label_ids);

-- How many issues carry each label, kept by the database in the transaction of every change (so the `label_id`
-- list's exact total costs the same at a million issues as at ten): every write appends its +1/-1 here, which takes
-- no lock a concurrent writer waits for (a counter row per label would make two writers adding the same two labels
-- in opposite orders deadlock); a reader sums a label's rows, and the `labels.counts` job folds them into one.
-- No foreign key: a cascade may write here after the label is gone; the job drops the rows of labels that are gone.
CREATE TABLE label_issue_counts (
  label_id uuid NOT NULL,
  n        bigint NOT NULL
);
CREATE INDEX label_issue_counts_label_idx ON label_issue_counts (label_id) INCLUDE (n);

-- The issue-count trigger of 1070 gains the labels of the inserted or deleted issues (one trigger call, as before).
CREATE OR REPLACE FUNCTION projects_count_issues() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE projects p SET issue_count = p.issue_count + n.n
    FROM (SELECT project_id, count(*) AS n FROM added GROUP BY project_id) n WHERE p.id = n.project_id;
    INSERT INTO label_issue_counts (label_id, n) SELECT l, count(*) FROM added, unnest(added.label_ids) AS l GROUP BY l;
  ELSE
    UPDATE projects p SET issue_count = p.issue_count - n.n
    FROM (SELECT project_id, count(*) AS n FROM removed GROUP BY project_id) n WHERE p.id = n.project_id;
    INSERT INTO label_issue_counts (label_id, n) SELECT l, -count(*) FROM removed, unnest(removed.label_ids) AS l GROUP BY l;
  END IF;
  RETURN NULL;
END $$;

-- A change of an issue's labels: a row trigger that fires only when they changed (transition tables cannot be
-- limited to a column, and a statement trigger on every issue update would cost every PATCH).
CREATE FUNCTION issues_count_label_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO label_issue_counts (label_id, n)
  SELECT l, 1 FROM unnest(NEW.label_ids) AS l WHERE l <> ALL (OLD.label_ids)
  UNION ALL
  SELECT l, -1 FROM unnest(OLD.label_ids) AS l WHERE l <> ALL (NEW.label_ids);
  RETURN NULL;
END $$;
CREATE TRIGGER issues_count_label_changes AFTER UPDATE OF label_ids ON issues
  FOR EACH ROW WHEN (OLD.label_ids IS DISTINCT FROM NEW.label_ids) EXECUTE FUNCTION issues_count_label_changes();

-- ---- sub-issues -----------------------------------------------------------------------------------------------------

-- A parent of the same workspace (the service keeps it in the same project and refuses cycles); deleting the parent
-- keeps its children with parent_id null (the service does it first, with history and events; this is the net).
ALTER TABLE issues ADD COLUMN parent_id uuid;
ALTER TABLE issues ADD CONSTRAINT issues_parent_fkey FOREIGN KEY (workspace_id, parent_id)
  REFERENCES issues (workspace_id, id) ON DELETE SET NULL (parent_id);
ALTER TABLE issues ADD CONSTRAINT issues_parent_not_self_check CHECK (parent_id <> id);
-- `sub_issues {total, completed}` is counted at read from this index (index-only): exact in every snapshot.
CREATE INDEX issues_parent_idx ON issues (parent_id, workspace_id, state_group) WHERE parent_id IS NOT NULL;

-- ---- relations ------------------------------------------------------------------------------------------------------

-- Stored once, as `issue_id <type> related_issue_id` with the type of the pair's canonical side; the other side
-- reads the inverse (blocks/blocked_by, duplicate_of/duplicates, relates_to both ways).
CREATE TABLE issue_relations (
  id               uuid PRIMARY KEY,
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  issue_id         uuid NOT NULL,
  related_issue_id uuid NOT NULL,
  type             text NOT NULL CHECK (type IN ('blocks', 'duplicate_of', 'relates_to')),
  created_by       uuid,
  created_at       timestamptz NOT NULL,
  CHECK (issue_id <> related_issue_id),
  FOREIGN KEY (workspace_id, issue_id) REFERENCES issues (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, related_issue_id) REFERENCES issues (workspace_id, id) ON DELETE CASCADE
);
-- One relation per pair, whichever way round.
CREATE UNIQUE INDEX issue_relations_pair_key ON issue_relations (LEAST(issue_id, related_issue_id), GREATEST(issue_id, related_issue_id));
CREATE INDEX issue_relations_issue_idx ON issue_relations (issue_id);
CREATE INDEX issue_relations_related_idx ON issue_relations (related_issue_id, type);

-- ---- history --------------------------------------------------------------------------------------------------------

ALTER TABLE issue_history DROP CONSTRAINT issue_history_kind_check;
ALTER TABLE issue_history ADD CONSTRAINT issue_history_kind_check
  CHECK (kind IN ('created', 'state', 'priority', 'comment', 'project_policy', 'dates', 'estimate', 'labels', 'parent'));
