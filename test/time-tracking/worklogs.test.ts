import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { getIssue, issuePath, logTime, outboxEvents, trackedWorkspace, worklogsPath } from './fixtures.js';

const ctx = useTestApp();
const START = '2026-01-15T09:00:00.000Z';

describe('worklogs (contract 18.2)', () => {
  it('logs time with started_at defaulting to now minus the duration, lists newest first, edits and deletes', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws, project, issue } = await trackedWorkspace(t);
    const a = await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 30, note: 'review' });
    expect(a).toMatchObject({ issue_id: issue.id, user_id: ws.admin.user.id, started_at: '2026-01-15T08:30:00.000Z', duration_minutes: 30, note: 'review' });
    const b = await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 15, started_at: '2026-01-14T10:00:00.000Z' });
    expect(b.note).toBe('');
    const c = await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 5, started_at: '2026-01-16T08:59:00.000Z' });
    const tok = { token: ws.admin.token };
    const list = await t.api.get(`${worklogsPath(ws, project.id, issue.id)}?per_page=2`, tok);
    expect(list.status, list.text).toBe(200);
    expect(list.body).toMatchObject({ total: 3, offset: 0, per_page: 2 });
    expect(list.body.results.map((w: { id: string }) => w.id)).toEqual([c.id, a.id]);
    expect((await getIssue(t.api, ws, project.id, issue.id)).time_spent_minutes).toBe(50);

    const edited = await t.api.patch(`${worklogsPath(ws, project.id, issue.id)}${a.id}/`, { duration_minutes: 45, note: 'longer' }, tok);
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ duration_minutes: 45, note: 'longer', started_at: a.started_at });
    expect((await getIssue(t.api, ws, project.id, issue.id)).time_spent_minutes).toBe(65);
    const gone = await t.api.delete(`${worklogsPath(ws, project.id, issue.id)}${b.id}/`, tok);
    expect(gone.status).toBe(204);
    expect((await getIssue(t.api, ws, project.id, issue.id)).time_spent_minutes).toBe(50);
  });

  it('answers 400 for each invalid worklog', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws, project, issue } = await trackedWorkspace(t);
    const path = worklogsPath(ws, project.id, issue.id);
    const tok = { token: ws.admin.token };
    for (const body of [
      {},
      { duration_minutes: 0 },
      { duration_minutes: 1441 },
      { duration_minutes: 10.5 },
      { duration_minutes: 10, started_at: 'yesterday' },
      { duration_minutes: 10, started_at: '2026-01-16T09:00:01.000Z' },
      { duration_minutes: 10, note: 'x'.repeat(2001) },
      { duration_minutes: 10, user_id: 'not-a-uuid' },
    ]) {
      expectProblem(await t.api.post(path, body, tok), 400, 'validation_failed');
    }
    // Exactly 24 hours ahead is allowed.
    await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 10, started_at: '2026-01-16T09:00:00.000Z' });
    const w = await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 10 });
    expectProblem(await t.api.patch(`${path}${w.id}/`, { duration_minutes: 2000 }, tok), 400, 'validation_failed');
    expectProblem(await t.api.patch(`${path}${w.id}/`, { started_at: '2026-02-01T00:00:00.000Z' }, tok), 400, 'validation_failed');
  });

  it('lets admins and members log, authors or admins edit, guests only read; an admin may log for another member', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws, project, issue } = await trackedWorkspace(t);
    const member = await ws.addUser('member');
    const other = await ws.addUser('member', 'Other');
    const guest = await ws.addUser('guest');
    const path = worklogsPath(ws, project.id, issue.id);
    const mine = await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 10 }, member.token);
    expect(mine.user_id).toBe(member.user.id);
    expectProblem(await t.api.post(path, { duration_minutes: 10 }, { token: guest.token }), 403, 'forbidden');
    expectProblem(await t.api.post(path, { duration_minutes: 10, user_id: other.user.id }, { token: member.token }), 403, 'forbidden');
    const forOther = await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 20, user_id: other.user.id });
    expect(forOther.user_id).toBe(other.user.id);
    const stranger = await createWorkspace(t.api);
    expectProblem(await t.api.post(path, { duration_minutes: 10, user_id: stranger.admin.user.id }, { token: ws.admin.token }), 400, 'validation_failed');

    expectProblem(await t.api.patch(`${path}${mine.id}/`, { note: 'x' }, { token: other.token }), 403, 'forbidden');
    expectProblem(await t.api.delete(`${path}${mine.id}/`, { token: other.token }), 403, 'forbidden');
    expectProblem(await t.api.patch(`${path}${mine.id}/`, { note: 'x' }, { token: guest.token }), 403, 'forbidden');
    expect((await t.api.patch(`${path}${mine.id}/`, { note: 'mine' }, { token: member.token })).status).toBe(200);
    expect((await t.api.patch(`${path}${mine.id}/`, { note: 'admin' }, { token: ws.admin.token })).status).toBe(200);
    const read = await t.api.get(path, { token: guest.token });
    expect(read.status).toBe(200);
    expect(read.body.total).toBe(2);
    expect((await t.api.delete(`${path}${forOther.id}/`, { token: ws.admin.token })).status).toBe(204);

    // Removing a member keeps their worklogs.
    const removed = await t.api.delete(`/api/workspaces/${ws.slug}/members/${member.user.id}/`, { token: ws.admin.token });
    expect(removed.status, removed.text).toBe(204);
    expect((await t.api.get(path, { token: ws.admin.token })).body.total).toBe(1);
    expect((await t.api.get(path, { token: member.token })).status).toBe(404);
  });

  it("answers 404 for another workspace's or project's issue and worklog", async () => {
    const t = ctx();
    t.clock.set(START);
    const mine = await trackedWorkspace(t);
    const theirs = await trackedWorkspace(t);
    const w = await logTime(t.api, theirs.ws, theirs.project.id, theirs.issue.id, { duration_minutes: 10 });
    const tok = { token: mine.ws.admin.token };
    expectProblem(await t.api.get(worklogsPath(mine.ws, mine.project.id, theirs.issue.id), tok), 404, 'not_found');
    expectProblem(await t.api.post(worklogsPath(mine.ws, mine.project.id, theirs.issue.id), { duration_minutes: 5 }, tok), 404, 'not_found');
    expectProblem(await t.api.patch(`${worklogsPath(mine.ws, mine.project.id, mine.issue.id)}${w.id}/`, { note: 'x' }, tok), 404, 'not_found');
    expectProblem(await t.api.delete(`${worklogsPath(mine.ws, mine.project.id, mine.issue.id)}${w.id}/`, tok), 404, 'not_found');
    expectProblem(await t.api.get(worklogsPath(theirs.ws, theirs.project.id, theirs.issue.id), tok), 404, 'not_found');
    const otherProject = await createProject(t.api, mine.ws);
    expectProblem(await t.api.get(worklogsPath(mine.ws, otherProject.id, mine.issue.id), tok), 404, 'not_found');
    expectProblem(await t.api.post(`/api/workspaces/${mine.ws.slug}/timer/start/`, { issue_id: theirs.issue.id }, tok), 404, 'not_found');
  });

  it('refuses writes with 402 feature_not_in_plan without time_tracking, keeps reads and worklogs after a downgrade', async () => {
    const t = ctx();
    t.clock.set(START);
    const free = await createWorkspace(t.api);
    const project = await createProject(t.api, free);
    const issue = await createIssue(t.api, free, project.id, { estimate_minutes: 60 });
    const tok = { token: free.admin.token };
    expectProblem(await t.api.post(worklogsPath(free, project.id, issue.id), { duration_minutes: 10 }, tok), 402, 'feature_not_in_plan');
    expectProblem(await t.api.post(`/api/workspaces/${free.slug}/timer/start/`, { issue_id: issue.id }, tok), 402, 'feature_not_in_plan');
    expectProblem(await t.api.post(`/api/workspaces/${free.slug}/timer/stop/`, {}, tok), 402, 'feature_not_in_plan');
    expect((await t.api.get(worklogsPath(free, project.id, issue.id), tok)).status).toBe(200);
    expect((await t.api.get(`/api/workspaces/${free.slug}/timer/`, tok)).body).toBeNull();

    const { ws, project: p2, issue: i2 } = await trackedWorkspace(t);
    const w = await logTime(t.api, ws, p2.id, i2.id, { duration_minutes: 10 });
    t.clock.advanceDays(15); // the trial is over: the free plan again
    const path = worklogsPath(ws, p2.id, i2.id);
    const t2 = { token: ws.admin.token };
    expectProblem(await t.api.post(path, { duration_minutes: 10 }, t2), 402, 'feature_not_in_plan');
    expectProblem(await t.api.patch(`${path}${w.id}/`, { note: 'x' }, t2), 402, 'feature_not_in_plan');
    expectProblem(await t.api.delete(`${path}${w.id}/`, t2), 402, 'feature_not_in_plan');
    expect((await t.api.get(path, t2)).body.total).toBe(1);
    expect((await t.api.get(`/api/workspaces/${ws.slug}/timesheet/?from=2026-01-15&to=2026-01-15&group_by=user`, t2)).body.total_minutes).toBe(10);
  });

  it('keeps an explicit remaining estimate when time is logged, and lowers the derived one (leave remaining)', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws, project, issue } = await trackedWorkspace(t, { estimate_minutes: 100 });
    await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 30 });
    expect(await getIssue(t.api, ws, project.id, issue.id)).toMatchObject({ estimate_minutes: 100, remaining_minutes: 70, time_spent_minutes: 30 });
    await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 90 });
    expect(await getIssue(t.api, ws, project.id, issue.id)).toMatchObject({ remaining_minutes: 0, time_spent_minutes: 120 });
    await t.api.patch(issuePath(ws, project.id, issue.id), { remaining_minutes: 50 }, { token: ws.admin.token });
    await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 20 });
    expect(await getIssue(t.api, ws, project.id, issue.id)).toMatchObject({ remaining_minutes: 50, time_spent_minutes: 140 });
  });

  it('records worklog.created, worklog.updated and worklog.deleted with the worklog and the issue', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws, project, issue } = await trackedWorkspace(t, { estimate_minutes: 60 });
    const w = await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 10 });
    const path = `${worklogsPath(ws, project.id, issue.id)}${w.id}/`;
    await t.api.patch(path, { duration_minutes: 25 }, { token: ws.admin.token });
    await t.api.delete(path, { token: ws.admin.token });
    const [created] = await outboxEvents(t, ws.workspaceId, 'worklog.created');
    const [updated] = await outboxEvents(t, ws.workspaceId, 'worklog.updated');
    const [deleted] = await outboxEvents(t, ws.workspaceId, 'worklog.deleted');
    expect(created!.data).toMatchObject({
      worklog: { id: w.id, duration_minutes: 10 },
      issue: { id: issue.id, time_spent_minutes: 10, remaining_minutes: 50 },
    });
    expect(updated!.data).toMatchObject({ worklog: { id: w.id, duration_minutes: 25 }, issue: { time_spent_minutes: 25 } });
    expect(deleted!.data).toMatchObject({ worklog: { id: w.id }, issue: { time_spent_minutes: 0, remaining_minutes: 60 } });
    const hook = await t.api.post(
      `/api/workspaces/${ws.slug}/webhooks/`,
      { url: 'https://example.com/hook', event_types: ['worklog.created', 'worklog.updated', 'worklog.deleted'] },
      { token: ws.admin.token },
    );
    expect(hook.status, hook.text).toBe(201);
  });

  it('deletes the worklogs of a deleted issue', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws, project, issue } = await trackedWorkspace(t);
    await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 10 });
    expect((await t.api.delete(issuePath(ws, project.id, issue.id), { token: ws.admin.token })).status).toBe(204);
    const left = await t.database.db.selectFrom('worklogs').select('id').where('workspace_id', '=', ws.workspaceId).execute();
    expect(left).toEqual([]);
  });
});

