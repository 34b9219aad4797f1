import { DateTime } from 'luxon';

/**
 * The forecast's rules (contract 18.5), as plain functions: local weeks, the throughput series, the seeded random
 * draws, the Monte-Carlo runs and what is read from them. No I/O; the service feeds them what the repository read.
 */

export const DEFAULT_WEEKS = 12;
export const MIN_WEEKS = 4;
export const MAX_WEEKS = 52;
export const RUNS = 10_000;
/**
 * A run that has not finished after this many weeks (5 years) counts as not finishing: a forecast further out than
 * that from at most a year of throughput says little, and the cost stays bounded (10,000 x 260 draws at worst).
 */
export const HORIZON_WEEKS = 260;
export const PERCENTILES = [50, 85, 95] as const;

export interface WeekCount {
  week_start: string;
  completed: number;
}

const date = (iso: string) => DateTime.fromISO(iso, { zone: 'UTC' });
const addDays = (iso: string, days: number): string => date(iso).plus({ days }).toISODate()!;

/** The Monday (`YYYY-MM-DD`) of the local week of an instant. Luxon's weeks are ISO weeks: Monday first. */
export function weekStartOf(at: Date, timeZone: string): string {
  return DateTime.fromJSDate(at, { zone: timeZone }).startOf('week').toISODate()!;
}

/** The local date (`YYYY-MM-DD`) of an instant. */
export const localDate = (at: Date, timeZone: string): string => DateTime.fromJSDate(at, { zone: timeZone }).toISODate()!;

/**
 * The last `weeks` full local weeks before the current one: their Mondays, oldest first, and the instants that bound
 * them, [Monday 00:00 local of the first, Monday 00:00 local of the current week). Weeks of a daylight-saving change
 * are 167 or 169 hours long; luxon knows which.
 */
export function throughputWindow(now: Date, timeZone: string, weeks: number) {
  const current = DateTime.fromJSDate(now, { zone: timeZone }).startOf('week');
  const first = current.minus({ weeks });
  const weekStarts = Array.from({ length: weeks }, (_, i) => first.plus({ weeks: i }).toISODate()!);
  return { weekStarts, from: first.toJSDate(), to: current.toJSDate(), currentWeekStart: current.toISODate()! };
}

/** The series of the window: every week present, zeros included, whatever the counted rows hold. */
export function throughputSeries(weekStarts: string[], counted: readonly WeekCount[]): WeekCount[] {
  const byWeek = new Map(counted.map((c) => [c.week_start, c.completed]));
  return weekStarts.map((week_start) => ({ week_start, completed: byWeek.get(week_start) ?? 0 }));
}

/** 32-bit FNV-1a of a string's UTF-16 code units: a small, stable hash for the seed. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The seed of a forecast: the project and the data it draws from, so the same data gives the same answer. */
export function seedOf(projectId: string, remaining: number, throughput: readonly WeekCount[]): number {
  return hash32(`${projectId}|${remaining}|${throughput.map((w) => `${w.week_start}:${w.completed}`).join(',')}`);
}

/** mulberry32: a small seeded PRNG with a 2^32 period, plenty for 10,000 runs; answers floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Monte-Carlo runs: each run draws a week's completions from `samples` (uniformly, with replacement) until their sum
 * reaches `remaining`, and records how many weeks that took (1 = the current week). A run still short after
 * `horizon` weeks records `horizon + 1`. Answers the weeks of every run, sorted ascending.
 *
 * Two shortcuts keep the cost within runs x min(horizon, draws that complete something), without changing the
 * distribution: the weeks that complete nothing are skipped in one geometric draw (the number of weeks up to and
 * including the next week that completes something), and a run that could not finish within the horizon even at the
 * best week every week stops at once (its outcome is certain).
 */
