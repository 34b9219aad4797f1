import type { FieldError } from '../../kernel/errors.js';
import type { Holiday, Weekday, WorkingHours } from '../../db/tables/sla.js';

/** Pure calendar rules (contract 11.1): validation and normal form. No I/O. */

export const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

let zones: Set<string> | undefined;
/** The IANA names the platform knows (`Intl.supportedValuesOf`), plus `UTC`, checked by `Intl.DateTimeFormat`. */
export function isTimeZone(name: string): boolean {
  if (!zones) {
    zones = new Set(Intl.supportedValuesOf('timeZone'));
    zones.add('UTC');
  }
  if (zones.has(name)) return true;
  // Links the list leaves out (Etc/UTC, Asia/Calcutta, ...) are still names the platform resolves.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Minutes after local midnight of `HH:MM` (00:00..24:00), or null. */
export function minutesOf(hhmm: string): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(hhmm);
  if (m) return Number(m[1]) * 60 + Number(m[2]);
  return hhmm === '24:00' ? 1440 : null;
}

/** A real calendar date `YYYY-MM-DD`. */
export function isDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate() && y >= 1;
}

export const sortWorkingHours = (hours: readonly WorkingHours[]): WorkingHours[] =>
  [...hours].sort((a, b) => WEEKDAYS.indexOf(a.day) - WEEKDAYS.indexOf(b.day) || minutesOf(a.start)! - minutesOf(b.start)!);

/** Domain checks the schema cannot express; paths name the offending field. */
export function validateCalendar(input: { time_zone?: string; working_hours?: WorkingHours[]; holidays?: Holiday[] }): FieldError[] {
  const errors: FieldError[] = [];
  if (input.time_zone !== undefined && !isTimeZone(input.time_zone)) {
    errors.push({ path: '/time_zone', message: 'is not a known IANA time zone' });
  }
  if (input.working_hours !== undefined) {
    if (input.working_hours.length === 0) errors.push({ path: '/working_hours', message: 'needs at least one interval' });
    const byDay = new Map<Weekday, { start: number; end: number; index: number }[]>();
    input.working_hours.forEach((h, index) => {
      const start = minutesOf(h.start);
      const end = minutesOf(h.end);
      if (start === null || start === 1440) errors.push({ path: `/working_hours/${index}/start`, message: 'must be HH:MM from 00:00 to 23:59' });
      if (end === null) errors.push({ path: `/working_hours/${index}/end`, message: 'must be HH:MM from 00:00 to 24:00' });
      if (start === null || end === null || start === 1440) return;
      if (start >= end) {
        errors.push({ path: `/working_hours/${index}/end`, message: 'must be after start' });
        return;
      }
      const list = byDay.get(h.day) ?? [];
      const clash = list.find((o) => start < o.end && o.start < end);
      if (clash) errors.push({ path: `/working_hours/${index}`, message: `overlaps /working_hours/${clash.index} on ${h.day}` });
      else list.push({ start, end, index });
      byDay.set(h.day, list);
    });
  }
  input.holidays?.forEach((h, index) => {
    if (!isDate(h.date)) errors.push({ path: `/holidays/${index}/date`, message: 'must be a real date YYYY-MM-DD' });
  });
  return errors;
}
