import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { WorkingHours } from '../../src/db/tables/sla.js';
import { type CalendarSpec, compileCalendar, type Pause, slaClock, slaInstants } from '../../src/modules/sla/sla.clock.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const WEEKDAYS_9_17: WorkingHours[] = (['mon', 'tue', 'wed', 'thu', 'fri'] as const).map((day) => ({ day, start: '09:00', end: '17:00' }));
const istanbul = compileCalendar({ time_zone: 'Europe/Istanbul', working_hours: WEEKDAYS_9_17, holidays: [] });
const at = (iso: string) => Date.parse(iso);
const base = { atRiskPercent: 75, stop: null, pauses: [] as Pause[] };

describe('SLA clock on working time', () => {
  it('Friday 16:00 local with a 4-hour target under Mon-Fri 09:00-17:00 Europe/Istanbul is due Monday 12:00 local (09:00 UTC)', () => {
    // 2026-11-20 is a Friday; Istanbul is UTC+3.
    const r = slaClock({ ...base, calendar: istanbul, targetMs: 4 * HOUR, start: at('2026-11-20T13:00:00Z'), now: at('2026-11-21T10:00:00Z') });
    expect(new Date(r.due_at!).toISOString()).toBe('2026-11-23T09:00:00.000Z');
    expect(r.counted_ms).toBe(HOUR);
    expect(r.remaining_seconds).toBe(3 * 3600);
    expect(r).toMatchObject({ breached: false, at_risk: false, paused: false });
    // 75% of 4 h is 3 h: Monday 11:00 local.
    expect(new Date(r.at_risk_at!).toISOString()).toBe('2026-11-23T08:00:00.000Z');
  });

  it('starts counting at the next working minute when created outside working hours', () => {
    const r = slaClock({ ...base, calendar: istanbul, targetMs: HOUR, start: at('2026-11-21T12:00:00Z'), now: at('2026-11-21T12:00:00Z') });
    expect(new Date(r.due_at!).toISOString()).toBe('2026-11-23T07:00:00.000Z');
  });

  it('counts local wall-clock hours: a 00:00-24:00 Sunday is 23 real hours on the spring-forward day and 25 on the fall-back day', () => {
    const cal = compileCalendar({ time_zone: 'America/New_York', working_hours: [{ day: 'sun', start: '00:00', end: '24:00' }], holidays: [] });
    const spring = slaClock({ ...base, calendar: cal, targetMs: 1000 * HOUR, start: at('2026-03-08T00:00:00Z'), now: at('2026-03-10T00:00:00Z') });
    expect(spring.counted_ms).toBe(23 * HOUR);
    const fall = slaClock({ ...base, calendar: cal, targetMs: 1000 * HOUR, start: at('2026-11-01T00:00:00Z'), now: at('2026-11-03T00:00:00Z') });
    expect(fall.counted_ms).toBe(25 * HOUR);
  });

  it('does not count paused time, projects an open pause to the read, and cannot breach while paused', () => {
    const start = at('2026-11-23T06:00:00Z'); // Monday 09:00 local
    const pauses = [{ from: start + HOUR, to: null }];
    const r = slaClock({ ...base, calendar: istanbul, targetMs: 2 * HOUR, start, pauses, now: start + 5 * HOUR });
    expect(r).toMatchObject({ paused: true, counted_ms: HOUR, breached: false, at_risk: false, remaining_seconds: 3600 });
    expect(r.due_at).toBe(start + 6 * HOUR);
    const later = slaClock({ ...base, calendar: istanbul, targetMs: 2 * HOUR, start, pauses, now: start + 6 * HOUR });
    expect(later.due_at).toBe(start + 7 * HOUR);
  });

  it('removes holidays (dated and recurring) as whole local days', () => {
    const cal = compileCalendar({
      time_zone: 'Europe/Istanbul',
      working_hours: WEEKDAYS_9_17,
      holidays: [
        { date: '2026-11-23', name: '', recurring: false },
        { date: '2001-11-24', name: '', recurring: true },
      ],
    });
    const r = slaClock({ ...base, calendar: cal, targetMs: HOUR, start: at('2026-11-20T14:00:00Z'), now: at('2026-11-20T14:00:00Z') });
    expect(new Date(r.due_at!).toISOString()).toBe('2026-11-25T07:00:00.000Z');
  });

  it('reads as round 1 without a calendar or pause: due = start + target, breached once now is past it, met targets fixed', () => {
    const start = at('2026-01-01T00:00:00Z');
    const open = slaClock({ ...base, calendar: null, targetMs: HOUR, start, now: start + HOUR + 1 });
    expect(open).toMatchObject({ due_at: start + HOUR, breach_at: start + HOUR, breached: true, remaining_seconds: 0 });
    const met = slaClock({ ...base, calendar: null, targetMs: HOUR, start, stop: start + 2 * HOUR, now: start + 9 * HOUR });
    expect(met).toMatchObject({ breached: true, remaining_seconds: null, counted_ms: 2 * HOUR, at_risk: false });
  });
});

