import { DateTime } from 'luxon';
import type { Holiday, WorkingHours } from '../../db/tables/sla.js';
import { minutesOf, WEEKDAYS } from './sla.calendar.js';

/**
 * The SLA clock as a pure function (contract 11.3): no I/O, no ambient time. A target's clock starts at `start`,
 * counts only working time of the calendar (all time when there is none), not while paused, and stops at `stop`
 * (`responded_at` / `resolved_at`).
 *
 * Working time is built per local date, the way Zendesk's `biz` does it: each local wall-clock interval of a date
 * (09:00-17:00) is turned into UTC instants through the time-zone database (Luxon over the platform's `Intl`), so a
 * DST day gets 7 or 9 real hours; a holiday removes its whole local day. All instants are epoch milliseconds.
 */

export interface CalendarSpec {
  time_zone: string;
  working_hours: readonly WorkingHours[];
  holidays: readonly Holiday[];
}

/** A calendar prepared for repeated use: intervals per ISO weekday (1 = Monday), holidays as sets. */
export interface CompiledCalendar {
  zone: string;
  /** index 1..7: [startMinute, endMinute] sorted by start */
  byWeekday: [number, number][][];
  dates: Set<string>;
  monthDays: Set<string>;
  /** local days already turned into UTC, by days since 1970-01-01 of the local date (a bounded memo) */
  days: Map<number, LocalDay>;
}

interface LocalDay {
  /** UTC instant of the local day's start, and of the next local day's start */
  start: number;
  next: number;
  /** working intervals of the day in UTC (empty on a holiday) */
  intervals: [number, number][];
}

const DAY_MS = 86_400_000;
const MAX_MEMO_DAYS = 20_000;

export function compileCalendar(c: CalendarSpec): CompiledCalendar {
  const byWeekday: [number, number][][] = Array.from({ length: 8 }, () => []);
  for (const h of c.working_hours) byWeekday[WEEKDAYS.indexOf(h.day) + 1]!.push([minutesOf(h.start)!, minutesOf(h.end)!]);
  for (const list of byWeekday) list.sort((a, b) => a[0] - b[0]);
  return {
    zone: c.time_zone,
    byWeekday,
    dates: new Set(c.holidays.filter((h) => !h.recurring).map((h) => h.date)),
    monthDays: new Set(c.holidays.filter((h) => h.recurring).map((h) => h.date.slice(5))),
    days: new Map(),
  };
}

/** The local day numbered `n` (days since 1970-01-01 of the local calendar date), built once through Luxon. */
function localDay(cal: CompiledCalendar, n: number): LocalDay {
  let d = cal.days.get(n);
  if (d) return d;
  const utcDate = new Date(n * DAY_MS);
  const day = DateTime.fromObject({ year: utcDate.getUTCFullYear(), month: utcDate.getUTCMonth() + 1, day: utcDate.getUTCDate() }, { zone: cal.zone });
  const next = day.plus({ days: 1 });
  const intervals: [number, number][] = [];
  if (!isHoliday(cal, day)) {
    for (const [s, e] of cal.byWeekday[day.weekday]!) {
      const a = atMinute(day, next, s);
      const b = atMinute(day, next, e);
      if (b > a) intervals.push([a, b]);
    }
  }
  d = { start: day.toMillis(), next: next.toMillis(), intervals };
  if (cal.days.size >= MAX_MEMO_DAYS) cal.days.clear();
  cal.days.set(n, d);
  return d;
}

/** The number of the local day that contains the instant (offsets stay within a day of UTC). */
function localDayOf(cal: CompiledCalendar, instant: number): number {
  const guess = Math.floor(instant / DAY_MS);
  for (const n of [guess, guess - 1, guess + 1, guess - 2, guess + 2]) {
    const d = localDay(cal, n);
    if (instant >= d.start && instant < d.next) return n;
  }
  throw new Error('unreachable: no local day contains the instant');
}

export interface Pause {
  from: number;
  /** null: still paused; projected as if the pause ended at `now` */
  to: number | null;
}

export interface ClockInput {
  calendar: CompiledCalendar | null;
  /** the target in milliseconds of working time */
  targetMs: number;
  /** share of the target (1..99) from which an open target is at risk; null: never */
  atRiskPercent: number | null;
  start: number;
  /** when the target was met (responded / resolved), or null */
  stop: number | null;
  pauses: readonly Pause[];
  now: number;
}

export interface ClockResult {
  /** when the clock reaches the target, given the history and no further pause; null beyond the horizon */
  due_at: number | null;
  /** the target is breached at every instant after this one (due_at, or the next working instant after it) */
  breach_at: number | null;
  /** when the clock reaches the at-risk share of the target; null without a share or beyond the horizon */
  at_risk_at: number | null;
  /** working time counted up to `stop` (when met) or `now` */
  counted_ms: number;
  /** target minus counted, whole seconds rounded toward zero; null once met */
  remaining_seconds: number | null;
  breached: boolean;
  /** not paused, not met, not breached, and counted at least the at-risk share */
  at_risk: boolean;
  paused: boolean;
}

