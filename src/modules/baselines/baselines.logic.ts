import { DateTime } from 'luxon';
import { PRIORITIES, type Priority, STATE_GROUPS, type StateGroup } from '../../kernel/work-items.js';
import type { ChangeRow, MoveGroup, ScheduleSums } from './baselines.repository.js';
import type { BaselineView } from './baselines.views.js';

export type { ChangeRow, MoveGroup, ScheduleSums };

/** Pure rules of baselines and deviation: breakdowns, deltas and the record shape. No I/O. */

export type StateBreakdown = Record<StateGroup, number>;
export type PriorityBreakdown = Record<Priority, number>;

/** How many issues of a deviation's change lists are returned by default, and at most. */
export const DEFAULT_ITEMS_LIMIT = 100;
export const MAX_ITEMS_LIMIT = 1000;

export interface Counts {
  total: number;
  completed: number;
  state: StateBreakdown;
  priority: PriorityBreakdown;
}

const zeros = <K extends string>(keys: readonly K[]): Record<K, number> => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

/** Counts from `(state_group, priority, n)` groups: every key present, zeros included; each map sums to `total`. */
export function countsFromGroups(groups: readonly { state_group: StateGroup; priority: Priority; n: number }[]): Counts {
  const state = zeros(STATE_GROUPS);
  const priority = zeros(PRIORITIES);
  let total = 0;
  for (const g of groups) {
    state[g.state_group] += g.n;
    priority[g.priority] += g.n;
    total += g.n;
  }
  return { total, completed: state.completed, state, priority };
}

/** The counts a baseline stored, as the deviation compares them. */
export function countsOfBaseline(b: BaselineView): Counts {
  return { total: b.total_issues, completed: b.completed_issues, state: b.state_breakdown, priority: b.priority_breakdown };
}

/** `after - before` for every key of the map: positive means an increase since the baseline. */
export function deltaOf<K extends string>(keys: readonly K[], before: Record<K, number>, after: Record<K, number>): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, after[k] - before[k]])) as Record<K, number>;
}

/** A stored baseline row, as the repository returns it. */

interface IssueSide {
  state_group: StateGroup;
  priority: Priority;
  target_date: string | null;
  estimate_minutes: number | null;
}
type Listed = { id: string; sequence_id: number; name: string; state_group: StateGroup; priority: Priority };
type FieldChange<T> = { from: T; to: T };
/** The fields of a changed issue that differ, each as {from, to}. */
export interface ChangedFields {
  state_group?: FieldChange<StateGroup>;
  priority?: FieldChange<Priority>;
  target_date?: FieldChange<string | null>;
  estimate_minutes?: FieldChange<number | null>;
}

export interface ChangeLists {
  added: { count: number; items: Listed[] };
  removed: { count: number; items: Listed[] };
  changed: {
    count: number;
    items: { id: string; sequence_id: number; name: string; from: IssueSide; to: IssueSide; fields: ChangedFields }[];
  };
}

/**
 * Which of the compared fields differ. Dates and estimates are compared only when both sides recorded them
 * (`planned`): a snapshot written before migration 1010 does not know them, which is not a change.
 */
export function changedFields(r: Pick<ChangeRow, 'planned'>, from: IssueSide, to: IssueSide): ChangedFields {
  const fields: ChangedFields = {};
  if (from.state_group !== to.state_group) fields.state_group = { from: from.state_group, to: to.state_group };
  if (from.priority !== to.priority) fields.priority = { from: from.priority, to: to.priority };
  if (r.planned && from.target_date !== to.target_date) fields.target_date = { from: from.target_date, to: to.target_date };
  if (r.planned && from.estimate_minutes !== to.estimate_minutes) fields.estimate_minutes = { from: from.estimate_minutes, to: to.estimate_minutes };
  return fields;
}

/** Sorts the comparison rows into the three lists, keeping the given order and at most `limit` items of each. */
export function changeLists(rows: readonly ChangeRow[], limit: number): ChangeLists {
  const lists: ChangeLists = { added: { count: 0, items: [] }, removed: { count: 0, items: [] }, changed: { count: 0, items: [] } };
  for (const r of rows) {
    lists[r.kind].count = r.kind_total;
    if (r.rn > limit) continue;
    if (r.kind === 'added') {
      lists.added.items.push({ id: r.id, sequence_id: r.sequence_id, name: r.name, state_group: r.to_state_group!, priority: r.to_priority! });
    } else if (r.kind === 'removed') {
      lists.removed.items.push({ id: r.id, sequence_id: r.sequence_id, name: r.name, state_group: r.from_state_group!, priority: r.from_priority! });
    } else {
      const from = { state_group: r.from_state_group!, priority: r.from_priority!, target_date: r.from_target_date, estimate_minutes: r.from_estimate_minutes };
      const to = { state_group: r.to_state_group!, priority: r.to_priority!, target_date: r.to_target_date, estimate_minutes: r.to_estimate_minutes };
      lists.changed.items.push({ id: r.id, sequence_id: r.sequence_id, name: r.name, from, to, fields: changedFields(r, from, to) });
    }
  }
  return lists;
}

// ---- schedule and effort (contract 18.4) ----------------------------------------------------------------------------

