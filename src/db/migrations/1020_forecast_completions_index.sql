-- Forecast (contract 18.5): the weekly throughput of a project counts the issues that entered the `completed` group,
-- read from the issue history. Those entries are a small share of the history (comments, priorities, dates and the
-- other state moves are the rest), so a partial index holds only them, by workspace and instant: the throughput of
-- the last N weeks is one range scan of it. The predicate is written exactly as forecast.repository.ts queries it
-- (PostgreSQL uses a partial index only when the query's conditions imply its predicate). Only adds an index: rows
-- written before it are indexed as they are.
CREATE INDEX issue_history_completions_idx ON issue_history (workspace_id, at) INCLUDE (issue_id)
  WHERE kind IN ('created', 'state') AND ("to" ->> 'group') = 'completed' AND ("from" ->> 'group') IS DISTINCT FROM 'completed';