/** How far the walk looks for a due instant (a calendar with almost no working time and a huge target). */
export const HORIZON_MS = 200 * 366 * 86_400_000;

/** Working intervals of the calendar that end after `from`, in order, as UTC [start, end). */
export function* workingIntervals(cal: CompiledCalendar | null, from: number, until: number): Generator<[number, number]> {
  if (!cal) {
    yield [from, until];
    return;
  }
  for (let n = localDayOf(cal, from); ; n++) {
    const day = localDay(cal, n);
    if (day.start >= until) return;
    for (const [a, b] of day.intervals) if (b > from) yield [Math.max(a, from), b];
  }
}

function isHoliday(cal: CompiledCalendar, day: DateTime): boolean {
  if (!cal.dates.size && !cal.monthDays.size) return false;
  const iso = day.toISODate()!;
  return cal.dates.has(iso) || cal.monthDays.has(iso.slice(5));
}

/** The instant of a local wall-clock minute of `day` (24:00 is the next local midnight); gaps resolve forward. */
function atMinute(day: DateTime, next: DateTime, minute: number): number {
  if (minute === 1440) return next.toMillis();
  if (minute === 0) return day.toMillis();
  return day.set({ hour: Math.floor(minute / 60), minute: minute % 60 }).toMillis();
}

/** Pauses as sorted, merged [from, to) with open ones closed at `now`. */
function normalisePauses(pauses: readonly Pause[], now: number): [number, number][] {
  const list = pauses
    .map((p): [number, number] => [p.from, p.to ?? Math.max(now, p.from)])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [];
  for (const [a, b] of list) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  return merged;
}

/** The working intervals minus the pauses. */
function* countedSegments(cal: CompiledCalendar | null, start: number, pauses: [number, number][]): Generator<[number, number]> {
  let p = 0;
  for (const [a0, b] of workingIntervals(cal, start, start + HORIZON_MS)) {
    let a = a0;
    while (p < pauses.length && pauses[p]![1] <= a) p++;
    let q = p;
    while (a < b) {
      const pause = pauses[q];
      if (!pause || pause[0] >= b) {
        yield [a, b];
        break;
      }
      if (pause[0] > a) yield [a, pause[0]];
      a = Math.max(a, pause[1]);
      if (pause[1] <= b) q++;
      else break;
    }
  }
}

export function slaClock(input: ClockInput): ClockResult {
  return walk(input, true);
}

export type ClockInstants = Pick<ClockResult, 'due_at' | 'breach_at' | 'at_risk_at'>;

/**
 * The due, breach and at-risk instants alone, the same as `slaClock`'s: the walk stops as soon as they are known,
 * instead of going on to `now` to count the time so far. Re-targeting needs nothing else, and an open issue months
 * old then costs a few days of walking, not months.
 */
export function slaInstants(input: ClockInput): ClockInstants {
  const { due_at, breach_at, at_risk_at } = walk(input, false);
  return { due_at, breach_at, at_risk_at };
}

/** The clock's walk; with `count` false, `counted_ms` and what follows from it are not computed. */
function walk(input: ClockInput, count: boolean): ClockResult {
  const { targetMs, start, stop, now } = input;
  const until = stop ?? now;
  const pauses = normalisePauses(input.pauses, now);
  const paused = stop === null && input.pauses.some((p) => p.to === null);
  const riskMs = input.atRiskPercent === null ? null : Math.ceil((targetMs * input.atRiskPercent) / 100);

  let counted = 0; // up to `until`
  let cumulative = 0; // up to the end of the segment just walked
  let due: number | null = null;
  let breachAt: number | null = null;
  let riskAt: number | null = null;
  let dueAtSegmentEnd = false;
  for (const [a, b] of countedSegments(input.calendar, start, pauses)) {
    if (dueAtSegmentEnd) {
      breachAt = a;
      dueAtSegmentEnd = false;
    }
    const len = b - a;
    if (count && a < until) counted += Math.min(b, until) - a;
    if (riskMs !== null && riskAt === null && cumulative + len >= riskMs) riskAt = a + (riskMs - cumulative);
    if (due === null && cumulative + len >= targetMs) {
      due = a + (targetMs - cumulative);
      if (due < b || len === 0) breachAt = due;
      else dueAtSegmentEnd = true;
    }
    cumulative += len;
    if (breachAt !== null && (riskMs === null || riskAt !== null) && (!count || b >= until)) break;
  }
  const breached = counted > targetMs;
  const met = stop !== null;
  const remaining = met ? null : Math.trunc((targetMs - counted) / 1000) || 0;
  return {
    due_at: due,
    breach_at: breachAt,
    at_risk_at: riskAt,
    counted_ms: counted,
    remaining_seconds: remaining,
    breached,
    at_risk: !met && !paused && !breached && riskMs !== null && counted >= riskMs,
    paused,
  };
}
