/**
 * The SLA clock function alone: due-instant computations per second for a Mon-Fri 09:00-17:00 Europe/Istanbul
 * calendar with holidays, 4-hour target, starts spread over a week. Run: `npx tsx bench/sla-clock.ts`.
 */
import { compileCalendar, slaClock } from '../src/modules/sla/sla.clock.js';

const cal = compileCalendar({
  time_zone: 'Europe/Istanbul',
  working_hours: (['mon', 'tue', 'wed', 'thu', 'fri'] as const).map((day) => ({ day, start: '09:00', end: '17:00' })),
  holidays: [
    { date: '2026-10-29', name: 'Republic Day', recurring: true },
    { date: '2026-12-31', name: '', recurring: false },
  ],
});
const start = Date.parse('2026-11-20T13:00:00Z');
let n = 0;
const t0 = performance.now();
while (performance.now() - t0 < 3000) {
  for (let i = 0; i < 1000; i++) {
    slaClock({
      calendar: cal,
      targetMs: 4 * 3_600_000,
      atRiskPercent: 75,
      start: start + (i % 10_080) * 60_000,
      stop: null,
      pauses: [],
      now: start + 3_600_000,
    });
  }
  n += 1000;
}
console.log(`sla clock: ${Math.round(n / ((performance.now() - t0) / 1000))} due-instant computations per second (goal 200000)`);
