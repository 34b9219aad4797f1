import type { Holiday, RulePriority, WorkingHours } from '../../db/tables/sla.js';
import { iso, isoOrNull } from '../../kernel/time.js';
import type { CompiledCalendar } from './sla.clock.js';
import { sortWorkingHours } from './sla.calendar.js';
import { sortRules } from './sla.domain.js';
import { factsOf } from './sla.retarget.js';
import { isPaused, settledView, type TargetName, type TargetView, targetView, type TrackerRule } from './sla.targets.js';
import type { TrackerViewRow } from './sla.trackers.repository.js';

/** Row-to-API mappers of the SLA module. */

export const calendarView = (c: {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  time_zone: string;
  working_hours: WorkingHours[];
  holidays: Holiday[];
  created_at: Date;
  updated_at: Date;
}) => ({
  id: c.id,
  workspace_id: c.workspace_id,
  name: c.name,
  description: c.description,
  time_zone: c.time_zone,
  working_hours: sortWorkingHours(c.working_hours),
  holidays: c.holidays,
  created_at: iso(c.created_at),
  updated_at: iso(c.updated_at),
});

export interface RuleView {
  priority: RulePriority;
  response_time_h: number;
  resolution_time_h: number;
}

export const policyView = (
  p: {
    id: string;
    workspace_id: string;
    name: string;
    description: string;
    is_default: boolean;
    calendar_id: string | null;
    at_risk_percent: number | null;
    created_at: Date;
    updated_at: Date;
  },
  rules: RuleView[],
) => ({
  id: p.id,
  workspace_id: p.workspace_id,
  name: p.name,
  description: p.description,
  is_default: p.is_default,
  calendar_id: p.calendar_id,
  at_risk_percent: p.at_risk_percent,
  rules: sortRules(rules).map((r) => ({ priority: r.priority, response_time_h: r.response_time_h, resolution_time_h: r.resolution_time_h })),
  created_at: iso(p.created_at),
  updated_at: iso(p.updated_at),
});

/**
 * A tracker as the API shows it at `now` (contract 5 and 11.3). A met target whose values were settled is shown from
 * what it stored; an open one from the working-time clock at the moment of the read, so breach flags, remaining time
 * and a paused tracker's projected due instants are never stale.
 */
export function trackerView(row: TrackerViewRow, calendar: CompiledCalendar | null, now: Date) {
  const facts = factsOf(row);
  const rule: TrackerRule | null =
    row.response_ms === null || row.resolution_ms === null
      ? null
      : { calendar, responseMs: row.response_ms, resolutionMs: row.resolution_ms, atRiskPercent: row.at_risk_percent };
  const target = (t: TargetName): TargetView => {
    const stop = t === 'response' ? row.responded_at : row.resolved_at;
    const settled = t === 'response' ? row.response_settled : row.resolution_settled;
    if ((stop !== null && settled) || rule === null) {
      const stored =
        t === 'response'
          ? { due_at: row.response_due_at.getTime(), risk_at: null, breach_at: row.response_breach_at?.getTime() ?? null }
          : { due_at: row.resolution_due_at.getTime(), risk_at: null, breach_at: row.resolution_breach_at?.getTime() ?? null };
      const view = settledView(stored);
      return stop === null ? { ...view, breached: stored.breach_at !== null && stored.breach_at < now.getTime() } : view;
    }
    return targetView(facts, rule, t, now.getTime());
  };
  const response = target('response');
  const resolution = target('resolution');
  return {
    id: row.id,
    issue_id: row.issue_id,
    policy_id: row.policy_id,
    priority: row.priority,
    calendar_id: row.calendar_id,
    response_due_at: iso(new Date(response.due_at)),
    resolution_due_at: iso(new Date(resolution.due_at)),
    responded_at: isoOrNull(row.responded_at),
    resolved_at: isoOrNull(row.resolved_at),
    response_breached: response.breached,
    resolution_breached: resolution.breached,
    paused: isPaused(facts),
    response_remaining_seconds: response.remaining_seconds,
    resolution_remaining_seconds: resolution.remaining_seconds,
    at_risk: response.at_risk || resolution.at_risk,
  };
}

/** A tracker with its issue, as in `sla-breached`, `sla-at-risk` and the SLA events. */
export const trackerListItem = (row: TrackerViewRow, calendar: CompiledCalendar | null, now: Date) => ({
  ...trackerView(row, calendar, now),
  issue: {
    id: row.issue_id,
    name: row.issue_name,
    project_id: row.issue_project_id,
    sequence_id: row.issue_sequence_id,
    priority: row.issue_priority,
    state_group: row.issue_state_group,
  },
});
