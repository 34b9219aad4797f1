-- Workspace search (contract 23.1) and similar issues (23.4). Only adds: two extensions both databases ship, a text
-- search configuration per language that folds accents (and Turkish dotted and dotless i) before stemming, a search
-- document per issue kept by triggers in the transaction of every write (no index lag), and its backfill, so that the
-- issues of an existing database are searchable when the migration ends.

CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS unaccent;

-- ---- folding --------------------------------------------------------------------------------------------------------
--
-- `wis_<language>` copies the built-in configuration `<language>` and puts the unaccent dictionary before its stemmer
-- for words: "Ödeme" and "odeme" are one lexeme, "İSTANBUL" and "istanbul" one, "IŞIK" and "ışık" one (unaccent maps
-- İ to I and ı to i, the stemmer then lowercases ASCII whatever the database's locale: PGlite runs in the C locale,
-- where lower() leaves non-ASCII letters alone). One per built-in configuration of this server, so `search_language`
-- takes any language that `to_tsvector` knows here.
DO $$
DECLARE
  c record;
  dict text;
BEGIN
  FOR c IN SELECT cfgname FROM pg_ts_config WHERE cfgnamespace = 'pg_catalog'::regnamespace LOOP
    SELECT d.dictname INTO dict
    FROM pg_ts_config_map m JOIN pg_ts_dict d ON d.oid = m.mapdict
    WHERE m.mapcfg = format('pg_catalog.%I', c.cfgname)::regconfig
      AND m.maptokentype = (SELECT tokid FROM ts_token_type('default') WHERE alias = 'word')
    ORDER BY m.mapseqno DESC LIMIT 1;
    IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'wis_' || c.cfgname) THEN
      EXECUTE format('CREATE TEXT SEARCH CONFIGURATION %I (COPY = pg_catalog.%I)', 'wis_' || c.cfgname, c.cfgname);
    END IF;
    EXECUTE format(
      'ALTER TEXT SEARCH CONFIGURATION %I ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH unaccent, pg_catalog.%I',
      'wis_' || c.cfgname, dict);
  END LOOP;
END $$;

-- Text folded as the trigram fallback and similar issues compare it: no accents, lower case.
CREATE FUNCTION search_fold(body text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT lower(unaccent('unaccent'::regdictionary, body)) $$;

-- A text's lexemes with a weight: stemmed in the language and, unless the language is `simple`, also as written (folded,
-- not stemmed, stop words kept), so that a stemmed match never hides an exact one and a word the stemmer drops as a stop
-- word is still found.
CREATE FUNCTION search_vector(language text, body text, weight "char") RETURNS tsvector
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN body IS NULL OR body = '' THEN ''::tsvector
         WHEN language = 'simple' THEN setweight(to_tsvector('wis_simple', body), weight)
         ELSE setweight(to_tsvector(('wis_' || language)::regconfig, body) || to_tsvector('wis_simple', body), weight)
         END
$$;

-- The words of a folded name, for `search_words`: split where the name has an ASCII character that is neither a
-- letter nor a digit (after folding, Turkish and other accented letters are ASCII; letters of other scripts stay
-- inside their words).
CREATE FUNCTION search_name_words(folded text) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT w FROM regexp_split_to_table(folded, '[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+') w WHERE char_length(w) BETWEEN 3 AND 40
$$;

-- ---- the search document --------------------------------------------------------------------------------------------

ALTER TABLE workspaces ADD COLUMN search_language text NOT NULL DEFAULT 'english';
-- The language every document of the workspace has been rebuilt in; differs from `search_language` while the
-- `search.reindex` duty rebuilds them after a change (search works throughout: the unstemmed lexemes match either way).
ALTER TABLE workspaces ADD COLUMN search_language_built text NOT NULL DEFAULT 'english';

