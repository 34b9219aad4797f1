import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { nearestRank } from '../../src/modules/sla/sla-reports.logic.js';
import { useTestApp } from '../helpers/test-app.js';
import { type Block, deskSetup, HOUR, report, runDuty } from './sla-reports-fixtures.js';

/**
 * The report against a brute-force recount from the trackers themselves (GET .../sla/ of every issue), for random
 * histories driven by the injected clock: issues created, answered, moved (reopened too), re-prioritised, rules
 * changed, time passing with and without the SLA events duty running. Time zone with a daylight-saving change inside
 * the histories (New York, 8 March 2026). No calendar and no pausing state, so the working seconds until a stop are
 * simply the seconds since creation.
 */
const ctx = useTestApp();
const TZ = 'America/New_York';

type Priority = 'urgent' | 'high' | 'medium' | 'low' | 'none';
type Group = 'backlog' | 'started' | 'completed' | 'cancelled';
type Command =
  | { kind: 'create'; priority: Priority }
  | { kind: 'respond'; issue: number }
  | { kind: 'move'; issue: number; group: Group }
  | { kind: 'priority'; issue: number; priority: Priority }
  | { kind: 'rules'; scale: number }
  | { kind: 'advance'; hours: number; duty: boolean };

const PRIORITIES: Priority[] = ['urgent', 'high', 'medium', 'low', 'none'];
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('create' as const), priority: fc.constantFrom(...PRIORITIES) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('respond' as const), issue: fc.nat(12) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      issue: fc.nat(12),
      group: fc.constantFrom<Group>('backlog', 'started', 'completed', 'cancelled'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('priority' as const), issue: fc.nat(12), priority: fc.constantFrom(...PRIORITIES) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rules' as const), scale: fc.constantFrom(0.5, 1, 3) }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), hours: fc.constantFrom(0.25, 0.5, 1, 3, 10, 30, 80), duty: fc.boolean() }),
  },
);

const rules = (scale: number) => [
  { priority: 'urgent', response_time_h: 0.5 * scale, resolution_time_h: 2 * scale },
  { priority: 'high', response_time_h: 1 * scale, resolution_time_h: 6 * scale },
  { priority: 'medium', response_time_h: 3 * scale, resolution_time_h: 24 * scale },
  { priority: 'low', response_time_h: 8 * scale, resolution_time_h: 72 * scale },
];

interface Outcome {
  kind: 'met' | 'breached';
  at: string;
  seconds: number | null;
  priority: string;
}

/** The blocks a report must show for these outcomes, keyed by `keyOf`. */
function expected(outcomes: { response: Outcome[]; resolution: Outcome[] }, keyOf: (o: Outcome) => string) {
  const blockOf = (list: Outcome[]): Block => {
    const met = list.filter((o) => o.kind === 'met').length;
    const breached = list.length - met;
    const seconds = list.flatMap((o) => (o.seconds === null ? [] : [o.seconds]));
    return {
      met,
      breached,
      achievement_percent: list.length ? Math.round((met / list.length) * 1000) / 10 : null,
      median_seconds: nearestRank(seconds, 50),
      p90_seconds: nearestRank(seconds, 90),
    };
  };
  const keys = new Set([...outcomes.response, ...outcomes.resolution].map(keyOf));
  const rows = new Map(
    [...keys].map((k) => [
      k,
      { response: blockOf(outcomes.response.filter((o) => keyOf(o) === k)), resolution: blockOf(outcomes.resolution.filter((o) => keyOf(o) === k)) },
    ]),
  );
  return { totals: { response: blockOf(outcomes.response), resolution: blockOf(outcomes.resolution) }, rows };
}

describe('SLA reports against a recount from the trackers', () => {
  it('count every met and breached target once, in the period of its outcome, for any history', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 5, maxLength: 30 }), fc.integer({ min: 0, max: 96 }), async (commands, startHour) => {
        const { api, clock } = ctx();
        clock.set(new Date(Date.parse('2026-03-02T00:00:00.000Z') + startHour * HOUR));
        const start = clock.now();
        const desk = await deskSetup(ctx(), TZ, { rules: rules(1) });
        const issues: { id: string; created_at: string }[] = [];
        const pick = (n: number) => issues[n % issues.length];
        for (const c of commands) {
          if (c.kind === 'create' || !issues.length) {
            const id = await desk.issue(c.kind === 'create' ? c.priority : 'urgent');
            issues.push({ id, created_at: clock.now().toISOString() });
          } else if (c.kind === 'respond') await desk.respond(pick(c.issue)!.id);
          else if (c.kind === 'move') await desk.move(pick(c.issue)!.id, c.group);
          else if (c.kind === 'priority') {
            const res = await api.patch(
              `/api/workspaces/${desk.ws.slug}/projects/${desk.project.id}/issues/${pick(c.issue)!.id}/`,
              { priority: c.priority },
              { token: desk.ws.admin.token },
            );
            expect(res.status, res.text).toBe(200);
          } else if (c.kind === 'rules') {
            const res = await api.patch(
              `/api/workspaces/${desk.ws.slug}/sla-policies/${desk.policyId}/`,
              { rules: rules(c.scale) },
              { token: desk.ws.admin.token },
            );
            expect(res.status, res.text).toBe(200);
          } else {
            clock.advance(c.hours * HOUR);
            if (c.duty) await runDuty(ctx());
          }
        }
        await runDuty(ctx());

        // The recount: each tracker's targets as the tracker shows them now.
        const outcomes: { response: Outcome[]; resolution: Outcome[] } = { response: [], resolution: [] };
        for (const issue of issues) {
          const res = await api.get(`/api/workspaces/${desk.ws.slug}/issues/${issue.id}/sla/`, { token: desk.ws.admin.token });
          if (res.status === 404) continue;
          expect(res.status, res.text).toBe(200);
          const t = res.body;
          for (const target of ['response', 'resolution'] as const) {
            const stop: string | null = target === 'response' ? t.responded_at : t.resolved_at;
            const seconds = stop === null ? null : Math.floor((Date.parse(stop) - Date.parse(issue.created_at)) / 1000);
            if (t[`${target}_breached`]) outcomes[target].push({ kind: 'breached', at: t[`${target}_due_at`], seconds, priority: t.priority });
            else if (stop !== null) outcomes[target].push({ kind: 'met', at: stop, seconds, priority: t.priority });
          }
        }

        const local = (at: string) => DateTime.fromISO(at, { zone: TZ });
        const from = local(start.toISOString()).toISODate()!;
        const to = local(clock.now().toISOString()).toISODate()!;
        const checks: [string, (o: Outcome) => string][] = [
          ['day', (o) => local(o.at).toISODate()!],
          ['week', (o) => local(o.at).startOf('week').toISODate()!],
          ['month', (o) => local(o.at).startOf('month').toISODate()!],
          ['priority', (o) => o.priority],
        ];
        for (const [group_by, keyOf] of checks) {
          const r = await report(api, desk.ws, { from, to, group_by });
          const want = expected(outcomes, keyOf);
          expect(r.totals).toEqual(want.totals);
          const nonEmpty = r.rows.filter((row) => row.response.met + row.response.breached + row.resolution.met + row.resolution.breached > 0);
          expect(new Map(nonEmpty.map((row) => [row.key, { response: row.response, resolution: row.resolution }]))).toEqual(want.rows);
        }
      }),
      { numRuns: 15 },
    );
  });
});
