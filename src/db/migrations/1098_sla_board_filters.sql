-- The console's SLA boards (issue 41) show open breaches first: the breached list narrowed to unresolved (or
-- resolved) issues, in the same order (most overdue first). Most breaches end resolved, so the open ones are a thin
-- slice of sla_trackers_breach_idx: each status gets its own partial index, so a page is a range scan of it in
-- breach order and its count an index-only scan, as the unfiltered list is of sla_trackers_breach_idx.
CREATE INDEX sla_trackers_open_breach_idx ON sla_trackers (workspace_id, breach_at, id)
  WHERE breach_at IS NOT NULL AND resolved_at IS NULL;
CREATE INDEX sla_trackers_resolved_breach_idx ON sla_trackers (workspace_id, breach_at, id)
  WHERE breach_at IS NOT NULL AND resolved_at IS NOT NULL;
