import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, projectStates } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { getIssue, issuePath, logTime, outboxEvents, setTimeZone, trackedWorkspace } from './fixtures.js';

const ctx = useTestApp();

describe('workspace time zone (contract 18.1)', () => {
  it('defaults to UTC, is changed by an admin, and refuses an unknown zone with 400', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const t = { token: ws.admin.token };
    expect((await api.get(`/api/workspaces/${ws.slug}/`, t)).body.time_zone).toBe('UTC');
    const res = await api.patch(`/api/workspaces/${ws.slug}/`, { time_zone: 'europe/istanbul' }, t);
    expect(res.status, res.text).toBe(200);
    expect(res.body.time_zone).toBe('Europe/Istanbul');
    for (const bad of ['Mars/Olympus', '+03:00', '', 'Not a zone']) {
      expectProblem(await api.patch(`/api/workspaces/${ws.slug}/`, { time_zone: bad }, t), 400, 'validation_failed');
    }
    const member = await ws.addUser('member');
    expectProblem(await api.patch(`/api/workspaces/${ws.slug}/`, { time_zone: 'Asia/Tokyo' }, { token: member.token }), 403, 'forbidden');
  });
});

describe('dates and estimates on issues (contract 18.1)', () => {
  it('creates and patches the four fields on a free plan, and reads time spent 0 and remaining from the estimate', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id, { start_date: '2026-02-01', target_date: '2026-02-10', estimate_minutes: 600 });
    expect(issue).toMatchObject({ start_date: '2026-02-01', target_date: '2026-02-10', estimate_minutes: 600, remaining_minutes: 600, time_spent_minutes: 0 });
    const plain = await createIssue(api, ws, project.id);
    expect(plain).toMatchObject({ start_date: null, target_date: null, estimate_minutes: null, remaining_minutes: null, time_spent_minutes: 0 });

    const res = await api.patch(issuePath(ws, project.id, issue.id), { remaining_minutes: 120, target_date: null }, { token: ws.admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ start_date: '2026-02-01', target_date: null, estimate_minutes: 600, remaining_minutes: 120 });
    const back = await api.patch(issuePath(ws, project.id, issue.id), { remaining_minutes: null }, { token: ws.admin.token });
    expect(back.body.remaining_minutes).toBe(600);
  });

  it('answers 400 for each invalid value, and for start_date after target_date once the patch is applied', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const t = { token: ws.admin.token };
    const path = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/`;
    for (const body of [
      { start_date: '2026-02-30' },
      { target_date: '26-01-01' },
      { estimate_minutes: -1 },
      { estimate_minutes: 1_000_001 },
      { remaining_minutes: 1.5 },
      { start_date: '2026-03-02', target_date: '2026-03-01' },
    ]) {
      expectProblem(await api.post(path, { name: 'x', ...body }, t), 400, 'validation_failed');
    }
    const issue = await createIssue(api, ws, project.id, { start_date: '2026-03-01', target_date: '2026-03-05' });
    const bad = await api.patch(issuePath(ws, project.id, issue.id), { start_date: '2026-03-06' }, t);
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors[0].path).toBe('/start_date');
    expectProblem(await api.patch(issuePath(ws, project.id, issue.id), { target_date: '2026-02-28' }, t), 400, 'validation_failed');
    // Both moved together past the old bounds is fine.
    const moved = await api.patch(issuePath(ws, project.id, issue.id), { start_date: '2026-04-01', target_date: '2026-04-02' }, t);
    expect(moved.status, moved.text).toBe(200);
  });

  it('filters by target date range and overdue in the workspace time zone, and sorts by the new fields with nulls last', async () => {
    const { api, clock } = ctx();
    // 22:30 UTC on 2026-01-15 is already 2026-01-16 in Istanbul (UTC+3).
    clock.set('2026-01-15T22:30:00.000Z');
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const { byGroup } = await projectStates(api, ws, project.id);
    const a = await createIssue(api, ws, project.id, { name: 'a', target_date: '2026-01-14', estimate_minutes: 30, start_date: '2026-01-10' });
    const b = await createIssue(api, ws, project.id, { name: 'b', target_date: '2026-01-15', estimate_minutes: 90 });
    const c = await createIssue(api, ws, project.id, { name: 'c', target_date: '2026-01-20', start_date: '2026-01-01' });
    const done = await createIssue(api, ws, project.id, { name: 'done', target_date: '2026-01-01', state_id: byGroup('completed') });
    const none = await createIssue(api, ws, project.id, { name: 'none' });
    const t = { token: ws.admin.token };
    const list = async (q: string) => {
      const res = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?${q}`, t);
      expect(res.status, res.text).toBe(200);
      return (res.body.results as { id: string }[]).map((i) => i.id);
    };
    expect(await list('overdue=true')).toEqual([a.id]);
    await setTimeZone(api, ws, 'Europe/Istanbul');
    expect(await list('overdue=true')).toEqual([b.id, a.id]);
    expect((await list('overdue=false')).sort()).toEqual([c.id, done.id, none.id].sort());
    expect(await list('target_date_from=2026-01-15&target_date_to=2026-01-20')).toEqual([c.id, b.id]);
    expect(await list('order_by=target_date')).toEqual([done.id, a.id, b.id, c.id, none.id]);
    expect(await list('order_by=-target_date')).toEqual([c.id, b.id, a.id, done.id, none.id]);
    expect(await list('order_by=estimate_minutes')).toEqual([a.id, b.id, none.id, done.id, c.id]);
    expect(await list('order_by=-start_date')).toEqual([a.id, c.id, none.id, done.id, b.id]);
    expectProblem(await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?target_date_from=2026-13-01`, t), 400, 'validation_failed');
    expectProblem(await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?overdue=maybe`, t), 400, 'validation_failed');
    clock.set('2026-01-15T09:00:00.000Z');
  });

  it('writes history entries of kinds dates and estimate with from/to as stored', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id, { estimate_minutes: 60 });
    const t = { token: ws.admin.token };
    await api.patch(issuePath(ws, project.id, issue.id), { target_date: '2026-05-01' }, t);
    await api.patch(issuePath(ws, project.id, issue.id), { estimate_minutes: 90, remaining_minutes: 30 }, t);
    await api.patch(issuePath(ws, project.id, issue.id), { estimate_minutes: 90, name: 'same estimate' }, t);
    const res = await api.get(`${issuePath(ws, project.id, issue.id)}history/`, t);
    expect(res.status, res.text).toBe(200);
    const entries = (res.body.results as { kind: string; from: unknown; to: unknown; actor_id: string }[]).filter(
      (e) => e.kind === 'dates' || e.kind === 'estimate',
    );
    expect(entries).toEqual([
      expect.objectContaining({
        kind: 'dates',
        from: { start_date: null, target_date: null },
        to: { start_date: null, target_date: '2026-05-01' },
        actor_id: ws.admin.user.id,
      }),
      expect.objectContaining({
        kind: 'estimate',
        from: { estimate_minutes: 60, remaining_minutes: null },
        to: { estimate_minutes: 90, remaining_minutes: 30 },
      }),
    ]);
  });

  it('carries the new fields in issue.updated webhook events', async () => {
    const t = ctx();
    const { ws, project, issue } = await trackedWorkspace(t);
    await t.api.patch(issuePath(ws, project.id, issue.id), { estimate_minutes: 45 }, { token: ws.admin.token });
    const events = await outboxEvents(t, ws.workspaceId, 'issue.updated');
    expect(events.at(-1)!.data).toMatchObject({ id: issue.id, estimate_minutes: 45, remaining_minutes: 45, time_spent_minutes: 0 });
    await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 20 });
    expect(await getIssue(t.api, ws, project.id, issue.id)).toMatchObject({ time_spent_minutes: 20, remaining_minutes: 25 });
  });
});