export function simulate(samples: readonly number[], remaining: number, runs: number, seed: number, horizon = HORIZON_WEEKS): Int32Array {
  // mulberry32 (as `mulberry32` above), inlined: a call per draw is a third of the cost of the worst case
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = new Int32Array(runs);
  const positive = Int32Array.from(samples.filter((x) => x > 0));
  const m = positive.length;
  const best = m ? Math.max(...positive) : 0;
  const p = m / samples.length;
  // ln(1 - p) of the geometric draw; p = 1: every week completes something
  const logMiss = p < 1 ? Math.log(1 - p) : 0;
  for (let r = 0; r < runs; r++) {
    let done = 0;
    let week = 0;
    if (m === 0) {
      out[r] = remaining <= 0 ? 0 : horizon + 1;
      continue;
    }
    while (done < remaining) {
      if (done + (horizon - week) * best < remaining) {
        week = horizon + 1;
        break;
      }
      week += p < 1 ? 1 + Math.floor(Math.log(1 - random()) / logMiss) : 1;
      if (week > horizon) break;
      done += positive[Math.floor(random() * m)]!;
    }
    out[r] = done >= remaining ? week : horizon + 1;
  }
  return out.sort();
}

/** The nearest-rank percentile of sorted values: the smallest value with at least `p` % of them at or below it. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** The last day (Sunday) of the `week`-th week counted from the current one (week 1 ends this Sunday). */
export const finishDateOf = (currentWeekStart: string, week: number): string => addDays(currentWeekStart, 7 * week - 1);

/** Percent with one decimal. */
const percent = (share: number) => Math.round(share * 1000) / 10;

export interface ForecastInput {
  projectId: string;
  /** Today, local to the workspace. */
  today: string;
  currentWeekStart: string;
  remaining: number;
  throughput: WeekCount[];
  plannedFinish: string | null;
  runs?: number;
  horizon?: number;
}

export interface ForecastResult {
  finish_p50: string | null;
  finish_p85: string | null;
  finish_p95: string | null;
  probability_by_planned_finish: number | null;
  reason?: string;
}

/**
 * The forecast read from the runs. Finish dates are the Sundays of the weeks by which 50, 85 and 95 % of the runs
 * have finished, counting the current week as the first. Nothing left: finished today, certain by any planned
 * finish. No completion in the window: no finish date and no probability, and `reason` says why.
 */
export function forecastOf(input: ForecastInput): ForecastResult {
  const { remaining, throughput, plannedFinish, currentWeekStart } = input;
  const runs = input.runs ?? RUNS;
  const horizon = input.horizon ?? HORIZON_WEEKS;
  const weeks = throughput.length;
  if (remaining <= 0) {
    return { finish_p50: input.today, finish_p85: input.today, finish_p95: input.today, probability_by_planned_finish: plannedFinish === null ? null : 100 };
  }
  if (throughput.every((w) => w.completed === 0)) {
    return {
      finish_p50: null,
      finish_p85: null,
      finish_p95: null,
      probability_by_planned_finish: null,
      reason: `No issue was completed in the last ${weeks} full weeks: with a throughput of zero there is no finish date to forecast.`,
    };
  }
  const sorted = simulate(
    throughput.map((w) => w.completed),
    remaining,
    runs,
    seedOf(input.projectId, remaining, throughput),
    horizon,
  );
  const [p50, p85, p95] = PERCENTILES.map((p) => {
    const week = percentile(sorted, p);
    return week > horizon ? null : finishDateOf(currentWeekStart, week);
  }) as [string | null, string | null, string | null];

  let probability: number | null = null;
  if (plannedFinish !== null) {
    // Finish dates grow with the week: the runs that finish by the planned date are those of the first `last` weeks.
    const days = date(plannedFinish).diff(date(currentWeekStart), 'days').days;
    const last = Math.min(horizon, Math.floor((days + 1) / 7));
    let by = 0;
    while (by < sorted.length && sorted[by]! <= last) by++;
    probability = percent(by / sorted.length);
  }
  const result: ForecastResult = { finish_p50: p50, finish_p85: p85, finish_p95: p95, probability_by_planned_finish: probability };
  if (p95 === null) {
    result.reason =
      `At the throughput of the last ${weeks} full weeks, fewer than ${p50 === null ? 50 : p85 === null ? 85 : 95} % of the runs finish ` +
      `within ${horizon} weeks: the later finish dates are left null.`;
  }
  return result;
}

/** The planned finish of a set of issues (contract 18.4): the latest target date of those not cancelled, or null. */
export function plannedFinishOf(issues: readonly { state_group: string; target_date: string | null }[]): string | null {
  let latest: string | null = null;
  for (const i of issues) if (i.state_group !== 'cancelled' && i.target_date !== null && (latest === null || i.target_date > latest)) latest = i.target_date;
  return latest;
}
