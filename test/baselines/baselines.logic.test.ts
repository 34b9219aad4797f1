import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ChangeRow, changeLists, countsFromGroups, deltaOf, deviationOf, scheduleOf } from '../../src/modules/baselines/baselines.logic.js';
import { PRIORITIES, STATE_GROUPS } from '../../src/kernel/work-items.js';
import { baselineView } from '../../src/modules/baselines/baselines.views.js';

const group = fc.record({
  state_group: fc.constantFrom(...STATE_GROUPS),
  priority: fc.constantFrom(...PRIORITIES),
  n: fc.integer({ min: 0, max: 10_000 }),
});
const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);

describe('baseline counts', () => {
  it('carries every state group and priority, zeros included, for an empty project', () => {
    expect(countsFromGroups([])).toEqual({
      total: 0,
      completed: 0,
      state: { backlog: 0, unstarted: 0, started: 0, completed: 0, cancelled: 0 },
      priority: { urgent: 0, high: 0, medium: 0, low: 0, none: 0 },
    });
  });

  it('makes each breakdown sum to the total, and completed equal the completed group', () => {
    fc.assert(
      fc.property(fc.array(group, { maxLength: 40 }), (groups) => {
        const c = countsFromGroups(groups);
        expect(c.total).toBe(groups.reduce((a, g) => a + g.n, 0));
        expect(sum(c.state)).toBe(c.total);
        expect(sum(c.priority)).toBe(c.total);
        expect(c.completed).toBe(c.state.completed);
        expect(Object.keys(c.state)).toEqual([...STATE_GROUPS]);
        expect(Object.keys(c.priority)).toEqual([...PRIORITIES]);
      }),
    );
  });
});

describe('deltas', () => {
  it('is current minus baseline for every key, positive for an increase', () => {
    expect(deltaOf(['a', 'b'] as const, { a: 3, b: 1 }, { a: 1, b: 4 })).toEqual({ a: -2, b: 3 });
  });

  it('sums the state deltas to the issues delta', () => {
    fc.assert(
      fc.property(fc.array(group, { maxLength: 30 }), fc.array(group, { maxLength: 30 }), (before, after) => {
        const b = countsFromGroups(before);
        const a = countsFromGroups(after);
        expect(sum(deltaOf(STATE_GROUPS, b.state, a.state))).toBe(a.total - b.total);
        expect(sum(deltaOf(PRIORITIES, b.priority, a.priority))).toBe(a.total - b.total);
      }),
    );
  });
});

const row = (over: Partial<ChangeRow>): ChangeRow => ({
  kind: 'changed',
  id: '0190a000-0000-7000-8000-000000000001',
  sequence_id: 1,
  name: 'x',
  from_state_group: 'backlog',
  from_priority: 'none',
  to_state_group: 'started',
  to_priority: 'high',
  from_target_date: null,
  to_target_date: null,
  from_estimate_minutes: null,
  to_estimate_minutes: null,
  planned: true,
  kind_total: 1,
  rn: 1,
  ...over,
});

describe('change lists', () => {
  it('sorts rows into added, removed and changed with their full counts', () => {
    const lists = changeLists(
      [
        row({ kind: 'added', from_state_group: null, from_priority: null, kind_total: 7 }),
        row({ kind: 'removed', to_state_group: null, to_priority: null, kind_total: 2 }),
        row({ kind: 'changed', kind_total: 1 }),
      ],
      100,
    );
    expect(lists.added).toEqual({ count: 7, items: [{ id: expect.any(String), sequence_id: 1, name: 'x', state_group: 'started', priority: 'high' }] });
    expect(lists.removed).toEqual({ count: 2, items: [{ id: expect.any(String), sequence_id: 1, name: 'x', state_group: 'backlog', priority: 'none' }] });
    expect(lists.changed.items[0]).toMatchObject({ from: { state_group: 'backlog', priority: 'none' }, to: { state_group: 'started', priority: 'high' } });
  });

  it('keeps the counts but no items with a limit of 0', () => {
    const lists = changeLists([row({ kind: 'added', kind_total: 5 })], 0);
    expect(lists.added).toEqual({ count: 5, items: [] });
    expect(lists.removed).toEqual({ count: 0, items: [] });
  });
});

describe('deviation', () => {
  it('reports the spec fields, every key of both deltas, and the lists', () => {
    const at = new Date('2026-01-15T09:00:00.000Z');
    const baseline = baselineView({
      id: 'b',
      workspace_id: 'w',
      project_id: 'p',
      name: 'n',
      total_issues: 3,
      completed_issues: 1,
      state_backlog: 2,
      state_unstarted: 0,
      state_started: 0,
      state_completed: 1,
      state_cancelled: 0,
      priority_urgent: 1,
      priority_high: 0,
      priority_medium: 0,
      priority_low: 0,
      priority_none: 2,
      snapshot_at: at,
      created_by: 'u',
      created_at: at,
    });
    const current = countsFromGroups([
      { state_group: 'completed', priority: 'urgent', n: 2 },
      { state_group: 'started', priority: 'none', n: 2 },
    ]);
    const d = deviationOf(
      baseline,
      current,
      changeLists([], 100),
      100,
      scheduleOf(null, null, { moves: [], added_estimate_minutes: 0, removed_estimate_minutes: 0 }),
    );
    expect(d).toMatchObject({
      current_total: 4,
      current_completed: 2,
      issues_delta: 1,
      completion_delta: 1,
      state_delta: { backlog: -2, unstarted: 0, started: 2, completed: 1, cancelled: 0 },
      priority_delta: { urgent: 1, high: 0, medium: 0, low: 0, none: 0 },
    });
    expect(d.baseline.snapshot_at).toBe('2026-01-15T09:00:00.000Z');
  });
});
