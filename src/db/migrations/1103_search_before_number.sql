-- A new issue's search work done before its number is taken (issue 37: create issue against the commit before search,
-- target 0.9). Nothing stored is rewritten; a trigger is replaced, one is added and a foreign key's check moves to the
-- commit.
--
-- An issue's number (`sequence_id`, per project 1, 2, ... without gaps) is taken from its project's counter, whose row
-- stays locked until the commit: new issues of one project are written one after another from that update on. The
-- search trigger was a statement trigger after the insert, so its work (the words for the fuzzy fallback and the
-- type-ahead, the document) ran inside that section: about 0.7 ms of each issue's 9 ms there, with the rest of the
-- machine idle.
--
-- Now, in one INSERT:
-- 1. `issues_search_added` (a row trigger before the insert) adds the words and writes the document;
-- 2. `issues_sequence_assigned` (the same, after it: triggers of one kind fire in the order of their names) takes the
--    number when the insert gives none, as the service's inserts now do. An insert that gives one (an instance of the
--    release before, during a rolling upgrade; a script) keeps it, and takes the counter itself as before.
-- The document is written before its issue's row exists, so its foreign key is checked at the commit (deferred): still
-- in the same transaction, and a deletion still cascades at once (referential actions are never deferred).

ALTER TABLE issue_search ALTER CONSTRAINT issue_search_workspace_id_issue_id_fkey DEFERRABLE INITIALLY DEFERRED;

DROP TRIGGER issues_search_added ON issues;

CREATE OR REPLACE FUNCTION issues_search_added() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  language text;
  folded text := search_fold(NEW.name);
  name_written tsvector := to_tsvector('wis_simple', coalesce(NEW.name, ''));
  description_written tsvector := to_tsvector('wis_simple', coalesce(NEW.description, ''));
BEGIN
  SELECT w.search_language INTO language FROM workspaces w WHERE w.id = NEW.workspace_id;
  INSERT INTO search_words (workspace_id, word)
  SELECT DISTINCT NEW.workspace_id, w FROM search_name_words(folded) w
  ON CONFLICT DO NOTHING;
  INSERT INTO search_terms (workspace_id, word)
  SELECT DISTINCT NEW.workspace_id, w FROM search_term_words(name_written || description_written) w
  ON CONFLICT DO NOTHING;
  INSERT INTO issue_search (issue_id, workspace_id, project_id, language, created_at, updated_at, name_folded, document)
  VALUES (NEW.id, NEW.workspace_id, NEW.project_id, language, NEW.created_at, NEW.updated_at, folded,
          search_vector_of(language, NEW.name, name_written, 'A') || search_vector_of(language, NEW.description, description_written, 'B'));
  RETURN NEW;
END $$;

CREATE TRIGGER issues_search_added BEFORE INSERT ON issues
  FOR EACH ROW EXECUTE FUNCTION issues_search_added();

CREATE FUNCTION issues_sequence_assigned() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE projects SET issue_seq = issue_seq + 1
  WHERE workspace_id = NEW.workspace_id AND id = NEW.project_id
  RETURNING issue_seq INTO NEW.sequence_id;
  RETURN NEW;
END $$;

CREATE TRIGGER issues_sequence_assigned BEFORE INSERT ON issues
  FOR EACH ROW WHEN (NEW.sequence_id IS NULL) EXECUTE FUNCTION issues_sequence_assigned();
