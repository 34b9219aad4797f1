import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/kernel/ids.js';
import { createIssue } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { getIssue, issuePath, logTime, trackedWorkspace, worklogsPath } from './fixtures.js';

const ctx = useTestApp();

// Zones with odd offsets, half-hour daylight saving, the date line and southern summers; their rules have not
// changed for years, so the database's and luxon's zone data agree on them.
const ZONES = [
  'UTC',
  'Europe/Istanbul',
  'Europe/London',
  'America/New_York',
  'America/St_Johns',
  'America/Sao_Paulo',
  'Asia/Kathmandu',
  'Asia/Kolkata',
  'Asia/Tokyo',
  'Australia/Lord_Howe',
  'Australia/Adelaide',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
];

describe('timesheet local days (property)', () => {
  it('counts every worklog on the luxon local day of its started_at, and nothing outside the range', async () => {
    const t = ctx();
    t.clock.set('2026-01-15T09:00:00.000Z');
    const { ws, project, issue } = await trackedWorkspace(t);
    const db = t.database.db;
    const instant = (zone: string) =>
      fc.oneof(
        // anywhere in a 12-day window ...
        fc.integer({ min: 0, max: 12 * 1440 }).map((m) => DateTime.fromISO('2026-03-20T00:00:00Z').plus({ minutes: m }).toJSDate()),
        // ... or within 90 minutes of a local midnight (DST changes of both hemispheres fall in the window)
        fc
          .tuple(fc.integer({ min: 0, max: 11 }), fc.integer({ min: -90, max: 90 }))
          .map(([d, m]) => DateTime.fromISO('2026-03-21', { zone }).plus({ days: d }).startOf('day').plus({ minutes: m }).toJSDate()),
      );
    const scenario = fc.constantFrom(...ZONES).chain((zone) =>
      fc.record({
        zone: fc.constant(zone),
        logs: fc.array(fc.record({ at: instant(zone), minutes: fc.integer({ min: 1, max: 1440 }) }), { minLength: 1, maxLength: 12 }),
        first: fc.integer({ min: 0, max: 10 }),
        length: fc.integer({ min: 1, max: 6 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(scenario, async ({ zone, logs, first, length }) => {
        await db.deleteFrom('worklogs').where('workspace_id', '=', ws.workspaceId).execute();
        await db.updateTable('workspaces').set({ time_zone: zone }).where('id', '=', ws.workspaceId).execute();
        await db
          .insertInto('worklogs')
          .values(
            logs.map((l) => ({
              id: newId(),
              workspace_id: ws.workspaceId,
              issue_id: issue.id,
              project_id: project.id,
              user_id: ws.admin.user.id,
              started_at: l.at,
              duration_minutes: l.minutes,
              created_at: l.at,
              updated_at: l.at,
            })),
          )
          .execute();
        const from = DateTime.fromISO('2026-03-20').plus({ days: first }).toISODate()!;
        const to = DateTime.fromISO(from)
          .plus({ days: length - 1 })
          .toISODate()!;
        const model: Record<string, number> = {};
        for (const l of logs) {
          const day = DateTime.fromJSDate(l.at, { zone }).toISODate()!;
          if (day >= from && day <= to) model[day] = (model[day] ?? 0) + l.minutes;
        }
        const res = await t.api.get(`/api/workspaces/${ws.slug}/timesheet/?from=${from}&to=${to}&group_by=user`, { token: ws.admin.token });
        expect(res.status, res.text).toBe(200);
        expect(res.body.time_zone).toBe(zone);
        expect(res.body.rows[0]?.by_day ?? {}).toEqual(model);
        expect(res.body.total_minutes).toBe(Object.values(model).reduce((a, b) => a + b, 0));
      }),
      { numRuns: 40 },
    );
  });
});

type Op = { kind: 'estimate'; value: number | null } | { kind: 'remaining'; value: number | null } | { kind: 'log'; minutes: number } | { kind: 'unlog' };

describe('remaining estimate (property)', () => {
  it('reads as the explicit remaining, else max(0, estimate - spent), else null; logging never changes an explicit one', async () => {
    const t = ctx();
    t.clock.set('2026-01-15T09:00:00.000Z');
    const { ws, project } = await trackedWorkspace(t);
    const minutes = fc.integer({ min: 0, max: 3000 });
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('estimate' as const), value: fc.option(minutes, { nil: null }) }),
      fc.record({ kind: fc.constant('remaining' as const), value: fc.option(minutes, { nil: null }) }),
      fc.record({ kind: fc.constant('log' as const), minutes: fc.integer({ min: 1, max: 1440 }) }),
      fc.constant({ kind: 'unlog' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 6 }), async (ops) => {
        const issue = await createIssue(t.api, ws, project.id);
        const model = { estimate: null as number | null, remaining: null as number | null, logs: [] as { id: string; minutes: number }[] };
        const tok = { token: ws.admin.token };
        for (const o of ops) {
          if (o.kind === 'estimate' || o.kind === 'remaining') {
            const res = await t.api.patch(issuePath(ws, project.id, issue.id), { [`${o.kind}_minutes`]: o.value }, tok);
            expect(res.status, res.text).toBe(200);
            model[o.kind] = o.value;
          } else if (o.kind === 'log') {
            const w = await logTime(t.api, ws, project.id, issue.id, { duration_minutes: o.minutes });
            model.logs.push({ id: w.id, minutes: o.minutes });
          } else if (model.logs.length) {
            const w = model.logs.pop()!;
            expect((await t.api.delete(`${worklogsPath(ws, project.id, issue.id)}${w.id}/`, tok)).status).toBe(204);
          }
          const spent = model.logs.reduce((a, l) => a + l.minutes, 0);
          const expected = model.remaining !== null ? model.remaining : model.estimate === null ? null : Math.max(0, model.estimate - spent);
          expect(await getIssue(t.api, ws, project.id, issue.id)).toMatchObject({
            estimate_minutes: model.estimate,
            remaining_minutes: expected,
            time_spent_minutes: spent,
          });
        }
      }),
      { numRuns: 15 },
    );
  });
});
