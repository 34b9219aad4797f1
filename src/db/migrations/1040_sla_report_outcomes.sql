-- SLA reports (contract 20.1): each tracker records, per target, its outcome as a report counts it, so that a report is
-- a range scan over outcome instants of one workspace and never a walk through the history.
--   outcome:    'met' (stopped, not after the target was breached) or 'breached'; null while open and not breached
--   outcome_at: met: responded_at / resolved_at; breached: the due instant (when the clock reached the target)
--   outcome_seconds: working seconds counted from creation to the stop (section 11.3), whole seconds rounded down;
--                    null while the target has not stopped (a breached, still-open target)
-- Written by every tracker write (re-targeting, src/modules/sla/sla.retarget.ts) and, for breaches that happen by the
-- passing of time, by the sla.events duty (src/modules/sla/sla-reports.service.ts).

ALTER TABLE sla_trackers
  ADD COLUMN response_outcome           text CHECK (response_outcome IN ('met', 'breached')),
  ADD COLUMN response_outcome_at        timestamptz,
  ADD COLUMN response_outcome_seconds   bigint CHECK (response_outcome_seconds >= 0),
  ADD COLUMN resolution_outcome         text CHECK (resolution_outcome IN ('met', 'breached')),
  ADD COLUMN resolution_outcome_at      timestamptz,
  ADD COLUMN resolution_outcome_seconds bigint CHECK (resolution_outcome_seconds >= 0),
  ADD CONSTRAINT sla_trackers_response_outcome_at CHECK ((response_outcome IS NULL) = (response_outcome_at IS NULL)),
  ADD CONSTRAINT sla_trackers_resolution_outcome_at CHECK ((resolution_outcome IS NULL) = (resolution_outcome_at IS NULL));

-- Trackers written before this migration: the outcome and its instant follow from what they store. The working seconds
-- need the working-time clock (calendars, pauses): the sla.events duty fills them in, from the partial index below.
UPDATE sla_trackers
SET response_outcome = CASE
      WHEN response_breach_at IS NOT NULL AND response_breach_at < now() THEN 'breached'
      WHEN responded_at IS NOT NULL THEN 'met' END,
    response_outcome_at = CASE
      WHEN response_breach_at IS NOT NULL AND response_breach_at < now() THEN response_due_at
      WHEN responded_at IS NOT NULL THEN responded_at END,
    resolution_outcome = CASE
      WHEN resolution_breach_at IS NOT NULL AND resolution_breach_at < now() THEN 'breached'
      WHEN resolved_at IS NOT NULL THEN 'met' END,
    resolution_outcome_at = CASE
      WHEN resolution_breach_at IS NOT NULL AND resolution_breach_at < now() THEN resolution_due_at
      WHEN resolved_at IS NOT NULL THEN resolved_at END
WHERE policy_id IS NOT NULL;

-- The reports: one range scan per target over the workspace's outcome instants, carrying what the report groups and
-- aggregates (an index-only scan once the table is vacuumed).
CREATE INDEX sla_trackers_response_outcome_idx ON sla_trackers (workspace_id, response_outcome_at)
  INCLUDE (response_outcome, response_outcome_seconds, priority, policy_id, issue_id)
  WHERE response_outcome IS NOT NULL;
CREATE INDEX sla_trackers_resolution_outcome_idx ON sla_trackers (workspace_id, resolution_outcome_at)
  INCLUDE (resolution_outcome, resolution_outcome_seconds, priority, policy_id, issue_id)
  WHERE resolution_outcome IS NOT NULL;

-- The duty's queues: breaches that happened since the last tracker write, and outcomes still without their seconds
-- (both empty in the steady state, so a tick costs two index probes).
CREATE INDEX sla_trackers_response_breach_todo_idx ON sla_trackers (response_breach_at)
  WHERE response_outcome IS NULL AND response_breach_at IS NOT NULL;
CREATE INDEX sla_trackers_resolution_breach_todo_idx ON sla_trackers (resolution_breach_at)
  WHERE resolution_outcome IS NULL AND resolution_breach_at IS NOT NULL;
CREATE INDEX sla_trackers_outcome_seconds_todo_idx ON sla_trackers (id)
  WHERE (response_outcome IS NOT NULL AND response_outcome_seconds IS NULL AND responded_at IS NOT NULL)
     OR (resolution_outcome IS NOT NULL AND resolution_outcome_seconds IS NULL AND resolved_at IS NOT NULL);