describe('worklogs under concurrency', () => {
  it('keeps time_spent_minutes equal to the sum of the worklogs when many are logged, edited and deleted at once', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws, project, issue } = await trackedWorkspace(t, { estimate_minutes: 1000 });
    const created = await Promise.all(Array.from({ length: 12 }, (_, i) => logTime(t.api, ws, project.id, issue.id, { duration_minutes: i + 1 })));
    const path = worklogsPath(ws, project.id, issue.id);
    const tok = { token: ws.admin.token };
    await Promise.all([
      ...created.slice(0, 4).map((w) => t.api.delete(`${path}${w.id}/`, tok)),
      ...created.slice(4, 8).map((w) => t.api.patch(`${path}${w.id}/`, { duration_minutes: 100 }, tok)),
      t.api.patch(issuePath(ws, project.id, issue.id), { estimate_minutes: 900 }, tok),
    ]);
    const sum = await t.database.db
      .selectFrom('worklogs')
      .select((eb) => eb.fn.sum<number>('duration_minutes').as('n'))
      .where('workspace_id', '=', ws.workspaceId)
      .executeTakeFirstOrThrow();
    expect(sum.n).toBe(4 * 100 + 9 + 10 + 11 + 12);
    expect(await getIssue(t.api, ws, project.id, issue.id)).toMatchObject({ time_spent_minutes: 442, estimate_minutes: 900, remaining_minutes: 458 });
  });
});

