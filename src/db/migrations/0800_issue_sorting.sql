-- Issue-list sorting (order_by): an index per sortable core field; ties are broken by an incremental sort on
-- sequence_id. Priority sorts by rank (urgent first) through an immutable function the index is built on.

CREATE FUNCTION issue_priority_rank(priority text) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE priority WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END;

CREATE INDEX issues_created_sort_idx ON issues (project_id, created_at, sequence_id);
CREATE INDEX issues_updated_sort_idx ON issues (project_id, updated_at, sequence_id);
CREATE INDEX issues_name_sort_idx ON issues (project_id, name, sequence_id);
CREATE INDEX issues_priority_sort_idx ON issues (project_id, issue_priority_rank(priority), sequence_id);
