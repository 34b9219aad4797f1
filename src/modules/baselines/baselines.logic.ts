import { PRIORITIES, type Priority, STATE_GROUPS, type StateGroup } from '../../kernel/work-items.js';
import type { ChangeRow } from './baselines.repository.js';
import type { BaselineView } from './baselines.views.js';

export type { ChangeRow };

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

export interface ChangeLists {
  added: { count: number; items: { id: string; sequence_id: number; name: string; state_group: StateGroup; priority: Priority }[] };
  removed: { count: number; items: { id: string; sequence_id: number; name: string; state_group: StateGroup; priority: Priority }[] };
  changed: {
    count: number;
    items: {
      id: string;
      sequence_id: number;
      name: string;
      from: { state_group: StateGroup; priority: Priority };
      to: { state_group: StateGroup; priority: Priority };
    }[];
  };
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
      lists.changed.items.push({
        id: r.id,
        sequence_id: r.sequence_id,
        name: r.name,
        from: { state_group: r.from_state_group!, priority: r.from_priority! },
        to: { state_group: r.to_state_group!, priority: r.to_priority! },
      });
    }
  }
  return lists;
}

/** The deviation of the spec (2.5) plus priority_delta, the current breakdowns and the issue-by-issue lists. */
export function deviationOf(baseline: BaselineView, current: Counts, lists: ChangeLists, limit: number) {
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
  };
}