-- One row per issue, as GitLab's issue_search_data: the issue's own words (name A, description B), rebuilt only when
-- its name or description changes (a PATCH of its state or priority costs nothing here).
CREATE TABLE issue_search (
  issue_id     uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  project_id   uuid NOT NULL,
  language     text NOT NULL,
  -- the issue's, which never changes: the order in which matches are found (newest first), so that a common word stops
  -- after 1,001 matches instead of collecting every one
  created_at   timestamptz NOT NULL,
  name_folded  text NOT NULL,
  document     tsvector NOT NULL,
  FOREIGN KEY (workspace_id, issue_id) REFERENCES issues (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX issue_search_document_idx ON issue_search USING gin (document);
-- Statistics of 5,000 lexemes (the default keeps 1,000): the planner then knows how common a searched word is, and
-- chooses between walking the newest issues (a common word) and the GIN index (a rare one) by it.
ALTER TABLE issue_search ALTER COLUMN document SET STATISTICS 500;
CREATE INDEX issue_search_created_idx ON issue_search (workspace_id, created_at);
-- The fuzzy fallback (word similarity of names) and similar issues (similarity of names).
CREATE INDEX issue_search_name_trgm_idx ON issue_search USING gin (name_folded gin_trgm_ops);
-- The rows of a workspace still in another language (the `search.reindex` duty).
CREATE INDEX issue_search_language_idx ON issue_search (workspace_id, language);

-- One row per comment and per text or url custom value (weight C): a new comment adds one small row, and nothing of
-- its issue's row is rewritten (the cost of a comment does not grow with the comments before it).
CREATE TABLE issue_search_parts (
  workspace_id uuid NOT NULL,
  issue_id     uuid NOT NULL,
  -- the comment's id, or the custom property's
  part_id      uuid NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('comment', 'custom_value')),
  language     text NOT NULL,
  -- the issue's `created_at` (as in issue_search)
  created_at   timestamptz NOT NULL,
  document     tsvector NOT NULL,
  PRIMARY KEY (issue_id, part_id),
  FOREIGN KEY (workspace_id, issue_id) REFERENCES issues (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX issue_search_parts_document_idx ON issue_search_parts USING gin (document);
ALTER TABLE issue_search_parts ALTER COLUMN document SET STATISTICS 500;
CREATE INDEX issue_search_parts_created_idx ON issue_search_parts (workspace_id, created_at);
CREATE INDEX issue_search_parts_language_idx ON issue_search_parts (workspace_id, language);

-- The words of the workspace's issue names, folded (no accents, lower case), each once: the fuzzy fallback looks for
-- words like a mistyped one here (a few thousand rows per workspace, through the trigram index), then searches for
-- them. Only added to: a word no issue holds any longer finds nothing, which is harmless.
CREATE TABLE search_words (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  word         text NOT NULL,
  PRIMARY KEY (workspace_id, word)
);
CREATE INDEX search_words_trgm_idx ON search_words USING gin (word gin_trgm_ops);

CREATE FUNCTION search_issue_doc(language text, name text, description text) RETURNS tsvector
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT search_vector(language, name, 'A') || search_vector(language, description, 'B')
$$;

-- New issues: one statement trigger per INSERT (a bulk insert builds its documents in one pass), which also adds the
-- words of the names to `search_words` (above).
CREATE FUNCTION issues_search_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH a AS MATERIALIZED (
    SELECT n.id, n.workspace_id, n.project_id, n.created_at, n.name, n.description, w.search_language AS language,
           search_fold(n.name) AS folded
    FROM added n JOIN workspaces w ON w.id = n.workspace_id),
  words AS (
    INSERT INTO search_words (workspace_id, word)
    SELECT DISTINCT a.workspace_id, w FROM a, search_name_words(a.folded) w
    ON CONFLICT DO NOTHING)
  INSERT INTO issue_search (issue_id, workspace_id, project_id, language, created_at, name_folded, document)
  SELECT a.id, a.workspace_id, a.project_id, a.language, a.created_at, a.folded, search_issue_doc(a.language, a.name, a.description)
  FROM a;
  RETURN NULL;
END $$;
CREATE TRIGGER issues_search_added AFTER INSERT ON issues REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION issues_search_added();

-- A changed name or description rebuilds the issue's row; nothing else of an issue is searched.
CREATE FUNCTION issues_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE issue_search
  SET project_id = NEW.project_id, name_folded = search_fold(NEW.name), document = search_issue_doc(language, NEW.name, NEW.description)
  WHERE issue_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER issues_search_changed AFTER UPDATE OF name, description, project_id ON issues
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description
                     OR OLD.project_id IS DISTINCT FROM NEW.project_id)
  EXECUTE FUNCTION issues_search_changed();

-- Comments: a row each, in the issue's language.
CREATE FUNCTION comments_search_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM issue_search_parts WHERE issue_id = OLD.issue_id AND part_id = OLD.id;
    RETURN NULL;
  END IF;
  INSERT INTO issue_search_parts (workspace_id, issue_id, part_id, kind, language, created_at, document)
  SELECT NEW.workspace_id, NEW.issue_id, NEW.id, 'comment', s.language, s.created_at, search_vector(s.language, NEW.body, 'C')
  FROM issue_search s WHERE s.issue_id = NEW.issue_id
  ON CONFLICT (issue_id, part_id) DO UPDATE SET document = excluded.document, language = excluded.language;
  RETURN NULL;
END $$;
CREATE TRIGGER comments_search_added AFTER INSERT ON comments
  FOR EACH ROW EXECUTE FUNCTION comments_search_written();
CREATE TRIGGER comments_search_edited AFTER UPDATE OF body ON comments
  FOR EACH ROW WHEN (OLD.body IS DISTINCT FROM NEW.body) EXECUTE FUNCTION comments_search_written();
CREATE TRIGGER comments_search_removed AFTER DELETE ON comments
  FOR EACH ROW EXECUTE FUNCTION comments_search_written();

-- Custom values: a row per text or url value; other types (and a cleared value) have none.
CREATE FUNCTION custom_values_search_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM issue_search_parts WHERE issue_id = OLD.issue_id AND part_id = OLD.property_id;
    RETURN NULL;
  END IF;
  IF NEW.value_text IS NULL OR NOT EXISTS (SELECT 1 FROM custom_properties p WHERE p.id = NEW.property_id AND p.type IN ('text', 'url')) THEN
    DELETE FROM issue_search_parts WHERE issue_id = NEW.issue_id AND part_id = NEW.property_id;
    RETURN NULL;
  END IF;
  INSERT INTO issue_search_parts (workspace_id, issue_id, part_id, kind, language, created_at, document)
  SELECT NEW.workspace_id, NEW.issue_id, NEW.property_id, 'custom_value', s.language, s.created_at, search_vector(s.language, NEW.value_text, 'C')
  FROM issue_search s WHERE s.issue_id = NEW.issue_id
  ON CONFLICT (issue_id, part_id) DO UPDATE SET document = excluded.document, language = excluded.language;
  RETURN NULL;
END $$;
CREATE TRIGGER custom_values_search_added AFTER INSERT ON custom_values
  FOR EACH ROW EXECUTE FUNCTION custom_values_search_written();
CREATE TRIGGER custom_values_search_edited AFTER UPDATE ON custom_values
  FOR EACH ROW WHEN (OLD.value_text IS DISTINCT FROM NEW.value_text) EXECUTE FUNCTION custom_values_search_written();
CREATE TRIGGER custom_values_search_removed AFTER DELETE ON custom_values
  FOR EACH ROW EXECUTE FUNCTION custom_values_search_written();

CREATE FUNCTION issues_search_words_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_words (workspace_id, word)
  SELECT DISTINCT NEW.workspace_id, w FROM search_name_words(search_fold(NEW.name)) w
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER issues_search_words_renamed AFTER UPDATE OF name ON issues
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION issues_search_words_renamed();

-- ---- backfill -------------------------------------------------------------------------------------------------------
-- The triggers exist before it: creating them locked out writers until this transaction commits.
INSERT INTO issue_search (issue_id, workspace_id, project_id, language, created_at, name_folded, document)
SELECT i.id, i.workspace_id, i.project_id, 'english', i.created_at, search_fold(i.name), search_issue_doc('english', i.name, i.description)
FROM issues i;
INSERT INTO issue_search_parts (workspace_id, issue_id, part_id, kind, language, created_at, document)
SELECT c.workspace_id, c.issue_id, c.id, 'comment', 'english', i.created_at, search_vector('english', c.body, 'C')
FROM comments c JOIN issues i ON i.id = c.issue_id;
INSERT INTO issue_search_parts (workspace_id, issue_id, part_id, kind, language, created_at, document)
SELECT v.workspace_id, v.issue_id, v.property_id, 'custom_value', 'english', i.created_at, search_vector('english', v.value_text, 'C')
FROM custom_values v JOIN custom_properties p ON p.id = v.property_id JOIN issues i ON i.id = v.issue_id
WHERE p.type IN ('text', 'url') AND v.value_text IS NOT NULL;

INSERT INTO search_words (workspace_id, word)
SELECT DISTINCT i.workspace_id, w FROM issues i, search_name_words(search_fold(i.name)) w
ON CONFLICT DO NOTHING;

ANALYZE issue_search;
ANALYZE issue_search_parts;
ANALYZE search_words;