/** `to - from` in whole calendar days, for `YYYY-MM-DD` dates (luxon, in UTC: a date has no time zone). */
export function daysBetween(from: string, to: string): number {
  return Math.round(DateTime.fromISO(to, { zone: 'utc' }).diff(DateTime.fromISO(from, { zone: 'utc' }), 'days').days);
}

/**
 * How one issue's target date moved from the baseline: slipped when it moved later or was removed, pulled in when it
 * moved earlier; a date set where the baseline had none is a new commitment, neither. Slip days count only moves
 * with both dates.
 */
export function moveOf(from: string | null, to: string | null): { slipped: boolean; pulled_in: boolean; slip_days: number } {
  if (from === null || from === to) return { slipped: false, pulled_in: false, slip_days: 0 };
  if (to === null) return { slipped: true, pulled_in: false, slip_days: 0 };
  const days = daysBetween(from, to);
  return { slipped: days > 0, pulled_in: days < 0, slip_days: Math.max(0, days) };
}

/** moveOf summed over grouped moves (the repository groups them by (from set, to set, days) with a count). */
export function slipSums(moves: readonly MoveGroup[]): { slipped_issues: number; pulled_in_issues: number; total_slip_days: number } {
  let slipped = 0;
  let pulledIn = 0;
  let slipDays = 0;
  for (const m of moves) {
    if (!m.from_set) continue;
    if (!m.to_set) {
      slipped += m.n;
    } else if (m.days! > 0) {
      slipped += m.n;
      slipDays += m.days! * m.n;
    } else if (m.days! < 0) {
      pulledIn += m.n;
    }
  }
  return { slipped_issues: slipped, pulled_in_issues: pulledIn, total_slip_days: slipDays };
}

/** A side's planned finish and effort totals; null when that side is a baseline written before migration 1010. */
export interface PlanTotals {
  planned_finish: string | null;
  total_estimate_minutes: number;
  total_time_spent_minutes: number;
}

/** The planning totals a baseline stored, or null when it was taken before they were recorded. */
export function planOfBaseline(b: BaselineView): PlanTotals | null {
  if (b.total_estimate_minutes === null || b.total_time_spent_minutes === null) return null;
  return { planned_finish: b.planned_finish, total_estimate_minutes: b.total_estimate_minutes, total_time_spent_minutes: b.total_time_spent_minutes };
}

/** The project's planning totals now, from the per-(group, priority) aggregates; cancelled issues do not set the finish. */
export function planFromGroups(
  groups: readonly { state_group: StateGroup; max_target_date: string | null; estimate_minutes: number; time_spent_minutes: number }[],
): PlanTotals {
  let finish: string | null = null;
  let estimate = 0;
  let spent = 0;
  for (const g of groups) {
    if (g.state_group !== 'cancelled' && g.max_target_date !== null && (finish === null || g.max_target_date > finish)) finish = g.max_target_date;
    estimate += Number(g.estimate_minutes);
    spent += Number(g.time_spent_minutes);
  }
  return { planned_finish: finish, total_estimate_minutes: estimate, total_time_spent_minutes: spent };
}

export interface Schedule {
  planned_finish_baseline: string | null;
  planned_finish_now: string | null;
  finish_variance_days: number | null;
  slipped_issues: number;
  pulled_in_issues: number;
  total_slip_days: number;
  added_estimate_minutes: number | null;
  removed_estimate_minutes: number | null;
  estimate_delta_minutes: number | null;
  time_spent_delta_minutes: number | null;
}

/**
 * The schedule variance of a deviation. `baseline` and `now` are null for a side written before migration 1010:
 * what needs that side's figures is null (unknown), and no issue's target date is known to have moved.
 */
export function scheduleOf(baseline: PlanTotals | null, now: PlanTotals | null, sums: ScheduleSums): Schedule {
  const finishBaseline = baseline?.planned_finish ?? null;
  const finishNow = now?.planned_finish ?? null;
  return {
    planned_finish_baseline: finishBaseline,
    planned_finish_now: finishNow,
    finish_variance_days: finishBaseline !== null && finishNow !== null ? daysBetween(finishBaseline, finishNow) : null,
    ...slipSums(baseline && now ? sums.moves : []),
    added_estimate_minutes: now ? Number(sums.added_estimate_minutes) : null,
    removed_estimate_minutes: baseline ? Number(sums.removed_estimate_minutes) : null,
    estimate_delta_minutes: baseline && now ? now.total_estimate_minutes - baseline.total_estimate_minutes : null,
    time_spent_delta_minutes: baseline && now ? now.total_time_spent_minutes - baseline.total_time_spent_minutes : null,
  };
}

/** The deviation of the spec (2.5) plus priority_delta, the current breakdowns, the issue-by-issue lists and the schedule. */
export function deviationOf(baseline: BaselineView, current: Counts, lists: ChangeLists, limit: number, schedule: Schedule) {
  return {
    baseline,
    current_total: current.total,
    current_completed: current.completed,
    issues_delta: current.total - baseline.total_issues,
    completion_delta: current.completed - baseline.completed_issues,
    state_delta: deltaOf(STATE_GROUPS, baseline.state_breakdown, current.state),
    priority_delta: deltaOf(PRIORITIES, baseline.priority_breakdown, current.priority),
    current_state_breakdown: current.state,
    current_priority_breakdown: current.priority,
    items_limit: limit,
    ...lists,
    schedule,
  };
}
