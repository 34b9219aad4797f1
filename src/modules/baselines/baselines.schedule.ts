import { DateTime, IANAZone } from 'luxon';

/** When scheduled baselines are due: local wall-clock times in the schedule's time zone, so DST days are right. */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface ScheduleRule {
  every: 'day' | 'week';
  weekday: Weekday | null;
  at: string;
  time_zone: string;
}

export const isTimeZone = (zone: string): boolean => IANAZone.isValidZone(zone);

/**
 * The first run strictly after `after`: the next local date (on the weekday, for weekly) at `at`. A local time that
 * does not exist (the hour skipped when clocks go forward) runs at the first instant after the gap; one that exists
 * twice (clocks go back) runs at the first of the two.
 */
export function nextRunAt(rule: ScheduleRule, after: Date): Date {
  const [hour, minute] = rule.at.split(':').map(Number) as [number, number];
  const start = DateTime.fromJSDate(after, { zone: rule.time_zone }).startOf('day');
  for (let i = 0; i <= 8; i++) {
    const day = start.plus({ days: i });
    if (rule.every === 'week' && WEEKDAYS[day.weekday - 1] !== rule.weekday) continue;
    let run = DateTime.fromObject({ year: day.year, month: day.month, day: day.day, hour, minute }, { zone: rule.time_zone });
    // Luxon takes the later of two instants that share a wall-clock time; the earlier one comes first.
    const earlier = run.minus({ hours: 1 });
    if (earlier.hour === run.hour && earlier.minute === run.minute && earlier.day === run.day) run = earlier;
    if (run.toMillis() > after.getTime()) return run.toJSDate();
  }
  throw new Error('no run within 8 days'); // unreachable: every week has the weekday
}

/** `{prefix} YYYY-MM-DD`, the local date of the run. */
export function scheduledName(prefix: string, at: Date, zone: string): string {
  return `${prefix} ${DateTime.fromJSDate(at, { zone }).toFormat('yyyy-LL-dd')}`;
}
