import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { daysBetween, type MoveGroup, moveOf, scheduleOf, slipSums } from '../../src/modules/baselines/baselines.logic.js';

/** Dates as days from 2025-12-01, across a year boundary and a leap day (2028-02-29). */
const EPOCH = Date.UTC(2025, 11, 1);
const dateOf = (day: number) => new Date(EPOCH + day * 86_400_000).toISOString().slice(0, 10);
const maybeDay = fc.option(fc.integer({ min: 0, max: 1200 }), { nil: null });

/** The contract's words, issue by issue, with plain Date arithmetic: the model the grouped sums must match. */
function model(pairs: readonly (readonly [number | null, number | null])[]) {
  let slipped = 0;
  let pulledIn = 0;
  let slipDays = 0;
  for (const [from, to] of pairs) {
    if (from === null || from === to) continue; // no baseline date: not a move; unchanged: no move
    if (to === null)
      slipped++; // removed: slipped, but no days to add
    else if (to > from) {
      slipped++;
      slipDays += to - from;
    } else pulledIn++;
  }
  return { slipped_issues: slipped, pulled_in_issues: pulledIn, total_slip_days: slipDays };
}

/** What the repository's GROUP BY returns for the same pairs (issues whose target date differs). */
function grouped(pairs: readonly (readonly [number | null, number | null])[]): MoveGroup[] {
  const groups = new Map<string, MoveGroup>();
  for (const [from, to] of pairs) {
    if (from === to) continue;
    const days = from !== null && to !== null ? daysBetween(dateOf(from), dateOf(to)) : null;
    const key = `${from !== null}/${to !== null}/${days}`;
    const g = groups.get(key) ?? { from_set: from !== null, to_set: to !== null, days, n: 0 };
    g.n++;
    groups.set(key, g);
  }
  return [...groups.values()];
}

describe('slip of target dates (contract 18.4)', () => {
  it('counts days between dates across month, year and leap-day boundaries', () => {
    expect(daysBetween('2026-01-31', '2026-02-01')).toBe(1);
    expect(daysBetween('2027-12-31', '2028-03-01')).toBe(61);
    expect(daysBetween('2026-03-10', '2026-03-01')).toBe(-9);
    // the day DST starts in Europe is still one day: dates have no time zone
    expect(daysBetween('2026-03-28', '2026-03-30')).toBe(2);
  });

  it('classifies one move: later or removed slips, earlier pulls in, a new date is neither', () => {
    expect(moveOf('2026-01-10', '2026-01-15')).toEqual({ slipped: true, pulled_in: false, slip_days: 5 });
    expect(moveOf('2026-01-10', null)).toEqual({ slipped: true, pulled_in: false, slip_days: 0 });
    expect(moveOf('2026-01-10', '2026-01-02')).toEqual({ slipped: false, pulled_in: true, slip_days: 0 });
    expect(moveOf(null, '2026-01-02')).toEqual({ slipped: false, pulled_in: false, slip_days: 0 });
    expect(moveOf('2026-01-10', '2026-01-10')).toEqual({ slipped: false, pulled_in: false, slip_days: 0 });
  });

  it('sums grouped moves exactly as the issue-by-issue model does (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(maybeDay, maybeDay), { maxLength: 200 }), (pairs) => {
        expect(slipSums(grouped(pairs))).toEqual(model(pairs));
      }),
    );
  });

  it('agrees with moveOf summed issue by issue (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(maybeDay, maybeDay), { maxLength: 100 }), (pairs) => {
        const each = pairs.map(([f, t]) => moveOf(f === null ? null : dateOf(f), t === null ? null : dateOf(t)));
        expect(slipSums(grouped(pairs))).toEqual({
          slipped_issues: each.filter((m) => m.slipped).length,
          pulled_in_issues: each.filter((m) => m.pulled_in).length,
          total_slip_days: each.reduce((a, m) => a + m.slip_days, 0),
        });
      }),
    );
  });
});

describe('schedule of a deviation', () => {
  const sums = { moves: [{ from_set: true, to_set: true, days: 3, n: 2 }], added_estimate_minutes: 60, removed_estimate_minutes: 30 };
  const plan = (finish: string | null, estimate: number, spent: number) => ({
    planned_finish: finish,
    total_estimate_minutes: estimate,
    total_time_spent_minutes: spent,
  });

  it('is now minus the baseline: variance in days, estimate and time-spent deltas', () => {
    expect(scheduleOf(plan('2026-02-01', 600, 0), plan('2026-02-11', 630, 90), sums)).toEqual({
      planned_finish_baseline: '2026-02-01',
      planned_finish_now: '2026-02-11',
      finish_variance_days: 10,
      slipped_issues: 2,
      pulled_in_issues: 0,
      total_slip_days: 6,
      added_estimate_minutes: 60,
      removed_estimate_minutes: 30,
      estimate_delta_minutes: 30,
      time_spent_delta_minutes: 90,
    });
    expect(scheduleOf(plan(null, 0, 0), plan('2026-02-11', 0, 0), sums).finish_variance_days).toBeNull();
  });

  it('says unknown (null) for what a baseline taken before migration 1010 never recorded', () => {
    expect(scheduleOf(null, plan('2026-02-11', 630, 90), sums)).toEqual({
      planned_finish_baseline: null,
      planned_finish_now: '2026-02-11',
      finish_variance_days: null,
      slipped_issues: 0,
      pulled_in_issues: 0,
      total_slip_days: 0,
      added_estimate_minutes: 60,
      removed_estimate_minutes: null,
      estimate_delta_minutes: null,
      time_spent_delta_minutes: null,
    });
  });
});