// ---- property: the clock agrees with a slow minute-by-minute oracle ------------------------------------------------

interface Oracle {
  counted: number;
  due: number | null;
  breachAt: number | null;
  riskAt: number | null;
}

/** Walks minute by minute: a minute counts when its local wall-clock time is in an interval of a non-holiday day. */
function oracle(
  spec: CalendarSpec | null,
  start: number,
  stop: number | null,
  pauses: Pause[],
  now: number,
  target: number,
  riskMs: number | null,
  horizon: number,
): Oracle {
  const until = stop ?? now;
  const days = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  const working = (m: number) => {
    if (pauses.some((p) => m >= p.from && m < (p.to ?? now))) return false;
    if (!spec) return true;
    const local = DateTime.fromMillis(m, { zone: spec.time_zone });
    const date = local.toISODate()!;
    if (spec.holidays.some((h) => (h.recurring ? h.date.slice(5) === date.slice(5) : h.date === date))) return false;
    const day = days[local.weekday - 1];
    const minute = local.hour * 60 + local.minute;
    return spec.working_hours.some((h) => h.day === day && minute >= toMin(h.start) && minute < toMin(h.end));
  };
  let counted = 0;
  let cumulative = 0;
  let due: number | null = null;
  let breachAt: number | null = null;
  let riskAt: number | null = null;
  for (let m = start; m < horizon; m += MIN) {
    if (!working(m)) continue;
    if (m < until) counted += MIN;
    if (due !== null && breachAt === null) breachAt = m === due ? m : m; // the next working minute after the due one
    if (riskMs !== null && riskAt === null && cumulative + MIN >= riskMs) riskAt = m + (riskMs - cumulative);
    if (due === null && cumulative + MIN >= target) {
      due = m + (target - cumulative);
      if (target - cumulative < MIN) breachAt = due;
    }
    cumulative += MIN;
    if (breachAt !== null && m >= until && (riskMs === null || riskAt !== null)) break;
  }
  return { counted, due, breachAt, riskAt };
}
const toMin = (hhmm: string) => (hhmm === '24:00' ? 1440 : Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3)));

const zones = ['America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Europe/Istanbul', 'UTC'];
const hoursArb = fc
  .array(
    fc.record({
      day: fc.constantFrom('mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'),
      a: fc.integer({ min: 0, max: 23 }),
      len: fc.integer({ min: 1, max: 12 }),
    }),
    {
      minLength: 1,
      maxLength: 8,
    },
  )
  .map((list) => {
    // whole hours (DST changes happen on whole hours in these zones), overlapping intervals of a day dropped
    const kept: { day: string; a: number; b: number }[] = [];
    for (const { day, a, len } of list) {
      const b = Math.min(24, a + len);
      if (!kept.some((k) => k.day === day && a < k.b && k.a < b)) kept.push({ day, a, b });
    }
    const hh = (h: number) => `${String(h).padStart(2, '0')}:00`;
    return kept.map((k) => ({ day: k.day, start: hh(k.a), end: hh(k.b) }) as WorkingHours);
  });

