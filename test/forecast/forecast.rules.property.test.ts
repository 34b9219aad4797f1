import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  finishDateOf,
  forecastOf,
  percentile,
  RUNS,
  simulate,
  throughputSeries,
  throughputWindow,
  type WeekCount,
  weekStartOf,
} from '../../src/modules/forecast/forecast.logic.js';

/** The rules of the forecast as plain functions (contract 18.5), checked against models; no database. */

const ZONES = [
  'UTC',
  'Europe/Istanbul',
  'Europe/London',
  'America/New_York',
  'America/St_Johns',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
];

/**
 * The exact model: P(done within k weeks) = P(sum of k draws >= remaining), from the distribution of the capped sum,
 * one convolution a week. The Monte-Carlo runs draw from the same throughput, so they must agree within sampling
 * error (10,000 runs: a share's standard error is at most 0.5 percentage point).
 */
function exactCdf(samples: number[], remaining: number, weeks: number): number[] {
  let dist = new Float64Array(remaining + 1);
  dist[0] = 1;
  const cdf = [0];
  for (let k = 1; k <= weeks; k++) {
    const next = new Float64Array(remaining + 1);
    for (let s = 0; s <= remaining; s++) {
      if (dist[s] === 0) continue;
      for (const x of samples) {
        const to = Math.min(remaining, s + x);
        next[to] = next[to]! + dist[s]! / samples.length;
      }
    }
    dist = next;
    cdf.push(dist[remaining]!);
  }
  return cdf;
}

const TOLERANCE = 0.025; // five standard errors

const week = (i: number) => DateTime.fromISO('2026-01-05', { zone: 'UTC' }).plus({ weeks: i }).toISODate()!;
// Often zero: the weeks that complete nothing are skipped in one geometric draw, which must not change the distribution.
const throughputArb = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 9 }), fc.constant(0)), { minLength: 4, maxLength: 12 })
  .filter((xs) => xs.some((x) => x > 0))
  .map((xs): WeekCount[] => xs.map((completed, i) => ({ week_start: week(i), completed })));

