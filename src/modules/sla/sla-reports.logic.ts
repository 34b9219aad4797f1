import { DateTime } from 'luxon';
import type { FieldError } from '../../kernel/errors.js';
import { isLocalDate } from '../../kernel/time.js';
import { type CompiledCalendar, slaClock } from './sla.clock.js';
import type { TargetName, TrackerFacts } from './sla.targets.js';

/**
 * Pure parts of the SLA reports (contract 20.1): a target's outcome as the reports count it (written by every tracker
 * write and by the sla.events duty), the periods of a report, its blocks and its CSV. No I/O, no ambient time.
 */

export type OutcomeKind = 'met' | 'breached';

/** What a tracker records per target for the reports; instants in epoch milliseconds. */
export interface TargetOutcome {
  outcome: OutcomeKind | null;
  /** met: the stop (responded_at / resolved_at); breached: the due instant */
  outcome_at: number | null;
  /** working seconds from creation to the stop; null while the target has not stopped */
  outcome_seconds: number | null;
}

export const NO_OUTCOME: TargetOutcome = { outcome: null, outcome_at: null, outcome_seconds: null };

/**
 * Working time counted from the creation to `stop` (contract 11.3: the calendar's working time, not while
 * paused), in whole seconds rounded down. It does not depend on the target: a target of 0 lets the walk end at `stop`.
 */
export function workingSeconds(calendar: CompiledCalendar | null, facts: TrackerFacts, stop: number): number {
  const c = slaClock({ calendar, targetMs: 0, atRiskPercent: null, start: facts.createdAt, stop, pauses: facts.pauses, now: stop });
  return Math.max(0, Math.floor(c.counted_ms / 1000));
}

/**
 * A target's outcome at `now`, from its facts and the instants the tracker stores for it (`due_at`, `breach_at`: see
 * sla.targets.ts). Breached once its clock has counted more than the target (after `breach_at`), and then counted at
 * its due instant; met at its stop when that came first; else open (null).
 */
export function targetOutcome(
  facts: TrackerFacts,
  calendar: CompiledCalendar | null,
  target: TargetName,
  stored: { due_at: number | null; breach_at: number | null },
  now: number,
): TargetOutcome {
  const stop = target === 'response' ? facts.respondedAt : facts.resolvedAt;
  const breached = stored.breach_at !== null && stored.breach_at < now && stored.due_at !== null;
  if (!breached && stop === null) return NO_OUTCOME;
  const seconds = stop === null ? null : workingSeconds(calendar, facts, stop);
  return breached
    ? { outcome: 'breached', outcome_at: stored.due_at, outcome_seconds: seconds }
    : { outcome: 'met', outcome_at: stop, outcome_seconds: seconds };
}

// ---- the report ---------------------------------------------------------------------------------------------------

export const REPORT_GROUPS = ['day', 'week', 'month', 'priority', 'policy', 'project'] as const;
export type ReportGroup = (typeof REPORT_GROUPS)[number];
export type PeriodGroup = 'day' | 'week' | 'month';
export const isPeriodGroup = (g: ReportGroup): g is PeriodGroup => g === 'day' || g === 'week' || g === 'month';
export const MAX_REPORT_DAYS = 366;
export const REPORT_PRIORITIES = ['urgent', 'high', 'medium', 'low'] as const;

/** The query's own rules (the schema checks the shapes): real dates, `from` not after `to`, at most 366 days. */
export function validateRange(from: string, to: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of [
    ['from', from],
    ['to', to],
  ] as const)
    if (!isLocalDate(value)) errors.push({ path: `/querystring/${key}`, message: 'is not a date (YYYY-MM-DD)' });
  if (errors.length) return errors;
  if (from > to) return [{ path: '/querystring/to', message: 'is before from' }];
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
  if (days > MAX_REPORT_DAYS) errors.push({ path: '/querystring/to', message: `the range is over ${MAX_REPORT_DAYS} days` });
  return errors;
}

export interface Period {
  /** the period's first local date (a Monday for weeks, the 1st for months), even when it starts before `from` */
  key: string;
  label: string;
}

export interface ReportPeriods {
  /** [start of `from`, end of `to`) as instants */
  start: Date;
  end: Date;
  periods: Period[];
  /**
   * For the period groupings: where each period's part of the range starts, then the range's end (length
   * periods + 1); an outcome at instant x falls in period i when bounds[i] <= x < bounds[i + 1].
   */
  bounds: Date[];
}

