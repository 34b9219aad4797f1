import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, projectStates, signUp } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import {
  baselinePath,
  baselinesPath,
  createBaseline,
  deviation,
  deviationPath,
  expectConsistent,
  expectExplained,
  issuesIn,
  PRIORITIES,
  STATE_GROUPS,
} from './fixtures.js';

const ctx = useTestApp();

async function setup() {
  const { api } = ctx();
  const ws = await createWorkspace(api);
  const project = await createProject(api, ws);
  const { byGroup } = await projectStates(api, ws, project.id);
  return { api, ws, project, byGroup };
}

const itemsOf = async (baselineId: string) =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM baseline_items WHERE baseline_id = ${baselineId}`.execute(ctx().database.db)).rows[0]!.n;

describe('POST /api/workspaces/{slug}/projects/{projectId}/baselines/', () => {
  it('snapshots the counts of a project with every state group and priority', async () => {
    const { api, ws, project, byGroup } = await setup();
    // one issue of every (group, priority) pair, plus extras so that no two counts are alike by accident
    for (const g of STATE_GROUPS) for (const p of PRIORITIES) await issuesIn(api, ws, project.id, byGroup(g), p);
    await issuesIn(api, ws, project.id, byGroup('backlog'), 'urgent', 2);
    await issuesIn(api, ws, project.id, byGroup('completed'), 'low', 3);
    await issuesIn(api, ws, project.id, byGroup('started'), 'medium', 1);

    const res = await api.post(baselinesPath(ws, project.id), { name: 'Sprint 1' }, { token: ws.admin.token });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      workspace_id: ws.workspaceId,
      project_id: project.id,
      name: 'Sprint 1',
      total_issues: 31,
      completed_issues: 8,
      state_breakdown: { backlog: 7, unstarted: 5, started: 6, completed: 8, cancelled: 5 },
      priority_breakdown: { urgent: 7, high: 5, medium: 6, low: 8, none: 5 },
      snapshot_at: ctx().clock.now().toISOString(),
      created_by: ws.admin.user.id,
      created_at: ctx().clock.now().toISOString(),
      schedule_id: null,
      // no issue has a date, an estimate or a worklog
      planned_finish: null,
      total_estimate_minutes: 0,
      total_time_spent_minutes: 0,
    });
    expectConsistent(res.body);
    expect(await itemsOf(res.body.id)).toBe(31);
  });

  it('carries every group and priority with zeros for a project without issues', async () => {
    const { api, ws, project } = await setup();
    const b = await createBaseline(api, ws, project.id);
    expect(b).toMatchObject({
      total_issues: 0,
      completed_issues: 0,
      state_breakdown: { backlog: 0, unstarted: 0, started: 0, completed: 0, cancelled: 0 },
      priority_breakdown: { urgent: 0, high: 0, medium: 0, low: 0, none: 0 },
    });
  });

  it('counts only the issues of its own project', async () => {
    const { api, ws, project } = await setup();
    const other = await createProject(api, ws);
    await createIssue(api, ws, project.id);
    await createIssue(api, ws, other.id);
    await createIssue(api, ws, other.id);
    expect((await createBaseline(api, ws, project.id)).total_issues).toBe(1);
  });

  it('trims the name and accepts 255 characters', async () => {
    const { api, ws, project } = await setup();
    expect((await createBaseline(api, ws, project.id, '  Release 2  ')).name).toBe('Release 2');
    expect((await createBaseline(api, ws, project.id, 'x'.repeat(255))).name).toHaveLength(255);
  });

  it('answers 400 for a missing, empty, blank, too long or non-string name', async () => {
    const { api, ws, project } = await setup();
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(256) }, { name: 12 }, { name: null }]) {
      const res = await api.post(baselinesPath(ws, project.id), body, { token: ws.admin.token });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].path).toMatch(/^\/name|^\/$|^$/);
    }
  });

  it('answers 404 for an unknown project and 400 for a project id that is not a UUID', async () => {
    const { api, ws } = await setup();
    expectProblem(await api.post(baselinesPath(ws, '0190a000-0000-7000-8000-000000000000'), { name: 'x' }, { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.post(baselinesPath(ws, 'nope'), { name: 'x' }, { token: ws.admin.token }), 400, 'validation_failed');
  });

  it('answers 401 without a token', async () => {
    const { api, ws, project } = await setup();
    expectProblem(await api.post(baselinesPath(ws, project.id), { name: 'x' }), 401, 'unauthenticated');
    expectProblem(await api.get(baselinesPath(ws, project.id)), 401, 'unauthenticated');
  });
});

describe('GET /api/workspaces/{slug}/projects/{projectId}/baselines/', () => {
  it('lists the baselines of the project as a plain array, newest first', async () => {
    const { api, ws, project } = await setup();
    const other = await createProject(api, ws);
    const first = await createBaseline(api, ws, project.id, 'First');
    ctx().clock.advanceHours(1);
    const second = await createBaseline(api, ws, project.id, 'Second');
    const third = await createBaseline(api, ws, project.id, 'Third (same instant)');
    await createBaseline(api, ws, other.id, 'Other project');
    const res = await api.get(baselinesPath(ws, project.id), { token: ws.admin.token });
    expect(res.status).toBe(200);
    expect(res.body.map((b: { id: string }) => b.id)).toEqual([third.id, second.id, first.id]);
    expect(res.body[2]).toEqual(first);
  });

  it('answers an empty array for a project without baselines', async () => {
    const { api, ws, project } = await setup();
    expect((await api.get(baselinesPath(ws, project.id), { token: ws.admin.token })).body).toEqual([]);
  });
});

describe('GET /api/workspaces/{slug}/baselines/{baselineId}/deviation/', () => {
  it('reports no change right after the snapshot', async () => {
    const { api, ws, project, byGroup } = await setup();
    await issuesIn(api, ws, project.id, byGroup('started'), 'high', 2);
    const b = await createBaseline(api, ws, project.id);
    const d = await deviation(api, ws, b.id);
    expect(d).toEqual({
      baseline: b,
      current_total: 2,
      current_completed: 0,
      issues_delta: 0,
      completion_delta: 0,
      state_delta: { backlog: 0, unstarted: 0, started: 0, completed: 0, cancelled: 0 },
      priority_delta: { urgent: 0, high: 0, medium: 0, low: 0, none: 0 },
      current_state_breakdown: { backlog: 0, unstarted: 0, started: 2, completed: 0, cancelled: 0 },
      current_priority_breakdown: { urgent: 0, high: 2, medium: 0, low: 0, none: 0 },
      items_limit: 100,
      added: { count: 0, items: [] },
      removed: { count: 0, items: [] },
      changed: { count: 0, items: [] },
      against: null,
      transitions: { state: {}, priority: {} },
      schedule: {
        planned_finish_baseline: null,
        planned_finish_now: null,
        finish_variance_days: null,
        slipped_issues: 0,
        pulled_in_issues: 0,
        total_slip_days: 0,
        added_estimate_minutes: 0,
        removed_estimate_minutes: 0,
        estimate_delta_minutes: 0,
        time_spent_delta_minutes: 0,
      },
    });
  });

  it('explains adds, deletes and moves issue by issue, and in totals', async () => {
    const { api, ws, project, byGroup } = await setup();
    const [keep, move, reprioritise, gone, backAndForth] = [
      await createIssue(api, ws, project.id, { name: 'Keep', state_id: byGroup('backlog'), priority: 'low' }),
      await createIssue(api, ws, project.id, { name: 'Move', state_id: byGroup('unstarted'), priority: 'medium' }),
      await createIssue(api, ws, project.id, { name: 'Reprioritise', state_id: byGroup('started'), priority: 'none' }),
      await createIssue(api, ws, project.id, { name: 'Gone', state_id: byGroup('completed'), priority: 'urgent' }),
      await createIssue(api, ws, project.id, { name: 'Back and forth', state_id: byGroup('backlog'), priority: 'high' }),
    ];
    const b = await createBaseline(api, ws, project.id);
    expect(b).toMatchObject({ total_issues: 5, completed_issues: 1 });

    const issue = (id: string) => `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${id}/`;
    const token = ws.admin.token;
    expect((await api.patch(issue(move.id), { state_id: byGroup('completed') }, { token })).status).toBe(200);
    expect((await api.patch(issue(reprioritise.id), { priority: 'urgent', name: 'Reprioritised' }, { token })).status).toBe(200);
    expect((await api.delete(issue(gone.id), { token })).status).toBe(204);
    expect((await api.patch(issue(backAndForth.id), { state_id: byGroup('cancelled') }, { token })).status).toBe(200);
    expect((await api.patch(issue(backAndForth.id), { state_id: byGroup('backlog') }, { token })).status).toBe(200);
    expect((await api.patch(issue(keep.id), { name: 'Renamed only' }, { token })).status).toBe(200);
    const added1 = await createIssue(api, ws, project.id, { name: 'New one', state_id: byGroup('started'), priority: 'high' });
    const added2 = await createIssue(api, ws, project.id, { name: 'New two' });

    const d = await deviation(api, ws, b.id);
    expect(d).toMatchObject({
      current_total: 6,
      current_completed: 1,
      issues_delta: 1,
      completion_delta: 0,
      // backlog: keep, back-and-forth, +new two; unstarted: -move; started: reprioritise, +new one; completed: -gone, +move
      state_delta: { backlog: 1, unstarted: -1, started: 1, completed: 0, cancelled: 0 },
      // urgent: -gone, +reprioritise; high: +new one; none: -reprioritise, +new two
      priority_delta: { urgent: 0, high: 1, medium: 0, low: 0, none: 0 },
    });
    expect(d.added).toEqual({
      count: 2,
      items: [
        { id: added1.id, sequence_id: added1.sequence_id, name: 'New one', state_group: 'started', priority: 'high' },
        { id: added2.id, sequence_id: added2.sequence_id, name: 'New two', state_group: 'backlog', priority: 'none' },
      ],
    });
    // a removed issue is described as it was at snapshot time
    expect(d.removed).toEqual({
      count: 1,
      items: [{ id: gone.id, sequence_id: gone.sequence_id, name: 'Gone', state_group: 'completed', priority: 'urgent' }],
    });
    // sorted by sequence_id; a rename alone, or a move that came back, is no change
    expect(d.changed).toEqual({
      count: 2,
      items: [
        {
          id: move.id,
          sequence_id: move.sequence_id,
          name: 'Move',
          from: { state_group: 'unstarted', priority: 'medium', target_date: null, estimate_minutes: null },
          to: { state_group: 'completed', priority: 'medium', target_date: null, estimate_minutes: null },
          fields: { state_group: { from: 'unstarted', to: 'completed' } },
        },
        {
          id: reprioritise.id,
          sequence_id: reprioritise.sequence_id,
          name: 'Reprioritised',
          from: { state_group: 'started', priority: 'none', target_date: null, estimate_minutes: null },
          to: { state_group: 'started', priority: 'urgent', target_date: null, estimate_minutes: null },
          fields: { priority: { from: 'none', to: 'urgent' } },
        },
      ],
    });
    // the baseline itself never moves, and the lists account for every delta
    expect(d.baseline).toEqual(b);
    expectExplained(d);
  });

  it('caps each list at items_limit (default 100) but always reports the full count', async () => {
    const { api, ws, project, byGroup } = await setup();
    const b = await createBaseline(api, ws, project.id);
    // 130 issues at once, straight into the table (the API would take a while)
    const db = ctx().database.db;
    await sql`
      WITH seq AS (UPDATE projects SET issue_seq = issue_seq + 130 WHERE id = ${project.id} RETURNING issue_seq)
      INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, state_id, state_group, priority, created_by, created_at, updated_at)
      SELECT gen_random_uuid(), ${ws.workspaceId}, ${project.id}, seq.issue_seq - 130 + n, 'Bulk ' || n, ${byGroup('started')}, 'started', 'low',
        ${ws.admin.user.id}, now(), now()
      FROM seq, generate_series(1, 130) n`.execute(db);

    const d = await deviation(api, ws, b.id);
    expect(d.added.count).toBe(130);
    expect(d.added.items).toHaveLength(100);
    expect(d.added.items.map((i: { sequence_id: number }) => i.sequence_id)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(d.state_delta.started).toBe(130);

    const two = await deviation(api, ws, b.id, '?items_limit=2');
    expect(two.items_limit).toBe(2);
    expect(two.added.items.map((i: { name: string }) => i.name)).toEqual(['Bulk 1', 'Bulk 2']);
    const none = await deviation(api, ws, b.id, '?items_limit=0');
    expect(none.added).toEqual({ count: 130, items: [] });
    expect((await deviation(api, ws, b.id, '?items_limit=1000')).added.items).toHaveLength(130);
    expectProblem(await api.get(deviationPath(ws, b.id) + '?items_limit=1001', { token: ws.admin.token }), 400, 'validation_failed');
    expectProblem(await api.get(deviationPath(ws, b.id) + '?items_limit=-1', { token: ws.admin.token }), 400, 'validation_failed');
  });

  it('answers 404 for an unknown baseline and 400 for an id that is not a UUID', async () => {
    const { api, ws } = await setup();
    expectProblem(await api.get(deviationPath(ws, '0190a000-0000-7000-8000-000000000000'), { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.get(deviationPath(ws, 'nope'), { token: ws.admin.token }), 400, 'validation_failed');
  });
});

describe('GET and DELETE /api/workspaces/{slug}/baselines/{baselineId}/', () => {
  it('reads one baseline', async () => {
    const { api, ws, project } = await setup();
    const b = await createBaseline(api, ws, project.id);
    const res = await api.get(baselinePath(ws, b.id), { token: ws.admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(b);
  });

  it('deletes a baseline and its per-issue rows with 204, then answers 404', async () => {
    const { api, ws, project } = await setup();
    await createIssue(api, ws, project.id);
    await createIssue(api, ws, project.id);
    const b = await createBaseline(api, ws, project.id);
    const kept = await createBaseline(api, ws, project.id, 'Kept');
    expect(await itemsOf(b.id)).toBe(2);
    const res = await api.delete(baselinePath(ws, b.id), { token: ws.admin.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await itemsOf(b.id)).toBe(0);
    expect(await itemsOf(kept.id)).toBe(2);
    expectProblem(await api.get(deviationPath(ws, b.id), { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.delete(baselinePath(ws, b.id), { token: ws.admin.token }), 404, 'not_found');
    const list = await api.get(baselinesPath(ws, project.id), { token: ws.admin.token });
    expect(list.body.map((x: { id: string }) => x.id)).toEqual([kept.id]);
  });

  it('goes away with its project', async () => {
    const { api, ws, project } = await setup();
    await createIssue(api, ws, project.id);
    const b = await createBaseline(api, ws, project.id);
    expect((await api.delete(`/api/workspaces/${ws.slug}/projects/${project.id}/`, { token: ws.admin.token })).status).toBe(204);
    expectProblem(await api.get(deviationPath(ws, b.id), { token: ws.admin.token }), 404, 'not_found');
    expect(await itemsOf(b.id)).toBe(0);
  });
});

describe('roles', () => {
  it('lets every role read baselines and deviation, and only admins create and delete them', async () => {
    const { api, ws, project } = await setup();
    const member = await ws.addUser('member');
    const guest = await ws.addUser('guest');
    const b = await createBaseline(api, ws, project.id);
    for (const user of [ws.admin, member, guest]) {
      expect((await api.get(baselinesPath(ws, project.id), { token: user.token })).status).toBe(200);
      expect((await api.get(deviationPath(ws, b.id), { token: user.token })).status).toBe(200);
      expect((await api.get(baselinePath(ws, b.id), { token: user.token })).status).toBe(200);
    }
    for (const user of [member, guest]) {
      expectProblem(await api.post(baselinesPath(ws, project.id), { name: 'x' }, { token: user.token }), 403, 'forbidden');
      expectProblem(await api.delete(baselinePath(ws, b.id), { token: user.token }), 403, 'forbidden');
    }
    const admin2 = await ws.addUser('admin');
    expect((await api.post(baselinesPath(ws, project.id), { name: 'By a second admin' }, { token: admin2.token })).status).toBe(201);
    expect((await api.delete(baselinePath(ws, b.id), { token: admin2.token })).status).toBe(204);
  });

  it('answers 404 to someone who is not a member, for every route', async () => {
    const { api, ws, project } = await setup();
    const b = await createBaseline(api, ws, project.id);
    const { token } = await signUp(api, 'Stranger');
    expectProblem(await api.get(baselinesPath(ws, project.id), { token }), 404, 'not_found');
    expectProblem(await api.post(baselinesPath(ws, project.id), { name: 'x' }, { token }), 404, 'not_found');
    expectProblem(await api.get(deviationPath(ws, b.id), { token }), 404, 'not_found');
    expectProblem(await api.get(baselinePath(ws, b.id), { token }), 404, 'not_found');
    expectProblem(await api.delete(baselinePath(ws, b.id), { token }), 404, 'not_found');
    expect(await itemsOf(b.id)).toBe(0); // no issues, but the baseline is still there:
    expect((await api.get(baselinePath(ws, b.id), { token: ws.admin.token })).status).toBe(200);
  });
});

describe('isolation between workspaces', () => {
  it('answers 404 for a baseline of another workspace, even to an admin of both', async () => {
    const { api, ws: a } = await setup();
    const b = await createWorkspace(api, a.admin);
    const projectB = await createProject(api, b);
    const baselineB = await createBaseline(api, b, projectB.id);
    expectProblem(await api.get(deviationPath(a, baselineB.id), { token: a.admin.token }), 404, 'not_found');
    expectProblem(await api.get(baselinePath(a, baselineB.id), { token: a.admin.token }), 404, 'not_found');
    expectProblem(await api.delete(baselinePath(a, baselineB.id), { token: a.admin.token }), 404, 'not_found');
    expect((await api.get(deviationPath(b, baselineB.id), { token: b.admin.token })).status).toBe(200);
  });

  it('answers 404 for a project of another workspace', async () => {
    const { api, ws: a } = await setup();
    const b = await createWorkspace(api, a.admin);
    const projectB = await createProject(api, b);
    expectProblem(await api.get(baselinesPath(a, projectB.id), { token: a.admin.token }), 404, 'not_found');
    expectProblem(await api.post(baselinesPath(a, projectB.id), { name: 'x' }, { token: a.admin.token }), 404, 'not_found');
    expect((await api.get(baselinesPath(b, projectB.id), { token: b.admin.token })).body).toEqual([]);
  });
});
