import { iso } from '../../kernel/time.js';
import type { Priority, StateGroup } from '../../kernel/work-items.js';
import type { ScheduleRow } from './baselines.repository.js';

/** Rows of the baseline tables as the API shows them. */

export interface BaselineRow {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  total_issues: number;
  completed_issues: number;
  state_backlog: number;
  state_unstarted: number;
  state_started: number;
  state_completed: number;
  state_cancelled: number;
  priority_urgent: number;
  priority_high: number;
  priority_medium: number;
  priority_low: number;
  priority_none: number;
  snapshot_at: Date;
  created_by: string;
  created_at: Date;
  schedule_id?: string | null;
  /** Migration 1010; null on a baseline written before it. */
  planned_finish?: string | null;
  total_estimate_minutes?: number | null;
  total_time_spent_minutes?: number | null;
}

export function baselineView(b: BaselineRow) {
  return {
    id: b.id,
    workspace_id: b.workspace_id,
    project_id: b.project_id,
    name: b.name,
    total_issues: b.total_issues,
    completed_issues: b.completed_issues,
    state_breakdown: {
      backlog: b.state_backlog,
      unstarted: b.state_unstarted,
      started: b.state_started,
      completed: b.state_completed,
      cancelled: b.state_cancelled,
    } satisfies Record<StateGroup, number>, // the StateBreakdown of baselines.logic.ts
    priority_breakdown: {
      urgent: b.priority_urgent,
      high: b.priority_high,
      medium: b.priority_medium,
      low: b.priority_low,
      none: b.priority_none,
    } satisfies Record<Priority, number>, // its PriorityBreakdown
    snapshot_at: iso(b.snapshot_at),
    created_by: b.created_by,
    created_at: iso(b.created_at),
    schedule_id: b.schedule_id ?? null,
    planned_finish: b.planned_finish ?? null,
    total_estimate_minutes: b.total_estimate_minutes ?? null,
    total_time_spent_minutes: b.total_time_spent_minutes ?? null,
  };
}

export type BaselineView = ReturnType<typeof baselineView>;

export const scheduleView = (s: ScheduleRow) => ({
  id: s.id,
  project_id: s.project_id,
  name_prefix: s.name_prefix,
  every: s.every,
  weekday: s.weekday,
  at: s.at,
  time_zone: s.time_zone,
  keep_last: s.keep_last,
  next_run_at: iso(s.next_run_at),
  created_at: iso(s.created_at),
});