describe('Monte-Carlo runs (property)', () => {
  it('agree with the exact distribution of the same throughput within sampling error, percentiles and probability alike', () => {
    fc.assert(
      fc.property(
        throughputArb,
        fc.integer({ min: 1, max: 60 }),
        fc.uuid(),
        fc.integer({ min: 0, max: 40 }),
        (throughput, remaining, projectId, plannedWeek) => {
          const samples = throughput.map((w) => w.completed);
          // a horizon no run reaches: every run finishes (at least one sample is not zero)
          const sorted = simulate(samples, remaining, RUNS, 42, 100_000);
          const horizon = sorted[sorted.length - 1]!;
          const cdf = exactCdf(samples, remaining, Math.max(horizon, plannedWeek) + 1);
          for (const p of [50, 85, 95]) {
            const w = percentile(sorted, p);
            expect(cdf[w]!, `p${p}: week ${w}`).toBeGreaterThanOrEqual(p / 100 - TOLERANCE);
            expect(cdf[w - 1]!, `p${p}: week ${w - 1}`).toBeLessThanOrEqual(p / 100 + TOLERANCE);
          }
          // The probability by a planned finish on the Sunday of week `plannedWeek` (0: the Sunday before this week).
          const currentWeekStart = '2026-04-06';
          const plannedFinish = finishDateOf(currentWeekStart, plannedWeek);
          const f = forecastOf({ projectId, today: '2026-04-08', currentWeekStart, remaining, throughput, plannedFinish });
          expect(Math.abs(f.probability_by_planned_finish! - 100 * cdf[plannedWeek]!)).toBeLessThanOrEqual(100 * TOLERANCE);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('gives the same answer for the same data, Sundays in order from the current week on, and one decimal of percent', () => {
    fc.assert(
      fc.property(
        throughputArb,
        fc.integer({ min: 1, max: 300 }),
        fc.uuid(),
        fc.integer({ min: -30, max: 400 }),
        (throughput, remaining, projectId, plannedOffset) => {
          const currentWeekStart = '2026-04-06';
          const plannedFinish = DateTime.fromISO('2026-04-08', { zone: 'UTC' }).plus({ days: plannedOffset }).toISODate()!;
          // fewer runs than the service's 10,000: these properties hold for any number, and the suite stays quick
          const input = { projectId, today: '2026-04-08', currentWeekStart, remaining, throughput, plannedFinish, runs: 2000 };
          const a = forecastOf(input);
          expect(forecastOf({ ...input, throughput: throughput.map((w) => ({ ...w })) })).toEqual(a);
          const dates = [a.finish_p50, a.finish_p85, a.finish_p95].filter((d): d is string => d !== null);
          for (const d of dates) {
            expect(DateTime.fromISO(d, { zone: 'UTC' }).weekday).toBe(7);
            expect(d >= '2026-04-12').toBe(true);
          }
          expect([...dates].sort()).toEqual(dates);
          const pr = a.probability_by_planned_finish!;
          expect(pr).toBeGreaterThanOrEqual(0);
          expect(pr).toBeLessThanOrEqual(100);
          expect(Math.round(pr * 10) / 10).toBe(pr);
          // a run finishing by the planned date finishes by any later one
          const later = forecastOf({ ...input, plannedFinish: DateTime.fromISO(plannedFinish, { zone: 'UTC' }).plus({ days: 7 }).toISODate()! });
          expect(later.probability_by_planned_finish!).toBeGreaterThanOrEqual(pr);
          // a p50 finish date means at least half of the runs finish by it
          if (a.finish_p50) expect(forecastOf({ ...input, plannedFinish: a.finish_p50 }).probability_by_planned_finish!).toBeGreaterThanOrEqual(50);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('leaves late percentiles null with a reason when runs do not finish within the horizon', () => {
    const throughput = [1, 0, 0, 0, 0, 0, 0, 0].map((completed, i) => ({ week_start: week(i), completed }));
    const f = forecastOf({
      projectId: 'p',
      today: '2026-04-08',
      currentWeekStart: '2026-04-06',
      remaining: 100,
      throughput,
      plannedFinish: null,
      horizon: 2000,
    });
    expect(f.finish_p50).not.toBeNull();
    const g = forecastOf({
      projectId: 'p',
      today: '2026-04-08',
      currentWeekStart: '2026-04-06',
      remaining: 100,
      throughput,
      plannedFinish: '2027-01-03',
      horizon: 700,
    });
    // 100 completions at one every 8 weeks on average: about 800 weeks, beyond a 700-week horizon for most runs
    expect(g.finish_p95).toBeNull();
    expect(g.reason).toMatch(/within 700 weeks/);
    expect(g.probability_by_planned_finish).toBe(0);
  });

  it('answers nothing left as finished today, and no throughput as null with a reason', () => {
    const zeros = [0, 0, 0, 0].map((completed, i) => ({ week_start: week(i), completed }));
    const base = { projectId: 'p', today: '2026-04-08', currentWeekStart: '2026-04-06', throughput: zeros, plannedFinish: '2026-05-01' };
    expect(forecastOf({ ...base, remaining: 0 })).toEqual({
      finish_p50: '2026-04-08',
      finish_p85: '2026-04-08',
      finish_p95: '2026-04-08',
      probability_by_planned_finish: 100,
    });
    expect(forecastOf({ ...base, remaining: 3 })).toMatchObject({
      finish_p50: null,
      finish_p95: null,
      probability_by_planned_finish: null,
      reason: expect.any(String),
    });
  });

  it('reads the nearest-rank percentile', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 200 }), fc.integer({ min: 1, max: 100 }), (xs, p) => {
        const sorted = Int32Array.from(xs).sort();
        const v = percentile(sorted, p);
        expect(xs.filter((x) => x <= v).length / xs.length).toBeGreaterThanOrEqual(p / 100);
        expect(xs.filter((x) => x < v).length / xs.length).toBeLessThan(p / 100);
      }),
    );
  });
});

describe('local weeks (property)', () => {
  const instant = fc.integer({ min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2027-12-31T00:00:00Z') }).map((ms) => new Date(ms));

  it('puts every instant in the week starting on the Monday 00:00 local before it, whatever the zone and its clock changes', () => {
    fc.assert(
      fc.property(instant, fc.constantFrom(...ZONES), (at, zone) => {
        const monday = weekStartOf(at, zone);
        const start = DateTime.fromISO(monday, { zone });
        expect(start.weekday).toBe(1);
        expect(start.toMillis()).toBeLessThanOrEqual(at.getTime());
        expect(start.plus({ weeks: 1 }).toMillis()).toBeGreaterThan(at.getTime());
      }),
      { numRuns: 500 },
    );
  });

  it('makes the window the N full weeks before the current one, as consecutive Mondays bounded by local midnights', () => {
    fc.assert(
      fc.property(instant, fc.constantFrom(...ZONES), fc.integer({ min: 4, max: 52 }), (now, zone, weeks) => {
        const w = throughputWindow(now, zone, weeks);
        expect(w.weekStarts).toHaveLength(weeks);
        expect(w.currentWeekStart).toBe(weekStartOf(now, zone));
        for (const [i, d] of w.weekStarts.entries()) {
          expect(DateTime.fromISO(d, { zone }).weekday).toBe(1);
          if (i > 0) expect(DateTime.fromISO(d, { zone: 'UTC' }).diff(DateTime.fromISO(w.weekStarts[i - 1]!, { zone: 'UTC' }), 'days').days).toBe(7);
        }
        expect(w.from.getTime()).toBe(DateTime.fromISO(w.weekStarts[0]!, { zone }).toMillis());
        expect(w.to.getTime()).toBe(DateTime.fromISO(w.currentWeekStart, { zone }).toMillis());
        // the current, unfinished week is after the window
        expect(w.to.getTime()).toBeLessThanOrEqual(now.getTime());
        expect(DateTime.fromISO(w.weekStarts.at(-1)!, { zone }).plus({ weeks: 1 }).toMillis()).toBe(w.to.getTime());
      }),
      { numRuns: 300 },
    );
  });

  it('fills every week of the window, zeros included, and ignores counts outside it', () => {
    const starts = ['2026-01-05', '2026-01-12', '2026-01-19'];
    expect(
      throughputSeries(starts, [
        { week_start: '2026-01-12', completed: 4 },
        { week_start: '2025-12-29', completed: 9 },
      ]),
    ).toEqual([
      { week_start: '2026-01-05', completed: 0 },
      { week_start: '2026-01-12', completed: 4 },
      { week_start: '2026-01-19', completed: 0 },
    ]);
  });
});
