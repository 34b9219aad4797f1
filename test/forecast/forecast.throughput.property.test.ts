import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/kernel/ids.js';
import { throughputWindow, weekStartOf } from '../../src/modules/forecast/forecast.logic.js';
import { createProject } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { forecastProject } from './fixtures.js';

const ctx = useTestApp({ sessionTtlDays: 3650 });

const ZONES = [
  'UTC',
  'Europe/Istanbul',
  'Europe/London',
  'America/New_York',
  'America/St_Johns',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
];
const GROUPS = ['backlog', 'unstarted', 'started', 'completed', 'cancelled'] as const;
type Group = (typeof GROUPS)[number];

interface Entry {
  issue: number;
  at: Date;
  kind: 'created' | 'state' | 'priority' | 'comment';
  from: Group;
  to: Group;
}

/**
 * The throughput the database counts (local weeks by SQL, the partial index's predicate) against a model in luxon:
 * each issue once per week in which it entered `completed` from another group (or was created in it), within the N
 * full local weeks before the current one; entries of other projects never count.
 */
describe('weekly throughput from the history (property)', () => {
  it('counts, per Monday-first local week, the issues of the project that entered the completed group', async () => {
    const t = ctx();
    t.clock.set('2026-03-20T12:00:00.000Z');
    const p = await forecastProject(t);
    const issues = await p.open(5);
    const otherProject = await createProject(t.api, p.ws);
    const foreign = (await t.api.post(`/api/workspaces/${p.ws.slug}/projects/${otherProject.id}/issues/`, { name: 'elsewhere' }, { token: p.ws.admin.token }))
      .body.id as string;
    const db = t.database.db;

    const around = DateTime.fromISO('2026-03-29T00:00:00Z'); // the DST changes of Europe and of the south fall near it
    const instant = (zone: string) =>
      fc.oneof(
        fc.integer({ min: -50 * 24 * 60, max: 20 * 24 * 60 }).map((m) => around.plus({ minutes: m }).toJSDate()),
        // within 90 minutes of a local Monday midnight
        fc
          .tuple(fc.integer({ min: -7, max: 2 }), fc.integer({ min: -90, max: 90 }))
          .map(([w, m]) => DateTime.fromISO('2026-03-30', { zone }).plus({ weeks: w }).startOf('week').plus({ minutes: m }).toJSDate()),
      );
    const entry = (zone: string): fc.Arbitrary<Entry> =>
      fc.record({
        issue: fc.integer({ min: 0, max: 5 }), // 5: the issue of the other project
        at: instant(zone),
        kind: fc.constantFrom('created' as const, 'state' as const, 'state' as const, 'state' as const, 'priority' as const, 'comment' as const),
        from: fc.constantFrom(...GROUPS, 'completed' as const),
        to: fc.constantFrom(...GROUPS, 'completed' as const, 'completed' as const),
      });
    const scenario = fc.constantFrom(...ZONES).chain((zone) =>
      fc.record({
        zone: fc.constant(zone),
        entries: fc.array(entry(zone), { maxLength: 25 }),
        now: instant(zone),
        weeks: fc.integer({ min: 4, max: 8 }),
      }),
    );

    await fc.assert(
      fc.asyncProperty(scenario, async ({ zone, entries, now, weeks }) => {
        await db.deleteFrom('issue_history').where('workspace_id', '=', p.ws.workspaceId).execute();
        await db.updateTable('workspaces').set({ time_zone: zone }).where('id', '=', p.ws.workspaceId).execute();
        const issueId = (i: number) => (i === 5 ? foreign : issues[i]!);
        const json = (e: Entry, side: 'from' | 'to') => {
          if (e.kind === 'priority') return JSON.stringify(side === 'from' ? 'low' : 'high');
          if (e.kind === 'comment') return side === 'from' ? null : JSON.stringify({ comment_id: newId() });
          if (e.kind === 'created' && side === 'from') return null;
          return JSON.stringify({ state_id: newId(), group: e[side], pauses_sla: false });
        };
        if (entries.length) {
          await db
            .insertInto('issue_history')
            .values(
              entries.map((e) => ({
                id: newId(),
                workspace_id: p.ws.workspaceId,
                issue_id: issueId(e.issue),
                at: e.at,
                actor_id: null,
                kind: e.kind,
                from: json(e, 'from'),
                to: json(e, 'to'),
              })),
            )
            .execute();
        }
        t.clock.set(now);

        const window = throughputWindow(now, zone, weeks);
        const model = new Map<string, Set<number>>(window.weekStarts.map((w) => [w, new Set()]));
        for (const e of entries) {
          const enters = (e.kind === 'created' && e.to === 'completed') || (e.kind === 'state' && e.to === 'completed' && e.from !== 'completed');
          if (!enters || e.issue === 5) continue;
          model.get(weekStartOf(e.at, zone))?.add(e.issue);
        }
        const res = await p.forecast(`?weeks=${weeks}`);
        expect(res.status, res.text).toBe(200);
        expect(res.body.throughput).toEqual(window.weekStarts.map((w) => ({ week_start: w, completed: model.get(w)!.size })));
      }),
      { numRuns: 40 },
    );
  });
});
