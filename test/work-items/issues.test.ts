import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, projectStates } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('issues', () => {
  it('creates issues with per-project sequence ids, the Backlog state and priority none by default', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const p1 = await createProject(api, ws);
    const p2 = await createProject(api, ws);
    const a = await createIssue(api, ws, p1.id, { name: 'First' });
    const b = await createIssue(api, ws, p1.id, { name: 'Second' });
    const c = await createIssue(api, ws, p2.id, { name: 'Other project' });
    expect([a.sequence_id, b.sequence_id, c.sequence_id]).toEqual([1, 2, 1]);
    expect(a).toMatchObject({ priority: 'none', state_group: 'backlog', created_by: ws.admin.user.id, completed_at: null });
    expect(a.created_at).toBe(clock.now().toISOString());
  });

  it('numbers issues created at the same time 1, 2, ... without a gap, each searchable at once', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const created = await Promise.all(Array.from({ length: 12 }, (_, i) => createIssue(api, ws, project.id, { name: `Yazıcı kuyruğu ${i}` })));
    expect(created.map((i) => i.sequence_id).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const found = await api.get(`/api/workspaces/${ws.slug}/search/?q=kuyruğu&per_page=50`, { token: ws.admin.token });
    expect(found.status).toBe(200);
    expect(found.body.total).toBe(12);
  });

  it('validates name, priority, state and assignees', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const other = await createProject(api, ws);
    const { byGroup } = await projectStates(api, ws, other.id);
    const outsider = (await createWorkspace(api)).admin;
    const url = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/`;
    const t = { token: ws.admin.token };
    expectProblem(await api.post(url, {}, t), 400, 'validation_failed');
    expectProblem(await api.post(url, { name: '   ' }, t), 400, 'validation_failed');
    expectProblem(await api.post(url, { name: 'x', priority: 'critical' }, t), 400, 'validation_failed');
    const wrongState = await api.post(url, { name: 'x', state_id: byGroup('started') }, t);
    expectProblem(wrongState, 400, 'validation_failed');
    expect(wrongState.body.errors[0].path).toBe('/state_id');
    expectProblem(await api.post(url, { name: 'x', assignee_ids: [outsider.user.id] }, t), 400, 'validation_failed');
    const ok = await api.post(url, { name: 'x', assignee_ids: [ws.admin.user.id, ws.admin.user.id] }, t);
    expect(ok.body.assignee_ids).toEqual([ws.admin.user.id]);
  });

  it('sets completed_at on entering a completed state and clears it on leaving', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const { byGroup } = await projectStates(api, ws, project.id);
    const issue = await createIssue(api, ws, project.id);
    const url = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`;
    clock.advanceHours(1);
    const done = await api.patch(url, { state_id: byGroup('completed') }, { token: ws.admin.token });
    expect(done.body).toMatchObject({ state_group: 'completed', completed_at: clock.now().toISOString() });
    const reopened = await api.patch(url, { state_id: byGroup('started') }, { token: ws.admin.token });
    expect(reopened.body).toMatchObject({ state_group: 'started', completed_at: null });
  });

  it('updates and deletes an issue', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id);
    const url = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`;
    const t = { token: ws.admin.token };
    const updated = await api.patch(url, { name: 'Renamed', description: 'Body', priority: 'high' }, t);
    expect(updated.body).toMatchObject({ name: 'Renamed', description: 'Body', priority: 'high' });
    expect((await api.get(url, t)).body.name).toBe('Renamed');
    expect((await api.delete(url, t)).status).toBe(204);
    expectProblem(await api.get(url, t), 404);
  });

  it('lists issues newest first with pagination and filters by state group and priority', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const { byGroup } = await projectStates(api, ws, project.id);
    await createIssue(api, ws, project.id, { priority: 'urgent' });
    await createIssue(api, ws, project.id, { priority: 'low', state_id: byGroup('started') });
    await createIssue(api, ws, project.id, { priority: 'urgent', state_id: byGroup('completed') });
    const url = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/`;
    const t = { token: ws.admin.token };
    const page = await api.get(`${url}?offset=1&per_page=1`, t);
    expect(page.body).toMatchObject({ total: 3, offset: 1, per_page: 1 });
    expect(page.body.results.map((i: any) => i.sequence_id)).toEqual([2]);
    const all = await api.get(url, t);
    expect(all.body).toMatchObject({ total: 3, offset: 0, per_page: 20 });
    expect(all.body.results.map((i: any) => i.sequence_id)).toEqual([3, 2, 1]);
    expect((await api.get(`${url}?priority=urgent`, t)).body.results.map((i: any) => i.sequence_id)).toEqual([3, 1]);
    expect((await api.get(`${url}?state_group=started,completed`, t)).body.total).toBe(2);
    expect((await api.get(`${url}?state_group=completed&priority=low`, t)).body.total).toBe(0);
  });

  it('refuses bad pagination and unknown filter values with 400', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const url = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/`;
    const t = { token: ws.admin.token };
    for (const q of ['per_page=0', 'per_page=101', 'offset=-1', 'per_page=abc', 'offset=1.5', 'priority=critical', 'state_group=doing']) {
      expectProblem(await api.get(`${url}?${q}`, t), 400, 'validation_failed');
    }
  });

  it('follows the role matrix: guests read and comment, members write, outsiders see nothing', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const member = await ws.addUser('member');
    const guest = await ws.addUser('guest');
    const outsider = (await createWorkspace(api)).admin;
    const project = await createProject(api, ws);
    const url = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/`;
    const issue = await createIssue(api, ws, project.id, {}, member.token);
    const issueUrl = `${url}${issue.id}/`;
    expect((await api.get(url, { token: guest.token })).status).toBe(200);
    expectProblem(await api.post(url, { name: 'x' }, { token: guest.token }), 403, 'forbidden');
    expectProblem(await api.patch(issueUrl, { name: 'x' }, { token: guest.token }), 403, 'forbidden');
    expectProblem(await api.delete(issueUrl, { token: guest.token }), 403, 'forbidden');
    expect((await api.post(`${issueUrl}comments/`, { body: 'guest note' }, { token: guest.token })).status).toBe(201);
    expect((await api.patch(issueUrl, { priority: 'low' }, { token: member.token })).status).toBe(200);
    for (const [method, path] of [
      ['GET', url],
      ['GET', issueUrl],
      ['GET', `${issueUrl}comments/`],
    ] as const) {
      expectProblem(await api.request(method, path, { token: outsider.token }), 404, 'not_found');
    }
    expectProblem(await api.post(`${issueUrl}comments/`, { body: 'x' }, { token: outsider.token }), 404);
  });

  it('answers 404 for an issue of another workspace or another project', async () => {
    const { api } = ctx();
    const a = await createWorkspace(api);
    const b = await createWorkspace(api);
    const projectA = await createProject(api, a);
    const projectA2 = await createProject(api, a);
    const projectB = await createProject(api, b);
    const issueB = await createIssue(api, b, projectB.id);
    const issueA = await createIssue(api, a, projectA.id);
    const t = { token: a.admin.token };
    expectProblem(await api.get(`/api/workspaces/${a.slug}/projects/${projectA.id}/issues/${issueB.id}/`, t), 404);
    expectProblem(await api.patch(`/api/workspaces/${a.slug}/projects/${projectA.id}/issues/${issueB.id}/`, { name: 'x' }, t), 404);
    expectProblem(await api.get(`/api/workspaces/${a.slug}/projects/${projectA2.id}/issues/${issueA.id}/`, t), 404);
  });
});

describe('comments', () => {
  it('adds comments and lists them oldest first', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id);
    const url = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/comments/`;
    const t = { token: ws.admin.token };
    const first = await api.post(url, { body: 'one' }, t);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ body: 'one', author_id: ws.admin.user.id, issue_id: issue.id });
    clock.advance(1000);
    await api.post(url, { body: 'two' }, t);
    expect((await api.get(url, t)).body.map((c: any) => c.body)).toEqual(['one', 'two']);
    expectProblem(await api.post(url, { body: '' }, t), 400);
    expectProblem(await api.post(url, {}, t), 400);
  });
});
