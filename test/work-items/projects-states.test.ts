import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('projects', () => {
  it('creates a project with the five default states', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws, { name: 'Web', identifier: 'WEB', description: 'Site' });
    expect(project).toMatchObject({ name: 'Web', identifier: 'WEB', description: 'Site', sla_policy_id: null });
    const states = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/states/`, { token: ws.admin.token });
    expect(states.body.map((s: any) => [s.name, s.group])).toEqual([
      ['Backlog', 'backlog'],
      ['Todo', 'unstarted'],
      ['In Progress', 'started'],
      ['Done', 'completed'],
      ['Cancelled', 'cancelled'],
    ]);
  });

  it('validates the identifier and keeps it unique in the workspace', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const t = { token: ws.admin.token };
    const url = `/api/workspaces/${ws.slug}/projects/`;
    for (const identifier of ['web', '1WEB', 'TOOLONGIDENT1', '']) {
      expectProblem(await api.post(url, { name: 'P', identifier }, t), 400, 'validation_failed');
    }
    expectProblem(await api.post(url, { identifier: 'NONAME' }, t), 400, 'validation_failed');
    await createProject(api, ws, { identifier: 'DUP' });
    expectProblem(await api.post(url, { name: 'P', identifier: 'DUP' }, t), 409, 'conflict');
    const other = await createProject(api, ws, { identifier: 'OTHER' });
    expectProblem(await api.patch(`${url}${other.id}/`, { identifier: 'DUP' }, t), 409, 'conflict');
  });

  it('gets, updates and deletes a project (admin only)', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const member = await ws.addUser('member');
    const project = await createProject(api, ws);
    const url = `/api/workspaces/${ws.slug}/projects/${project.id}/`;
    expect((await api.get(url, { token: member.token })).body.id).toBe(project.id);
    expectProblem(await api.patch(url, { name: 'X' }, { token: member.token }), 403);
    expect((await api.patch(url, { name: 'Renamed', description: 'd' }, { token: ws.admin.token })).body).toMatchObject({ name: 'Renamed', description: 'd' });
    expectProblem(await api.delete(url, { token: member.token }), 403);
    expect((await api.delete(url, { token: ws.admin.token })).status).toBe(204);
    expectProblem(await api.get(url, { token: ws.admin.token }), 404);
  });

  it('answers 404 for a project of another workspace', async () => {
    const { api } = ctx();
    const a = await createWorkspace(api);
    const b = await createWorkspace(api);
    const projectB = await createProject(api, b);
    const t = { token: a.admin.token };
    expectProblem(await api.get(`/api/workspaces/${a.slug}/projects/${projectB.id}/`, t), 404);
    expectProblem(await api.patch(`/api/workspaces/${a.slug}/projects/${projectB.id}/`, { name: 'x' }, t), 404);
    expectProblem(await api.delete(`/api/workspaces/${a.slug}/projects/${projectB.id}/`, t), 404);
    expectProblem(await api.get(`/api/workspaces/${a.slug}/projects/${projectB.id}/states/`, t), 404);
    expectProblem(await api.get(`/api/workspaces/${a.slug}/projects/${projectB.id}/issues/`, t), 404);
  });
});

describe('states', () => {
  it('creates, renames and deletes a state; a state in use cannot be deleted or change group', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const t = { token: ws.admin.token };
    const url = `/api/workspaces/${ws.slug}/projects/${project.id}/states/`;
    const created = await api.post(url, { name: 'Review', group: 'started', color: '#123456' }, t);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Review', group: 'started', color: '#123456', is_default: false });
    expectProblem(await api.post(url, { name: 'review', group: 'started' }, t), 409);
    expectProblem(await api.post(url, { name: 'Bad', group: 'doing' }, t), 400);
    expectProblem(await api.post(url, { name: 'Bad', group: 'started', color: 'red' }, t), 400);
    const stateUrl = `${url}${created.body.id}/`;
    expect((await api.patch(stateUrl, { name: 'Code review', group: 'unstarted' }, t)).body).toMatchObject({ name: 'Code review', group: 'unstarted' });
    await createIssue(api, ws, project.id, { state_id: created.body.id });
    expectProblem(await api.patch(stateUrl, { group: 'completed' }, t), 409, 'conflict');
    expect((await api.patch(stateUrl, { color: '#FFFFFF' }, t)).status).toBe(200);
    expectProblem(await api.delete(stateUrl, t), 409, 'conflict');
  });

  it('deletes an unused state, and only admins manage states', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const member = await ws.addUser('member');
    const project = await createProject(api, ws);
    const url = `/api/workspaces/${ws.slug}/projects/${project.id}/states/`;
    expectProblem(await api.post(url, { name: 'X', group: 'backlog' }, { token: member.token }), 403);
    const created = await api.post(url, { name: 'Later', group: 'backlog' }, { token: ws.admin.token });
    expectProblem(await api.delete(`${url}${created.body.id}/`, { token: member.token }), 403);
    expect((await api.delete(`${url}${created.body.id}/`, { token: ws.admin.token })).status).toBe(204);
    expectProblem(await api.delete(`${url}${created.body.id}/`, { token: ws.admin.token }), 404);
  });
});
