-- Search's type-ahead (contract 23.1: the last word matches as a prefix) without gathering a prefix's words from the
-- index: every word beginning with it, each with all its matches, made a prefix the dearest part of a search with a
-- million issues (tens of milliseconds for a common one, every time). Only adds: a table, a trigger, a function body
-- that adds one step, and the table's backfill, so that the issues of an existing database complete at once.

-- Here are the words of the workspace's issue names and
-- descriptions (folded: no accents, lower case), each once, in byte order: the prefix is completed to them first (at
-- most 64, shortest first), and the query searches those words and the prefix as a word of its own. Comments and
-- values are not gathered (a comment's write stays one row): a word found only there is found when typed whole. Only
-- added to, like `search_words`: a word no issue holds any longer finds nothing, which is harmless.
CREATE TABLE search_terms (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  word         text COLLATE "C" NOT NULL,
  PRIMARY KEY (workspace_id, word)
);

CREATE OR REPLACE FUNCTION issues_search_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH a AS MATERIALIZED (
    SELECT n.id, n.workspace_id, n.project_id, n.created_at, n.name, n.description, w.search_language AS language,
           search_fold(n.name) AS folded
    FROM added n JOIN workspaces w ON w.id = n.workspace_id),
  words AS (
    INSERT INTO search_words (workspace_id, word)
    SELECT DISTINCT a.workspace_id, w FROM a, search_name_words(a.folded) w
    ON CONFLICT DO NOTHING),
  terms AS (
    INSERT INTO search_terms (workspace_id, word)
    SELECT DISTINCT a.workspace_id, w FROM a, search_name_words(a.folded || ' ' || search_fold(a.description)) w
    ON CONFLICT DO NOTHING)
  INSERT INTO issue_search (issue_id, workspace_id, project_id, language, created_at, name_folded, document)
  SELECT a.id, a.workspace_id, a.project_id, a.language, a.created_at, a.folded, search_issue_doc(a.language, a.name, a.description)
  FROM a;
  RETURN NULL;
END $$;

CREATE FUNCTION issues_search_terms_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_terms (workspace_id, word)
  SELECT DISTINCT NEW.workspace_id, w FROM search_name_words(search_fold(NEW.name || ' ' || NEW.description)) w
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER issues_search_terms_changed AFTER UPDATE OF name, description ON issues
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description)
  EXECUTE FUNCTION issues_search_terms_changed();

INSERT INTO search_terms (workspace_id, word)
SELECT DISTINCT i.workspace_id, w FROM issues i, search_name_words(search_fold(i.name || ' ' || i.description)) w
ON CONFLICT DO NOTHING;

ANALYZE search_terms;
