import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, projectStates } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { createPolicy } from './sla-fixtures.js';

const ctx = useTestApp();

describe('Issue history', () => {
  it('records creation, state moves with group and pauses_sla, priority changes, responder comments and project policy changes, oldest first', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const member = await ws.addUser('member');
    const project = await createProject(api, ws);
    const { byGroup } = await projectStates(api, ws, project.id);
    const statesPath = `/api/workspaces/${ws.slug}/projects/${project.id}/states/`;
    const waiting = (await api.post(statesPath, { name: 'Waiting on customer', group: 'started', pauses_sla: true }, { token: ws.admin.token })).body;
    const issuePath = (id: string) => `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${id}/`;

    const t0 = clock.now().toISOString();
    const issue = await createIssue(api, ws, project.id, { priority: 'high' });
    clock.advance(60_000);
    const t1 = clock.now().toISOString();
    expect((await api.patch(issuePath(issue.id), { state_id: waiting.id, priority: 'urgent' }, { token: member.token })).status).toBe(200);
    clock.advance(60_000);
    // The creator's own comment is no response; a member's is.
    await api.post(`${issuePath(issue.id)}comments/`, { body: 'mine' }, { token: ws.admin.token });
    const t2 = clock.now().toISOString();
    const comment = (await api.post(`${issuePath(issue.id)}comments/`, { body: 'hello' }, { token: member.token })).body;
    // A name-only edit is not history.
    await api.patch(issuePath(issue.id), { name: 'Renamed' }, { token: ws.admin.token });
    clock.advance(60_000);
    const t3 = clock.now().toISOString();
    const policy = await createPolicy(api, ws);
    expect((await api.patch(`/api/workspaces/${ws.slug}/projects/${project.id}/`, { sla_policy_id: policy.id }, { token: ws.admin.token })).status).toBe(200);

    const res = await api.get(`${issuePath(issue.id)}history/`, { token: member.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ total: 5, offset: 0, per_page: 20 });
    expect(res.body.results).toEqual([
      {
        id: expect.any(String),
        at: t0,
        actor_id: ws.admin.user.id,
        kind: 'created',
        from: null,
        to: { state_id: byGroup('backlog'), group: 'backlog', pauses_sla: false, priority: 'high' },
      },
      {
        id: expect.any(String),
        at: t1,
        actor_id: member.user.id,
        kind: 'state',
        from: { state_id: byGroup('backlog'), group: 'backlog', pauses_sla: false },
        to: { state_id: waiting.id, group: 'started', pauses_sla: true },
      },
      { id: expect.any(String), at: t1, actor_id: member.user.id, kind: 'priority', from: 'high', to: 'urgent' },
      { id: expect.any(String), at: t2, actor_id: member.user.id, kind: 'comment', from: null, to: { comment_id: comment.id } },
      { id: expect.any(String), at: t3, actor_id: ws.admin.user.id, kind: 'project_policy', from: null, to: policy.id },
    ]);

    const page = await api.get(`${issuePath(issue.id)}history/?offset=1&per_page=2`, { token: member.token });
    expect(page.body.total).toBe(5);
    expect(page.body.results.map((e: { kind: string }) => e.kind)).toEqual(['state', 'priority']);
  });

  it('answers 404 for an issue of another project or workspace, and 400 for a bad page', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const other = await createWorkspace(api);
    const project = await createProject(api, ws);
    const second = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id);
    expectProblem(await api.get(`/api/workspaces/${ws.slug}/projects/${second.id}/issues/${issue.id}/history/`, { token: ws.admin.token }), 404);
    expectProblem(await api.get(`/api/workspaces/${other.slug}/projects/${project.id}/issues/${issue.id}/history/`, { token: other.admin.token }), 404);
    expectProblem(await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/history/`, { token: other.admin.token }), 404);
    expectProblem(await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/history/?per_page=0`, { token: ws.admin.token }), 400);
  });
});