describe('timer (contract 18.2)', () => {
  it('goes away with its issue: stopping then answers 409', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws, project, issue } = await trackedWorkspace(t);
    const tok = { token: ws.admin.token };
    await t.api.post(`/api/workspaces/${ws.slug}/timer/start/`, { issue_id: issue.id }, tok);
    expect((await t.api.delete(issuePath(ws, project.id, issue.id), tok)).status).toBe(204);
    expect((await t.api.get(`/api/workspaces/${ws.slug}/timer/`, tok)).body).toBeNull();
    expectProblem(await t.api.post(`/api/workspaces/${ws.slug}/timer/stop/`, {}, tok), 409, 'conflict');
  });

  it('starts, reads, and stops into a worklog of whole minutes; 409 when none runs', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws, project, issue } = await trackedWorkspace(t);
    const base = `/api/workspaces/${ws.slug}/timer/`;
    const tok = { token: ws.admin.token };
    expect((await t.api.get(base, tok)).body).toBeNull();
    expectProblem(await t.api.post(`${base}stop/`, {}, tok), 409, 'conflict');
    const started = await t.api.post(`${base}start/`, { issue_id: issue.id }, tok);
    expect(started.status, started.text).toBe(201);
    expect(started.body).toEqual({ issue_id: issue.id, started_at: START });
    expect((await t.api.get(base, tok)).body).toEqual({ issue_id: issue.id, started_at: START });
    t.clock.advance(25 * 60_000 + 59_000);
    const stopped = await t.api.post(`${base}stop/`, {}, tok);
    expect(stopped.status, stopped.text).toBe(201);
    expect(stopped.body).toMatchObject({ issue_id: issue.id, started_at: START, duration_minutes: 25, user_id: ws.admin.user.id });
    expect((await t.api.get(base, tok)).body).toBeNull();
    // A timer stopped at once still logs one minute.
    await t.api.post(`${base}start/`, { issue_id: issue.id }, tok);
    expect((await t.api.post(`${base}stop/`, {}, tok)).body.duration_minutes).toBe(1);
    expect((await getIssue(t.api, ws, project.id, issue.id)).time_spent_minutes).toBe(26);
    const guest = await ws.addUser('guest');
    expectProblem(await t.api.post(`${base}start/`, { issue_id: issue.id }, { token: guest.token }), 403, 'forbidden');
    expect((await t.api.get(base, { token: guest.token })).body).toBeNull();
  });

  it('stops a running timer when another starts, and splits a run over 1440 minutes into consecutive worklogs', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws, project, issue } = await trackedWorkspace(t);
    const second = await createIssue(t.api, ws, project.id, { name: 'second' });
    const base = `/api/workspaces/${ws.slug}/timer/`;
    const tok = { token: ws.admin.token };
    await t.api.post(`${base}start/`, { issue_id: issue.id }, tok);
    t.clock.advance(10 * 60_000);
    const switched = await t.api.post(`${base}start/`, { issue_id: second.id }, tok);
    expect(switched.body).toEqual({ issue_id: second.id, started_at: '2026-01-15T09:10:00.000Z' });
    expect((await getIssue(t.api, ws, project.id, issue.id)).time_spent_minutes).toBe(10);

    t.clock.advance((1440 * 2 + 100) * 60_000);
    const last = await t.api.post(`${base}stop/`, {}, tok);
    expect(last.status, last.text).toBe(201);
    const logs = await t.api.get(`${worklogsPath(ws, project.id, second.id)}`, tok);
    expect(logs.body.results.map((w: { started_at: string; duration_minutes: number }) => [w.started_at, w.duration_minutes])).toEqual([
      ['2026-01-17T09:10:00.000Z', 100],
      ['2026-01-16T09:10:00.000Z', 1440],
      ['2026-01-15T09:10:00.000Z', 1440],
    ]);
    expect(last.body).toMatchObject({ started_at: '2026-01-17T09:10:00.000Z', duration_minutes: 100 });
    expect((await getIssue(t.api, ws, project.id, second.id)).time_spent_minutes).toBe(2980);
    expect(await outboxEvents(t, ws.workspaceId, 'worklog.created')).toHaveLength(4);
  });
});