describe('SLA clock: property against a minute-by-minute oracle', () => {
  it('agrees on counted time, due, breach and at-risk instants over random calendars, holidays, pauses and targets', () => {
    // Starts around the DST changes of the three hemispheres' zones.
    const anchors = [
      '2026-03-06T00:00:00Z',
      '2026-03-27T00:00:00Z',
      '2026-04-02T00:00:00Z',
      '2026-10-23T00:00:00Z',
      '2026-10-30T00:00:00Z',
      '2026-12-30T00:00:00Z',
    ].map(Date.parse);
    fc.assert(
      fc.property(
        fc.option(
          fc.record({
            time_zone: fc.constantFrom(...zones),
            working_hours: hoursArb,
            holidays: fc.array(fc.record({ offset: fc.integer({ min: 0, max: 20 }), recurring: fc.boolean() }), { maxLength: 3 }),
          }),
          { nil: null },
        ),
        fc.constantFrom(...anchors),
        fc.integer({ min: 0, max: 5 * 24 * 60 }),
        fc.integer({ min: 1, max: 30 * 60 }),
        fc.array(fc.record({ from: fc.integer({ min: 0, max: 8 * 24 * 60 }), len: fc.option(fc.integer({ min: 1, max: 2 * 24 * 60 }), { nil: null }) }), {
          maxLength: 3,
        }),
        fc.integer({ min: 0, max: 12 * 24 * 60 }),
        fc.option(fc.integer({ min: 0, max: 12 * 24 * 60 }), { nil: null }),
        fc.constantFrom(null, 1, 50, 75, 99),
        (cal, anchor, startMin, targetMin, rawPauses, nowMin, stopMin, percent) => {
          const start = anchor + startMin * MIN;
          const spec: CalendarSpec | null = cal && {
            time_zone: cal.time_zone,
            working_hours: cal.working_hours,
            holidays: cal.holidays.map((h) => ({
              date: DateTime.fromMillis(anchor, { zone: cal.time_zone }).plus({ days: h.offset }).toISODate()!,
              name: '',
              recurring: h.recurring,
            })),
          };
          const now = start + nowMin * MIN;
          const stop = stopMin === null || stopMin > nowMin ? null : start + stopMin * MIN;
          const pauses = rawPauses
            .map((p) => ({ from: start + p.from * MIN, to: p.len === null ? null : start + (p.from + p.len) * MIN }))
            .filter((p) => p.from <= now && (p.to === null || p.to <= now));
          // at most one open pause, the latest
          const open = pauses
            .filter((p) => p.to === null)
            .sort((a, b) => b.from - a.from)
            .slice(0, 1);
          const history = [...pauses.filter((p) => p.to !== null), ...open];
          const target = targetMin * MIN;
          const input = { calendar: spec && compileCalendar(spec), targetMs: target, atRiskPercent: percent, start, stop, pauses: history, now };
          const r = slaClock(input);
          // the early-stopping walk of re-targeting finds the same instants
          expect(slaInstants(input)).toEqual({ due_at: r.due_at, breach_at: r.breach_at, at_risk_at: r.at_risk_at });
          const riskMs = percent === null ? null : Math.ceil((target * percent) / 100);
          const o = oracle(spec, start, stop, history, now, target, riskMs, start + 90 * 24 * HOUR);
          expect(r.counted_ms).toBe(o.counted);
          if (o.due !== null) expect(r.due_at).toBe(o.due);
          if (o.breachAt !== null) expect(r.breach_at).toBe(o.breachAt);
          if (o.riskAt !== null) expect(r.at_risk_at).toBe(o.riskAt);
          expect(r.breached).toBe(o.counted > target);
          expect(r.remaining_seconds).toBe(stop === null ? Math.trunc((target - o.counted) / 1000) || 0 : null);
        },
      ),
      { numRuns: 80 },
    );
  }, 120_000);
});
