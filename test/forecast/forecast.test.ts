import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { forecastOf } from '../../src/modules/forecast/forecast.logic.js';
import { createIssue, createProject, createWorkspace, expectProblem } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { forecastPath, forecastProject } from './fixtures.js';

// Tests move the clock weeks ahead of the sign-up: sessions must outlive that.
const ctx = useTestApp({ sessionTtlDays: 3650 });

const isSunday = (d: string) => DateTime.fromISO(d, { zone: 'UTC' }).weekday === 7;

describe('GET forecast (contract 18.5)', () => {
  it('counts the issues that entered the completed group per full week, and forecasts Sundays from them, the same on every call', async () => {
    const t = ctx();
    t.clock.set('2026-01-05T08:00:00.000Z'); // a Monday
    const p = await forecastProject(t);
    const done = p.byGroup('completed');
    const started = p.byGroup('started');
    const verified = await t.api.post(
      `/api/workspaces/${p.ws.slug}/projects/${p.project.id}/states/`,
      { name: 'Verified', group: 'completed', color: '#00AA00' },
      { token: p.ws.admin.token },
    );
    expect(verified.status, verified.text).toBe(201);
    const ids = await p.open(20, { target_date: '2026-03-01' });
    await createIssue(t.api, p.ws, p.project.id, { name: 'late but cancelled', target_date: '2026-12-31', state_id: p.byGroup('cancelled') });
    await createIssue(t.api, p.ws, p.project.id, { name: 'done with a late date', target_date: '2026-04-30', state_id: p.byGroup('backlog') }).then((i) =>
      p.move(i.id, done, '2026-01-06T09:00:00.000Z'),
    );

    // week of 2026-01-05: the issue above and two more
    await p.move(ids[0]!, done, '2026-01-07T12:00:00.000Z');
    await p.move(ids[1]!, done, '2026-01-11T23:59:00.000Z');
    // week of 2026-01-12: three, one of them reopened and completed again (still one issue that week), one moved on
    // between two completed states (no new entry)
    await p.move(ids[2]!, done, '2026-01-12T00:00:00.000Z');
    await p.move(ids[3]!, done, '2026-01-13T10:00:00.000Z');
    await p.move(ids[3]!, started, '2026-01-14T10:00:00.000Z');
    await p.move(ids[3]!, done, '2026-01-15T10:00:00.000Z');
    await p.move(ids[4]!, done, '2026-01-16T10:00:00.000Z');
    await p.move(ids[4]!, verified.body.id, '2026-01-17T10:00:00.000Z');
    // week of 2026-01-19: nothing; week of 2026-01-26: one, reopened in the next week (its entry still counts)
    await p.move(ids[5]!, done, '2026-01-30T10:00:00.000Z');
    await p.move(ids[5]!, started, '2026-02-02T10:00:00.000Z');
    // the current week (of 2026-02-02) is not part of the throughput
    await p.move(ids[6]!, done, '2026-02-03T10:00:00.000Z');
    t.clock.set('2026-02-04T12:00:00.000Z');

    const res = await p.forecast('?weeks=4');
    expect(res.status, res.text).toBe(200);
    const f = res.body;
    expect(f.throughput).toEqual([
      { week_start: '2026-01-05', completed: 3 },
      { week_start: '2026-01-12', completed: 3 },
      { week_start: '2026-01-19', completed: 0 },
      { week_start: '2026-01-26', completed: 1 },
    ]);
    // 20 + 1 done issue + 1 cancelled = 22; open: 20 minus ids[0..4] and ids[6] done (ids[5] reopened) = 14
    expect(f.remaining_issues).toBe(14);
    expect(f.planned_finish).toBe('2026-04-30');
    expect(f.baseline_planned_finish).toBeNull();
    expect(f.reason).toBeUndefined();
    for (const key of ['finish_p50', 'finish_p85', 'finish_p95'] as const) {
      expect(isSunday(f[key]), `${key} ${f[key]}`).toBe(true);
      expect(f[key] >= '2026-02-08').toBe(true);
    }
    expect(f.finish_p50 <= f.finish_p85 && f.finish_p85 <= f.finish_p95).toBe(true);
    expect(typeof f.probability_by_planned_finish).toBe('number');
    expect(Math.round(f.probability_by_planned_finish * 10) / 10).toBe(f.probability_by_planned_finish);
    // The plain rules on the same data give the same answer, and so does the next call.
    expect(f).toMatchObject(
      forecastOf({
        projectId: p.project.id,
        today: '2026-02-04',
        currentWeekStart: '2026-02-02',
        remaining: 14,
        throughput: f.throughput,
        plannedFinish: '2026-04-30',
      }),
    );
    expect((await p.forecast('?weeks=4')).body).toEqual(f);
  });

  it('takes 12 full weeks by default, oldest first, ending with the week before the current one', async () => {
    const t = ctx();
    t.clock.set('2026-03-01T23:30:00.000Z'); // Sunday: the week of 2026-02-23 is not over yet
    const p = await forecastProject(t);
    await p.open(1);
    const f = (await p.forecast()).body;
    expect(f.throughput.map((w: { week_start: string }) => w.week_start)).toEqual(
      Array.from({ length: 12 }, (_, i) => DateTime.fromISO('2025-12-01', { zone: 'UTC' }).plus({ weeks: i }).toISODate()),
    );
    expect((await p.forecast('?weeks=52')).body.throughput).toHaveLength(52);
    expect((await p.forecast('?weeks=4')).body.throughput).toHaveLength(4);
  });

  it('buckets completions by the Monday of the workspace time zone', async () => {
    const t = ctx();
    t.clock.set('2026-01-01T00:00:00.000Z');
    // UTC+14: Sunday 2026-01-11 11:00 UTC is already Monday 01:00 local
    const east = await forecastProject(t, 'Pacific/Kiritimati');
    // UTC-5: Monday 2026-01-12 03:00 UTC is still Sunday 22:00 local
    const west = await forecastProject(t, 'America/New_York');
    const [e1] = await east.open(2);
    const [w1] = await west.open(2);
    await east.move(e1!, east.byGroup('completed'), '2026-01-11T11:00:00.000Z');
    await west.move(w1!, west.byGroup('completed'), '2026-01-12T03:00:00.000Z');
    t.clock.set('2026-01-27T12:00:00.000Z');
    const eastWeeks = (await east.forecast('?weeks=4')).body.throughput;
    const westWeeks = (await west.forecast('?weeks=4')).body.throughput;
    expect(eastWeeks.filter((w: { completed: number }) => w.completed)).toEqual([{ week_start: '2026-01-12', completed: 1 }]);
    expect(westWeeks.filter((w: { completed: number }) => w.completed)).toEqual([{ week_start: '2026-01-05', completed: 1 }]);
  });

  it('counts an issue created straight into a completed state as a completion of its week', async () => {
    const t = ctx();
    t.clock.set('2026-01-14T10:00:00.000Z');
    const p = await forecastProject(t);
    await p.open(3);
    await createIssue(t.api, p.ws, p.project.id, { name: 'already done', state_id: p.byGroup('completed') });
    t.clock.set('2026-01-21T10:00:00.000Z');
    const f = (await p.forecast('?weeks=4')).body;
    expect(f.throughput.at(-1)).toEqual({ week_start: '2026-01-12', completed: 1 });
    expect(f.remaining_issues).toBe(3);
    expect(f.finish_p50).not.toBeNull();
  });

  it('answers null finish dates and probability with a reason when nothing was completed in the window', async () => {
    const t = ctx();
    t.clock.set('2026-01-14T10:00:00.000Z');
    const p = await forecastProject(t);
    await p.open(2, { target_date: '2026-02-01' });
    const f = (await p.forecast('?weeks=4')).body;
    expect(f).toMatchObject({
      remaining_issues: 2,
      finish_p50: null,
      finish_p85: null,
      finish_p95: null,
      planned_finish: '2026-02-01',
      probability_by_planned_finish: null,
    });
    expect(f.throughput.every((w: { completed: number }) => w.completed === 0)).toBe(true);
    expect(f.reason).toMatch(/No issue was completed in the last 4 full weeks/);
  });

  it('answers today, and 100 % by the planned finish, when nothing is left; null planned finish on an empty project', async () => {
    const t = ctx();
    t.clock.set('2026-01-14T22:30:00.000Z'); // already 2026-01-15 in Istanbul
    const p = await forecastProject(t, 'Europe/Istanbul');
    const [a] = await p.open(1, { target_date: '2026-01-10' });
    await p.move(a!, p.byGroup('completed'));
    const f = (await p.forecast()).body;
    expect(f).toMatchObject({ remaining_issues: 0, finish_p50: '2026-01-15', finish_p85: '2026-01-15', finish_p95: '2026-01-15' });
    expect(f).toMatchObject({ planned_finish: '2026-01-10', probability_by_planned_finish: 100 });
    expect(f.reason).toBeUndefined();

    const empty = await createProject(t.api, p.ws);
    const g = (await t.api.get(forecastPath(p.ws, empty.id), { token: p.ws.admin.token })).body;
    expect(g).toMatchObject({ remaining_issues: 0, finish_p50: '2026-01-15', planned_finish: null, probability_by_planned_finish: null });
  });

  it('answers 400 problem+json for weeks out of 4..52 or not an integer, and for a baseline_id that is not a UUID', async () => {
    const t = ctx();
    const p = await forecastProject(t);
    for (const q of ['?weeks=3', '?weeks=53', '?weeks=0', '?weeks=-4', '?weeks=12.5', '?weeks=twelve', '?baseline_id=nope']) {
      const res = await p.forecast(q);
      expectProblem(res, 400, 'validation_failed');
    }
    expect((await p.forecast('?weeks=4')).status).toBe(200);
    expect((await p.forecast('?weeks=52')).status).toBe(200);
  });

  it('is read by every member, guests included; 404 for non-members, other workspaces, unknown projects; 401 without a token', async () => {
    const t = ctx();
    const p = await forecastProject(t);
    for (const role of ['member', 'guest'] as const) {
      const user = await p.ws.addUser(role);
      expect((await p.forecast('', user.token)).status).toBe(200);
    }
    const other = await createWorkspace(t.api);
    const otherProject = await createProject(t.api, other);
    expectProblem(await p.forecast('', other.admin.token), 404, 'not_found');
    // a project of another workspace under this workspace's slug
    expectProblem(await t.api.get(forecastPath(p.ws, otherProject.id), { token: p.ws.admin.token }), 404, 'not_found');
    expectProblem(await t.api.get(forecastPath(p.ws, '01a1fe20-0000-7000-8000-000000000000'), { token: p.ws.admin.token }), 404, 'not_found');
    expectProblem(await t.api.get(forecastPath(p.ws, p.project.id)), 401, 'unauthenticated');
  });

  it('accepts a baseline of the project, and answers 404 for a baseline of another project or workspace', async () => {
    const t = ctx();
    const p = await forecastProject(t);
    const token = { token: p.ws.admin.token };
    const mine = await t.api.post(`/api/workspaces/${p.ws.slug}/projects/${p.project.id}/baselines/`, { name: 'Plan' }, token);
    expect(mine.status, mine.text).toBe(201);
    const sibling = await createProject(t.api, p.ws);
    const theirs = await t.api.post(`/api/workspaces/${p.ws.slug}/projects/${sibling.id}/baselines/`, { name: 'Other' }, token);
    expect(theirs.status, theirs.text).toBe(201);
    const ok = await p.forecast(`?baseline_id=${mine.body.id}`);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toHaveProperty('baseline_planned_finish');
    expectProblem(await p.forecast(`?baseline_id=${theirs.body.id}`), 404, 'not_found');
    expectProblem(await p.forecast('?baseline_id=01a1fe20-0000-7000-8000-000000000000'), 404, 'not_found');
    const other = await createWorkspace(t.api);
    const foreign = await createProject(t.api, other);
    const otherBaseline = await t.api.post(`/api/workspaces/${other.slug}/projects/${foreign.id}/baselines/`, { name: 'X' }, { token: other.admin.token });
    expect(otherBaseline.status).toBe(201);
    expectProblem(await p.forecast(`?baseline_id=${otherBaseline.body.id}`), 404, 'not_found');
  });

  it('answers the same shape with and without the trailing slash', async () => {
    const t = ctx();
    const p = await forecastProject(t);
    const res = await t.api.get(`/api/workspaces/${p.ws.slug}/projects/${p.project.id}/forecast?weeks=5`, { token: p.ws.admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.throughput).toHaveLength(5);
  });
});
