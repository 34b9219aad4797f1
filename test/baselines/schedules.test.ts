import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { unwrap } from '../../client/src/index.js';
import { nextRunAt, WEEKDAYS } from '../../src/modules/baselines/baselines.schedule.js';
import { clientFor, expectFailure } from '../helpers/client.js';
import { createIssue, createProject, createWorkspace } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();
const runJob = () =>
  ctx()
    .app.jobs.find((j) => j.name === 'baselines.schedules')!
    .run();

describe('next_run_at', () => {
  it('is the next local date at the local time, strictly later, on the weekday for weekly schedules (property)', () => {
    const zones = ['UTC', 'Europe/Istanbul', 'America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Asia/Kolkata'];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.option(fc.constantFrom(...WEEKDAYS), { nil: null }),
        fc.date({ min: new Date('2025-01-01T00:00:00Z'), max: new Date('2028-12-31T00:00:00Z'), noInvalidDate: true }),
        (zone, hour, minute, weekday, after) => {
          const at = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
          const next = nextRunAt({ every: weekday ? 'week' : 'day', weekday, at, time_zone: zone }, after);
          expect(next.getTime()).toBeGreaterThan(after.getTime());
          expect(next.getTime() - after.getTime()).toBeLessThanOrEqual((weekday ? 8 : 2) * 86_400_000);
          const local = DateTime.fromJSDate(next, { zone });
          if (weekday) expect(WEEKDAYS[local.weekday - 1]).toBe(weekday);
          // the wall clock shows the time, unless that time did not exist that day (clocks went forward)
          const skipped = local.minus({ hours: 1 }).offset !== local.offset;
          if (!skipped) expect(local.toFormat('HH:mm')).toBe(at);
          // nothing between `after` and `next` matched: one minute earlier is before `after`, or not a run time
          const before = DateTime.fromJSDate(new Date(next.getTime() - 60_000), { zone });
          expect(before.toFormat('HH:mm') === at && before.toMillis() > after.getTime() && (!weekday || WEEKDAYS[before.weekday - 1] === weekday)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps 09:00 local across a DST change', () => {
    const rule = { every: 'day' as const, weekday: null, at: '09:00', time_zone: 'America/New_York' };
    expect(nextRunAt(rule, new Date('2026-03-07T15:00:00Z')).toISOString()).toBe('2026-03-08T13:00:00.000Z');
    expect(nextRunAt(rule, new Date('2026-03-06T15:00:00Z')).toISOString()).toBe('2026-03-07T14:00:00.000Z');
  });
});

describe('baseline schedules', () => {
  async function fixture() {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    await createIssue(api, ws, project.id);
    const client = clientFor(ctx().url, ws.admin.token);
    const path = { slug: ws.slug, projectId: project.id };
    return { api, ws, project, client, path };
  }

  it('takes each baseline on time, once, catches up once after downtime and keeps the last N', async () => {
    ctx().clock.set('2026-03-06T12:00:00Z'); // Friday
    const { api, ws, client, path } = await fixture();
    const created = await client.POST('/api/workspaces/{slug}/projects/{projectId}/baseline-schedules/', {
      params: { path },
      body: { name_prefix: 'Daily', every: 'day', at: '09:00', time_zone: 'Europe/Istanbul', keep_last: 2 },
    });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ every: 'day', weekday: null, at: '09:00', keep_last: 2, next_run_at: '2026-03-07T06:00:00.000Z' });
    const schedule = created.data!;
    const baselines = async () =>
      (await api.get(`/api/workspaces/${ws.slug}/projects/${path.projectId}/baselines/`, { token: ws.admin.token })).body as {
        name: string;
        schedule_id: string | null;
      }[];

    await runJob();
    expect(await baselines()).toEqual([]);
    ctx().clock.set('2026-03-07T06:00:00Z');
    await Promise.all([runJob(), runJob()]);
    expect((await baselines()).map((b) => [b.name, b.schedule_id])).toEqual([['Daily 2026-03-07', schedule.id]]);
    // down for three days: one catch-up baseline, and the next run is tomorrow's
    ctx().clock.set('2026-03-10T12:00:00Z');
    await runJob();
    await runJob();
    expect((await baselines()).map((b) => b.name)).toEqual(['Daily 2026-03-10', 'Daily 2026-03-07']);
    const [after] = await unwrap(client.GET('/api/workspaces/{slug}/projects/{projectId}/baseline-schedules/', { params: { path } }));
    expect(after!.next_run_at).toBe('2026-03-11T06:00:00.000Z');
    ctx().clock.set('2026-03-11T06:00:00Z');
    await runJob();
    expect((await baselines()).map((b) => b.name)).toEqual(['Daily 2026-03-11', 'Daily 2026-03-10']);
    const events = await ctx()
      .database.db.selectFrom('events')
      .select('type')
      .where('workspace_id', '=', ws.workspaceId)
      .where('type', '=', 'baseline.created')
      .execute();
    expect(events).toHaveLength(3);
  });

  it('validates the rule, recomputes next_run_at on PATCH, and is admin-only to change', async () => {
    ctx().clock.set('2026-11-22T12:00:00Z');
    const { ws, client, path } = await fixture();
    const post = (body: Record<string, unknown>) =>
      client.POST('/api/workspaces/{slug}/projects/{projectId}/baseline-schedules/', { params: { path }, body: body as never });
    const good = { name_prefix: 'Weekly', every: 'week', weekday: 'mon', at: '09:00', time_zone: 'Europe/Istanbul', keep_last: 4 };
    expect(expectFailure(await post({ ...good, time_zone: 'Mars/Olympus' }), 400).errors?.[0]?.path).toBe('/time_zone');
    expect(expectFailure(await post({ ...good, keep_last: 0 }), 400).errors?.[0]?.path).toBe('/keep_last');
    expect(expectFailure(await post({ ...good, keep_last: 366 }), 400).errors?.[0]?.path).toBe('/keep_last');
    expect(expectFailure(await post({ ...good, weekday: undefined }), 400).errors?.[0]?.path).toBe('/weekday');
    expect(expectFailure(await post({ ...good, at: '24:00' }), 400).errors?.[0]?.path).toBe('/at');
    const s = await unwrap(post(good));
    expect(s.next_run_at).toBe('2026-11-23T06:00:00.000Z');
    const schedulePath = { ...path, scheduleId: s.id };
    const patched = await unwrap(
      client.PATCH('/api/workspaces/{slug}/projects/{projectId}/baseline-schedules/{scheduleId}/', {
        params: { path: schedulePath },
        body: { weekday: 'wed', at: '18:30' },
      }),
    );
    expect(patched.next_run_at).toBe('2026-11-25T15:30:00.000Z');
    const member = await ws.addUser('member');
    expectFailure(
      await clientFor(ctx().url, member.token).POST('/api/workspaces/{slug}/projects/{projectId}/baseline-schedules/', {
        params: { path },
        body: good as never,
      }),
      403,
    );
    expect(
      (await unwrap(clientFor(ctx().url, member.token).GET('/api/workspaces/{slug}/projects/{projectId}/baseline-schedules/', { params: { path } }))).length,
    ).toBe(1);
    const other = await createWorkspace(ctx().api);
    expectFailure(
      await clientFor(ctx().url, other.admin.token).DELETE('/api/workspaces/{slug}/projects/{projectId}/baseline-schedules/{scheduleId}/', {
        params: { path: { ...schedulePath, slug: other.slug } },
      }),
      404,
    );
    expect(
      (await client.DELETE('/api/workspaces/{slug}/projects/{projectId}/baseline-schedules/{scheduleId}/', { params: { path: schedulePath } })).response.status,
    ).toBe(204);
  });
});
