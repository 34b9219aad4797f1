-- SLA on working time (contract 11.3, 11.4): trackers keep, per target, the instants the working-time clock computes
-- (when it reaches the at-risk share and when it is breached), so that the breached list, the at-risk list and the
-- SLA events scanner are index range scans. The clock itself runs in the service (src/modules/sla/sla.clock.ts);
-- every change that can move an instant re-targets the trackers it touches in the same transaction.

ALTER TABLE sla_trackers
  -- the instant the target's clock reaches its at-risk share / exceeds its target (past instants are facts; future ones
  -- hold while nothing changes). Null: it never happened and cannot happen now (met before, paused, no share).
  ADD COLUMN response_risk_at      timestamptz,
  ADD COLUMN response_breach_at    timestamptz,
  ADD COLUMN resolution_risk_at    timestamptz,
  ADD COLUMN resolution_breach_at  timestamptz,
  -- the issue is in a state with pauses_sla and not resolved
  ADD COLUMN paused                boolean NOT NULL DEFAULT false,
  -- the issue's pauses as [[from_ms, to_ms | null], ...], derived from its history (a cache of it)
  ADD COLUMN pauses                jsonb NOT NULL DEFAULT '[]'::jsonb,
  -- a met target's values were computed with its stop and never change again
  ADD COLUMN response_settled      boolean NOT NULL DEFAULT false,
  ADD COLUMN resolution_settled    boolean NOT NULL DEFAULT false,
  -- SLA events recorded for the current crossing of each threshold (re-armed when the threshold moves ahead of now)
  ADD COLUMN response_risk_sent    boolean NOT NULL DEFAULT false,
  ADD COLUMN response_breach_sent  boolean NOT NULL DEFAULT false,
  ADD COLUMN resolution_risk_sent  boolean NOT NULL DEFAULT false,
  ADD COLUMN resolution_breach_sent boolean NOT NULL DEFAULT false;

-- "Breached now" is still breach_at < now, from one partial index.
DROP INDEX sla_trackers_breach_idx;
ALTER TABLE sla_trackers DROP COLUMN breach_at;
ALTER TABLE sla_trackers
  ADD COLUMN breach_at timestamptz GENERATED ALWAYS AS (LEAST(response_breach_at, resolution_breach_at)) STORED;
CREATE INDEX sla_trackers_breach_idx ON sla_trackers (workspace_id, breach_at, id) WHERE breach_at IS NOT NULL;

-- At risk now: risk_at <= now < breach_at of an unmet target of a running tracker. Each list is cut from the index
-- range breach_at > now in breach order (soonest first), so a page costs what it shows plus the not-yet-at-risk
-- trackers due before it.
CREATE INDEX sla_trackers_response_risk_idx ON sla_trackers (workspace_id, response_breach_at, id)
  INCLUDE (response_risk_at)
  WHERE response_risk_at IS NOT NULL AND responded_at IS NULL AND NOT paused;
CREATE INDEX sla_trackers_resolution_risk_idx ON sla_trackers (workspace_id, resolution_breach_at, id)
  INCLUDE (resolution_risk_at, response_risk_at, response_breach_at, responded_at)
  WHERE resolution_risk_at IS NOT NULL AND resolved_at IS NULL AND NOT paused;

-- The next threshold crossing whose event is not recorded yet: the scanner's queue.
ALTER TABLE sla_trackers
  ADD COLUMN next_event_at timestamptz GENERATED ALWAYS AS (LEAST(
    CASE WHEN NOT response_risk_sent THEN response_risk_at END,
    CASE WHEN NOT response_breach_sent THEN response_breach_at END,
    CASE WHEN NOT resolution_risk_sent THEN resolution_risk_at END,
    CASE WHEN NOT resolution_breach_sent THEN resolution_breach_at END
  )) STORED;
CREATE INDEX sla_trackers_next_event_idx ON sla_trackers (next_event_at) WHERE next_event_at IS NOT NULL;

-- Compiled calendars are cached by id and version; every edit bumps the version (two edits can share an updated_at).
ALTER TABLE sla_calendars ADD COLUMN version integer NOT NULL DEFAULT 1;

-- Batched re-targeting walks a workspace's trackers in id order.
CREATE UNIQUE INDEX sla_trackers_workspace_id_idx ON sla_trackers (workspace_id, id);

-- Pauses of existing issues, from their history (created and state entries carry pauses_sla at the time).
UPDATE sla_trackers t
SET pauses = p.pauses
FROM (
  SELECT issue_id,
         jsonb_agg(jsonb_build_array(from_ms, to_ms) ORDER BY from_ms) AS pauses
  FROM (
    SELECT h.issue_id,
           (extract(epoch FROM h.at) * 1000)::bigint AS from_ms,
           (extract(epoch FROM lead(h.at) OVER w) * 1000)::bigint AS to_ms,
           (h."to"->>'pauses_sla')::boolean AS pausing
    FROM issue_history h
    WHERE h.kind IN ('created', 'state')
    WINDOW w AS (PARTITION BY h.issue_id ORDER BY h.at, h.seq)
  ) s
  WHERE pausing
  GROUP BY issue_id
) p
WHERE t.issue_id = p.issue_id;
UPDATE sla_trackers SET paused = true
WHERE resolved_at IS NULL AND jsonb_array_length(pauses) > 0 AND pauses -> -1 -> 1 = 'null'::jsonb;

-- Workspaces whose trackers the service re-targets on the working-time clock at its next start (and from the
-- sla.events job): existing threshold crossings are recorded as already sent, so an upgrade sends no old events.
CREATE TABLE sla_retarget_pending (
  workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE
);
INSERT INTO sla_retarget_pending (workspace_id)
SELECT DISTINCT workspace_id FROM sla_trackers WHERE policy_id IS NOT NULL;
