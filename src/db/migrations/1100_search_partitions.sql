-- Search's documents partitioned by the issue's creation month (contract 23.1's speed with a million issues). A search
-- wants the newest 1,001 matching issues; in one table of a million documents a query of middling frequency read
-- thousands of scattered rows to learn their age, and a common one walked tens of thousands of documents. Partitioned
-- by month, the newest months answer most queries with small indexes over rows that stay in memory, and older months
-- are read only when the newest hold too few matches.
--
-- The documents are derived from the issues (migration 1092 builds them): they move to the partitioned table as they
-- are, and the unpartitioned table is removed once empty. Nothing a user stored is rewritten. Also left out: the
-- trigram index of names, which nothing has read since similar issues find their candidates by words (1092's second
-- version); each new issue wrote to it.

ALTER TABLE issue_search RENAME TO issue_search_1092;
ALTER TABLE issue_search_1092 RENAME CONSTRAINT issue_search_pkey TO issue_search_1092_pkey;
ALTER TABLE issue_search_1092 RENAME CONSTRAINT issue_search_workspace_id_issue_id_fkey TO issue_search_1092_workspace_id_issue_id_fkey;
ALTER INDEX issue_search_document_idx RENAME TO issue_search_1092_document_idx;
ALTER INDEX issue_search_created_idx RENAME TO issue_search_1092_created_idx;
ALTER INDEX issue_search_name_trgm_idx RENAME TO issue_search_1092_name_trgm_idx;
ALTER INDEX issue_search_language_idx RENAME TO issue_search_1092_language_idx;

CREATE TABLE issue_search (
  issue_id     uuid NOT NULL,
  workspace_id uuid NOT NULL,
  project_id   uuid NOT NULL,
  language     text NOT NULL,
  -- the issue's, which never changes: the partition key
  created_at   timestamptz NOT NULL,
  name_folded  text NOT NULL,
  document     tsvector NOT NULL,
  PRIMARY KEY (issue_id, created_at),
  FOREIGN KEY (workspace_id, issue_id) REFERENCES issues (workspace_id, id) ON DELETE CASCADE
) PARTITION BY RANGE (created_at);
ALTER TABLE issue_search ALTER COLUMN document SET STATISTICS 500;
CREATE INDEX issue_search_document_idx ON issue_search USING gin (document);
CREATE INDEX issue_search_created_idx ON issue_search (workspace_id, created_at);
CREATE INDEX issue_search_language_idx ON issue_search (workspace_id, language);
-- Documents of months without a partition of their own (before the first, or after the last the duty made).
CREATE TABLE issue_search_default PARTITION OF issue_search DEFAULT;

-- The monthly partitions (`issue_search_YYYYMM`, months in UTC) from `since` to `upto`, each made once; answers how many
-- it made. Months are made only from `since` on: a gap before it is left to the default partition. Documents of such a month already in the default partition move to the new one. Callers: this migration,
-- and the `search.partitions` duty, which keeps three months ahead (instances take turns on an advisory lock; a lock
-- wait longer than 2 s gives up until the next run, as the months ahead leave time).
CREATE FUNCTION search_partitions_ensure(since timestamptz, upto timestamptz) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  month timestamptz := date_trunc('month', since, 'UTC');
  next timestamptz;
  part text;
  made int := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('search_partitions_ensure'));
  WHILE month <= upto LOOP
    next := month + interval '1 month';
    part := 'issue_search_' || to_char(month AT TIME ZONE 'UTC', 'YYYYMM');
    IF to_regclass(part) IS NULL THEN
      IF EXISTS (SELECT 1 FROM issue_search_default WHERE created_at >= month AND created_at < next) THEN
        EXECUTE format('CREATE TABLE %I (LIKE issue_search INCLUDING DEFAULTS)', part);
        EXECUTE format('WITH moved AS (DELETE FROM issue_search_default WHERE created_at >= %L AND created_at < %L RETURNING *)
                        INSERT INTO %I SELECT * FROM moved', month, next, part);
        EXECUTE format('ALTER TABLE issue_search ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, month, next);
      ELSE
        EXECUTE format('CREATE TABLE %I PARTITION OF issue_search FOR VALUES FROM (%L) TO (%L)', part, month, next);
      END IF;
      made := made + 1;
    END IF;
    month := next;
  END LOOP;
  RETURN made;
END $$;

-- From the month of the oldest document (at most 23 months back: older ones stay in the default partition) to three
-- months ahead. A new database has only this month's and the next three: every month without documents would be one
-- more partition that each search plans.
SELECT search_partitions_ensure(
  greatest(coalesce((SELECT min(created_at) FROM issue_search_1092), now()), now() - interval '23 months'),
  now() + interval '3 months');

INSERT INTO issue_search (issue_id, workspace_id, project_id, language, created_at, name_folded, document)
SELECT issue_id, workspace_id, project_id, language, created_at, name_folded, document FROM issue_search_1092;
DROP TABLE issue_search_1092;

-- Writes that find an issue's document give its month too (created_at is in the key), so that one partition is read.
CREATE OR REPLACE FUNCTION issues_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE issue_search
  SET project_id = NEW.project_id, name_folded = search_fold(NEW.name), document = search_issue_doc(language, NEW.name, NEW.description)
  WHERE issue_id = NEW.id AND created_at = NEW.created_at;
  RETURN NULL;
END $$;

-- A comment's or a value's row takes the issue's month from the issue and the language from the workspace: it does not
-- read the partitioned documents at all. (While a workspace's documents are rebuilt in a new language, a new part is
-- written in the new one at once, and the rebuild passes it by; search reads both languages meanwhile.)
CREATE OR REPLACE FUNCTION comments_search_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM issue_search_parts WHERE issue_id = OLD.issue_id AND part_id = OLD.id;
    RETURN NULL;
  END IF;
  INSERT INTO issue_search_parts (workspace_id, issue_id, part_id, kind, language, created_at, document)
  SELECT NEW.workspace_id, NEW.issue_id, NEW.id, 'comment', w.search_language, i.created_at, search_vector(w.search_language, NEW.body, 'C')
  FROM issues i JOIN workspaces w ON w.id = i.workspace_id
  WHERE i.id = NEW.issue_id
  ON CONFLICT (issue_id, part_id) DO UPDATE SET document = excluded.document, language = excluded.language;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION custom_values_search_written() RETURNS trigger LANGUAGE plpgsql AS $$
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
  SELECT NEW.workspace_id, NEW.issue_id, NEW.property_id, 'custom_value', w.search_language, i.created_at, search_vector(w.search_language, NEW.value_text, 'C')
  FROM issues i JOIN workspaces w ON w.id = i.workspace_id
  WHERE i.id = NEW.issue_id
  ON CONFLICT (issue_id, part_id) DO UPDATE SET document = excluded.document, language = excluded.language;
  RETURN NULL;
END $$;

ANALYZE issue_search;
