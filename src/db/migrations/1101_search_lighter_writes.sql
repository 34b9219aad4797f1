-- Search's triggers made cheaper for each write (issue 37: create issue and create comment against the commit before
-- search, target 0.9). Only function bodies change and two functions are added; nothing stored is rewritten, and the
-- documents and words written before read back the same.
--
-- 1. A new issue's words for the type-ahead (`search_terms`, migration 1099) are the lexemes of its text as written
--    (the `wis_simple` vectors), which its document holds anyway: each text is parsed once for both, where the words
--    were a second pass of folding and splitting the whole description. They are also exactly the words a document
--    can match: a host or an address ("pay.example.com") is one lexeme, so its parts ("example") were completions
--    that found nothing in it. Kept: words of 3 to 40 characters, without ASCII punctuation (as before).
-- 2. A new comment's row is a plain insert (an edit alone can meet its own row): `ON CONFLICT` made each new comment
--    a speculative insert.

-- A text's lexemes with a weight, as `search_vector` makes them, from the text's `wis_simple` vector made already.
CREATE FUNCTION search_vector_of(language text, body text, written tsvector, weight "char") RETURNS tsvector
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN body IS NULL OR body = '' THEN ''::tsvector
         WHEN language = 'simple' THEN setweight(written, weight)
         ELSE setweight(to_tsvector(('wis_' || language)::regconfig, body) || written, weight)
         END
$$;

-- The type-ahead's words of a text's `wis_simple` vector.
CREATE FUNCTION search_term_words(written tsvector) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT w FROM unnest(tsvector_to_array(written)) w
  WHERE char_length(w) BETWEEN 3 AND 40 AND w !~ '[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]'
$$;

CREATE OR REPLACE FUNCTION issues_search_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH a AS MATERIALIZED (
    SELECT n.id, n.workspace_id, n.project_id, n.created_at, n.name, n.description, w.search_language AS language,
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
  INSERT INTO issue_search (issue_id, workspace_id, project_id, language, created_at, name_folded, document)
  SELECT a.id, a.workspace_id, a.project_id, a.language, a.created_at, a.folded,
         search_vector_of(a.language, a.name, a.name_written, 'A') || search_vector_of(a.language, a.description, a.description_written, 'B')
  FROM a;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION issues_search_terms_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_terms (workspace_id, word)
  SELECT DISTINCT NEW.workspace_id, w FROM search_term_words(to_tsvector('wis_simple', coalesce(NEW.name, '') || ' ' || coalesce(NEW.description, ''))) w
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION comments_search_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM issue_search_parts WHERE issue_id = OLD.issue_id AND part_id = OLD.id;
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO issue_search_parts (workspace_id, issue_id, part_id, kind, language, created_at, document)
    SELECT NEW.workspace_id, NEW.issue_id, NEW.id, 'comment', w.search_language, i.created_at, search_vector(w.search_language, NEW.body, 'C')
    FROM issues i JOIN workspaces w ON w.id = i.workspace_id
    WHERE i.id = NEW.issue_id;
    RETURN NULL;
  END IF;
  INSERT INTO issue_search_parts (workspace_id, issue_id, part_id, kind, language, created_at, document)
  SELECT NEW.workspace_id, NEW.issue_id, NEW.id, 'comment', w.search_language, i.created_at, search_vector(w.search_language, NEW.body, 'C')
  FROM issues i JOIN workspaces w ON w.id = i.workspace_id
  WHERE i.id = NEW.issue_id
  ON CONFLICT (issue_id, part_id) DO UPDATE SET document = excluded.document, language = excluded.language;
  RETURN NULL;
END $$;
