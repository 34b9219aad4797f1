import { DateTime } from 'luxon';
import type { TimesheetCell } from './time-tracking.repository.js';

/** Pure parts of the timesheet (contract 18.3): its days, their UTC bounds, the rows, and the CSV. */

export const MAX_TIMESHEET_DAYS = 366;

/** Every date from `from` to `to`, inclusive (both `YYYY-MM-DD`). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  const last = DateTime.fromISO(to, { zone: 'UTC' });
  for (let day = DateTime.fromISO(from, { zone: 'UTC' }); day <= last; day = day.plus({ days: 1 })) days.push(day.toISODate()!);
  return days;
}

/**
 * The instants that start each local day `from`..`to` in `timeZone`, and the start of the day after `to` (one more
 * than the days): the thresholds the SQL buckets each worklog's `started_at` by (`width_bucket`), so the database
 * does no time-zone arithmetic per row. Daylight-saving days (23 or 25 hours) come out right: luxon knows them.
 */
export function dayStarts(from: string, to: string, timeZone: string): Date[] {
  const starts: Date[] = [];
  const last = DateTime.fromISO(to, { zone: timeZone }).startOf('day').plus({ days: 1 });
  for (let day = DateTime.fromISO(from, { zone: timeZone }).startOf('day'); day < last; day = day.plus({ days: 1 })) starts.push(day.toJSDate());
  starts.push(last.toJSDate());
  return starts;
}

/** The local day (`YYYY-MM-DD`) of an instant in a time zone: the model the SQL bucketing is tested against. */
export const localDay = (at: Date, timeZone: string): string => DateTime.fromJSDate(at, { zone: timeZone }).toISODate()!;

export interface TimesheetRow {
  key: string;
  label: string;
  minutes: number;
  by_day: Record<string, number>;
}

/** Rows from the cells: minutes descending, then label and key (a stable order for equal totals). */
export function timesheetRows(cells: TimesheetCell[], labels: Map<string, string>): TimesheetRow[] {
  const rows = new Map<string, TimesheetRow>();
  for (const cell of cells) {
    let row = rows.get(cell.key);
    if (!row) rows.set(cell.key, (row = { key: cell.key, label: labels.get(cell.key) ?? cell.key, minutes: 0, by_day: {} }));
    row.minutes += cell.minutes;
    row.by_day[cell.day] = (row.by_day[cell.day] ?? 0) + cell.minutes;
  }
  return [...rows.values()].sort((a, b) => b.minutes - a.minutes || a.label.localeCompare(b.label) || a.key.localeCompare(b.key));
}

/**
 * A CSV field (RFC 4180): quoted when it holds a comma, quote or line break. Text that a spreadsheet would run as a
 * formula (=, +, -, @ first) is prefixed with an apostrophe: labels are user input (issue titles, names).
 */
function field(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The timesheet as CSV: `key,label,<each day>...,total`, one line per row, CRLF line ends. */
export function timesheetCsv(days: string[], rows: TimesheetRow[]): string {
  const lines = [['key', 'label', ...days, 'total'].map(field).join(',')];
  for (const row of rows) lines.push([row.key, row.label, ...days.map((d) => row.by_day[d] ?? 0), row.minutes].map(field).join(','));
  return lines.join('\r\n') + '\r\n';
}
