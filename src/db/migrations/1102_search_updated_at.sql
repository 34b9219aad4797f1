-- The issue's `updated_at` kept beside its search document (issue 37: search's p95 with a million issues). Search
-- ranks the issues of one score by `updated_at`; it read the time from `issues` for every match of the scores a page
-- reaches: up to 1,001 scattered rows of the issues' heap, 10-18 ms of a search's p95, for a word common enough to
-- fill the page with names alone. The search already reads each match's document row, so the time now comes with it.
--
-- The column is added (no default: nothing is rewritten to add it) and filled from the issues. An issue's update
-- that changes its `updated_at` (any PATCH, a bulk edit, a label removed) now also sets the time on its document's
-- row; a change of its name or description rebuilds the document in the same update, as before.

ALTER TABLE issue_search ADD COLUMN updated_at timestamptz;

UPDATE issue_search s SET updated_at = i.updated_at
FROM issues i
WHERE i.id = s.issue_id AND i.workspace_id = s.workspace_id AND s.updated_at IS NULL;

CREATE OR REPLACE FUNCTION issues_search_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH a AS MATERIALIZED (
    SELECT n.id, n.workspace_id, n.project_id, n.created_at, n.updated_at, n.name, n.description, w.search_language AS language,
           search_fold(n.name) AS folded,
           to_tsvector('wis_simple', coalesce(n.name, '')) AS name_written,
           to_tsvector('wis_simple', coalesce(n.description, '')) AS description_written
    FROM added n JOIN workspaces w ON w.id = n.workspace_id),
  words AS (
    INSERT INTO search_words (workspace_id, word)
    SELECT DISTINCT a.workspace_id, w FROM a, search_name_words(a.folded) w
    ON CONFLICT DO NOTHING),
  terms AS (
    INSERT INTO search_terms (workspace_id, word)
    SELECT DISTINCT a.workspace_id, w FROM a, search_term_words(a.name_written || a.description_written) w
    ON CONFLICT DO NOTHING)
  INSERT INTO issue_search (issue_id, workspace_id, project_id, language, created_at, updated_at, name_folded, document)
  SELECT a.id, a.workspace_id, a.project_id, a.language, a.created_at, a.updated_at, a.folded,
         search_vector_of(a.language, a.name, a.name_written, 'A') || search_vector_of(a.language, a.description, a.description_written, 'B')
  FROM a;
  RETURN NULL;
END $$;

-- One update of the document's row per update of the issue: the time alone, or the document too when the name, the
-- description or the project changed.
CREATE OR REPLACE FUNCTION issues_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description OR OLD.project_id IS DISTINCT FROM NEW.project_id THEN
    UPDATE issue_search
    SET project_id = NEW.project_id, name_folded = search_fold(NEW.name), document = search_issue_doc(language, NEW.name, NEW.description),
        updated_at = NEW.updated_at
    WHERE issue_id = NEW.id AND created_at = NEW.created_at;
  ELSE
    UPDATE issue_search SET updated_at = NEW.updated_at WHERE issue_id = NEW.id AND created_at = NEW.created_at;
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER issues_search_changed ON issues;
CREATE TRIGGER issues_search_changed AFTER UPDATE ON issues
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description
                     OR OLD.project_id IS DISTINCT FROM NEW.project_id OR OLD.updated_at IS DISTINCT FROM NEW.updated_at)
  EXECUTE FUNCTION issues_search_changed();