const fmt = (d: DateTime, f: string) => d.setLocale('en').toFormat(f);

/** How people read a period: "Mon 2 Nov 2026", "2 Nov – 8 Nov 2026", "November 2026". */
export function periodLabel(group: PeriodGroup, first: DateTime): string {
  if (group === 'day') return fmt(first, 'ccc d LLL yyyy');
  if (group === 'month') return fmt(first, 'LLLL yyyy');
  const last = first.plus({ days: 6 });
  return last.year === first.year ? `${fmt(first, 'd LLL')} – ${fmt(last, 'd LLL yyyy')}` : `${fmt(first, 'd LLL yyyy')} – ${fmt(last, 'd LLL yyyy')}`;
}

/**
 * The local days `from`..`to` of `timeZone` as instants, and for day/week/month the periods that cover them, empty
 * ones included. Weeks start on Monday. A day of a daylight-saving change is 23 or 25 hours long; luxon knows which.
 */
export function reportPeriods(from: string, to: string, timeZone: string, group: ReportGroup): ReportPeriods {
  const start = DateTime.fromISO(from, { zone: timeZone }).startOf('day');
  const end = DateTime.fromISO(to, { zone: timeZone }).startOf('day').plus({ days: 1 });
  const periods: Period[] = [];
  const bounds: Date[] = [];
  if (isPeriodGroup(group)) {
    const unit = group === 'day' ? 'day' : group === 'week' ? 'week' : 'month';
    // luxon's weeks are ISO weeks: Monday first
    for (let cursor = start.startOf(unit); cursor < end; cursor = cursor.plus({ [`${unit}s`]: 1 }).startOf(unit)) {
      periods.push({ key: cursor.toISODate()!, label: periodLabel(group, cursor) });
      bounds.push((cursor < start ? start : cursor).toJSDate());
    }
    bounds.push(end.toJSDate());
  }
  return { start: start.toJSDate(), end: end.toJSDate(), periods, bounds };
}

export interface TargetBlock {
  met: number;
  breached: number;
  achievement_percent: number | null;
  median_seconds: number | null;
  p90_seconds: number | null;
}

/** `met / (met + breached) * 100` with one decimal, null when both are 0. */
export const achievementPercent = (met: number, breached: number): number | null =>
  met + breached === 0 ? null : Math.round((met / (met + breached)) * 1000) / 10;

export const emptyBlock = (): TargetBlock => ({ met: 0, breached: 0, achievement_percent: null, median_seconds: null, p90_seconds: null });

export const block = (met: number, breached: number, median: number | null, p90: number | null): TargetBlock => ({
  met,
  breached,
  achievement_percent: achievementPercent(met, breached),
  median_seconds: median,
  p90_seconds: p90,
});

/** The nearest-rank percentile (the value at rank ceil(p/100 * n) of the sorted values), null when there are none. */
export function nearestRank(values: readonly number[], percent: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((percent * sorted.length) / 100));
  return sorted[rank - 1]!;
}

export const PRIORITY_LABELS: Record<(typeof REPORT_PRIORITIES)[number], string> = { urgent: 'Urgent', high: 'High', medium: 'Medium', low: 'Low' };

export interface ReportRow {
  key: string;
  label: string;
  response: TargetBlock;
  resolution: TargetBlock;
}

/**
 * A CSV field (RFC 4180): quoted when it holds a comma, quote or line break. Text that a spreadsheet would run as a
 * formula (=, +, -, @ first) is prefixed with an apostrophe: labels are user input (project and policy names).
 */
function field(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const BLOCK_COLUMNS = ['met', 'breached', 'achievement_percent', 'median_seconds', 'p90_seconds'] as const;

/** The rows as CSV: key, label, then the five values of each target (empty for null); CRLF line ends. */
export function reportCsv(rows: readonly ReportRow[]): string {
  const header = ['key', 'label', ...BLOCK_COLUMNS.map((c) => `response_${c}`), ...BLOCK_COLUMNS.map((c) => `resolution_${c}`)];
  const lines = [header.map(field).join(',')];
  for (const row of rows) {
    lines.push([row.key, row.label, ...BLOCK_COLUMNS.map((c) => row.response[c]), ...BLOCK_COLUMNS.map((c) => row.resolution[c])].map(field).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}
