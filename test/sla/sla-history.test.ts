import { describe, expect, it } from 'vitest';
import { clientFor, expectFailure, expectSuccess } from '../helpers/client.js';
import { createIssue, createProject, createWorkspace, projectStates } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { createPolicy } from './sla-fixtures.js';

// These tests call the API through the generated typed client (client/); fixtures (workspaces, issues) are shared.
const ctx = useTestApp();
const as = (token: string) => clientFor(ctx().url, token);
const history = '/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/history/' as const;

describe('Issue history', () => {
  it('records creation, state moves with group and pauses_sla, priority changes, responder comments and project policy changes, oldest first', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const member = await ws.addUser('member');
    const admin = as(ws.admin.token);
    const asMember = as(member.token);
    const project = await createProject(api, ws);
    const { byGroup } = await projectStates(api, ws, project.id);
    const inProject = { params: { path: { slug: ws.slug, projectId: project.id } } };
    const ofIssue = (issueId: string) => ({ params: { path: { slug: ws.slug, projectId: project.id, issueId } } });
    const issueRoute = '/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/' as const;
    const commentsRoute = '/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/comments/' as const;
    const waiting = (
      await admin.POST('/api/workspaces/{slug}/projects/{projectId}/states/', {
        ...inProject,
        body: { name: 'Waiting on customer', group: 'started', pauses_sla: true },
      })
    ).data!;

    const t0 = clock.now().toISOString();
    const issue = await createIssue(api, ws, project.id, { priority: 'high' });
    clock.advance(60_000);
    const t1 = clock.now().toISOString();
    expectSuccess(await asMember.PATCH(issueRoute, { ...ofIssue(issue.id), body: { state_id: waiting.id, priority: 'urgent' } }));
    clock.advance(60_000);
    // The creator's own comment is no response; a member's is.
    await admin.POST(commentsRoute, { ...ofIssue(issue.id), body: { body: 'mine' } });
    const t2 = clock.now().toISOString();
    const comment = (await asMember.POST(commentsRoute, { ...ofIssue(issue.id), body: { body: 'hello' } })).data!;
    // A name-only edit is not history.
    await admin.PATCH(issueRoute, { ...ofIssue(issue.id), body: { name: 'Renamed' } });
    clock.advance(60_000);
    const t3 = clock.now().toISOString();
    const policy = await createPolicy(api, ws);
    expectSuccess(await admin.PATCH('/api/workspaces/{slug}/projects/{projectId}/', { ...inProject, body: { sla_policy_id: policy.id } }));

    const res = expectSuccess(await asMember.GET(history, ofIssue(issue.id)));
    expect(res).toMatchObject({ total: 5, offset: 0, per_page: 20 });
    expect(res.results).toEqual([
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

    const page = (await asMember.GET(history, { params: { ...ofIssue(issue.id).params, query: { offset: 1, per_page: 2 } } })).data!;
    expect(page.total).toBe(5);
    expect(page.results.map((e) => e.kind)).toEqual(['state', 'priority']);
  });

  it('answers 404 for an issue of another project or workspace, and 400 for a bad page', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const other = await createWorkspace(api);
    const project = await createProject(api, ws);
    const second = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id);
    const at = (slug: string, projectId: string, query: { per_page?: number } = {}) => ({ params: { path: { slug, projectId, issueId: issue.id }, query } });
    expectFailure(await as(ws.admin.token).GET(history, at(ws.slug, second.id)), 404);
    expectFailure(await as(other.admin.token).GET(history, at(other.slug, project.id)), 404);
    expectFailure(await as(other.admin.token).GET(history, at(ws.slug, project.id)), 404);
    expectFailure(await as(ws.admin.token).GET(history, at(ws.slug, project.id, { per_page: 0 })), 400);
  });
});
