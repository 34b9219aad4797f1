import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, projectStates } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { breachedPath, comment, createPolicy, patchIssue, patchPolicy, patchProject, plusHours, policiesPath, tracker, trackerPath } from './sla-fixtures.js';

const ctx = useTestApp();

async function setup(options: { defaultPolicy?: boolean } = {}) {
  const { api } = ctx();
  const ws = await createWorkspace(api);
  const policy = options.defaultPolicy === false ? null : await createPolicy(api, ws, { is_default: true });
  const project = await createProject(api, ws);
  const { byGroup } = await projectStates(api, ws, project.id);
  return { api, ws, policy, project, byGroup };
}

describe('which policy applies', () => {
  it('answers 404 sla_not_applicable when the workspace has no policy', async () => {
    const { api, ws, project } = await setup({ defaultPolicy: false });
    const issue = await createIssue(api, ws, project.id, { priority: 'high' });
    expectProblem(await api.get(trackerPath(ws, issue.id), { token: ws.admin.token }), 404, 'sla_not_applicable');
  });

  it('gives no tracker to an issue with priority none, nor when the policy has no rule for the priority', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    await createPolicy(api, ws, { is_default: true, rules: [{ priority: 'urgent', response_time_h: 1, resolution_time_h: 2 }] });
    const project = await createProject(api, ws);
    const none = await createIssue(api, ws, project.id);
    const low = await createIssue(api, ws, project.id, { priority: 'low' });
    expectProblem(await api.get(trackerPath(ws, none.id), { token: ws.admin.token }), 404, 'sla_not_applicable');
    expectProblem(await api.get(trackerPath(ws, low.id), { token: ws.admin.token }), 404, 'sla_not_applicable');
  });

  it('creates a tracker from the default policy with due times from the issue creation', async () => {
    const { api, ws, policy, project } = await setup();
    const issue = await createIssue(api, ws, project.id, { priority: 'high' });
    const t = await tracker(api, ws, issue.id);
    expect(t).toEqual({
      id: expect.any(String),
      issue_id: issue.id,
      policy_id: policy!.id,
      priority: 'high',
      response_due_at: plusHours(issue.created_at, 4),
      resolution_due_at: plusHours(issue.created_at, 24),
      responded_at: null,
      resolved_at: null,
      response_breached: false,
      resolution_breached: false,
      calendar_id: null,
      paused: false,
      response_remaining_seconds: 4 * 3600,
      resolution_remaining_seconds: 24 * 3600,
      at_risk: false,
    });
  });

  it('measures fractional targets: 0.5 hours is 30 minutes', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    await createPolicy(api, ws, { is_default: true, rules: [{ priority: 'urgent', response_time_h: 0.5, resolution_time_h: 1.25 }] });
    const project = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id, { priority: 'urgent' });
    const t = await tracker(api, ws, issue.id);
    expect(t.response_due_at).toBe(new Date(new Date(issue.created_at).getTime() + 30 * 60_000).toISOString());
    expect(t.resolution_due_at).toBe(new Date(new Date(issue.created_at).getTime() + 75 * 60_000).toISOString());
  });

  it("uses the project's own policy over the default, and recomputes when the project switches policy", async () => {
    const { api, ws, policy, project } = await setup();
    const fast = await createPolicy(api, ws, { name: 'Fast', rules: [{ priority: 'high', response_time_h: 1, resolution_time_h: 2 }] });
    const own = await createProject(api, ws, { sla_policy_id: fast.id });
    const a = await createIssue(api, ws, own.id, { priority: 'high' });
    expect(await tracker(api, ws, a.id)).toMatchObject({ policy_id: fast.id, response_due_at: plusHours(a.created_at, 1) });
    ctx().clock.advanceHours(3);
    const b = await createIssue(api, ws, project.id, { priority: 'high' });
    expect((await tracker(api, ws, b.id)).policy_id).toBe(policy!.id);

    expect((await patchProject(api, ws, project.id, { sla_policy_id: fast.id })).status).toBe(200);
    expect(await tracker(api, ws, b.id)).toMatchObject({
      policy_id: fast.id,
      response_due_at: plusHours(b.created_at, 1),
      resolution_due_at: plusHours(b.created_at, 2),
    });
    expect((await patchProject(api, ws, project.id, { sla_policy_id: null })).status).toBe(200);
    expect(await tracker(api, ws, b.id)).toMatchObject({ policy_id: policy!.id, response_due_at: plusHours(b.created_at, 4) });
  });

  it('moves the trackers of projects without a policy when the default switches, and removes them when there is none', async () => {
    const { api, ws, policy, project } = await setup();
    const issue = await createIssue(api, ws, project.id, { priority: 'urgent' });
    const other = await createPolicy(api, ws, { name: 'Other', rules: [{ priority: 'urgent', response_time_h: 2, resolution_time_h: 3 }] });
    await patchPolicy(api, ws, other.id, { is_default: true });
    expect(await tracker(api, ws, issue.id)).toMatchObject({ policy_id: other.id, response_due_at: plusHours(issue.created_at, 2) });
    await patchPolicy(api, ws, other.id, { is_default: false });
    expectProblem(await api.get(trackerPath(ws, issue.id), { token: ws.admin.token }), 404, 'sla_not_applicable');
    await patchPolicy(api, ws, policy!.id, { is_default: true });
    expect(await tracker(api, ws, issue.id)).toMatchObject({ policy_id: policy!.id, response_due_at: plusHours(issue.created_at, 1) });
  });
});

describe('recomputation', () => {
  it('recomputes due times from the creation when the priority changes, and removes the tracker on priority none', async () => {
    const { api, ws, project, clock } = { ...(await setup()), clock: ctx().clock };
    const issue = await createIssue(api, ws, project.id, { priority: 'low' });
    const before = await tracker(api, ws, issue.id);
    clock.advanceHours(2);
    await patchIssue(api, ws, project.id, issue.id, { priority: 'urgent' });
    const after = await tracker(api, ws, issue.id);
    expect(after).toMatchObject({
      id: before.id,
      priority: 'urgent',
      response_due_at: plusHours(issue.created_at, 1),
      resolution_due_at: plusHours(issue.created_at, 4),
    });
    expect(after.response_breached).toBe(true);
    await patchIssue(api, ws, project.id, issue.id, { priority: 'none' });
    expectProblem(await api.get(trackerPath(ws, issue.id), { token: ws.admin.token }), 404, 'sla_not_applicable');
    await patchIssue(api, ws, project.id, issue.id, { priority: 'medium' });
    expect(await tracker(api, ws, issue.id)).toMatchObject({ priority: 'medium', response_due_at: plusHours(issue.created_at, 8) });
  });

  it('creates a tracker when an issue without one gets a priority with a rule', async () => {
    const { api, ws, project } = await setup();
    const issue = await createIssue(api, ws, project.id);
    await patchIssue(api, ws, project.id, issue.id, { priority: 'high' });
    expect(await tracker(api, ws, issue.id)).toMatchObject({ priority: 'high', response_due_at: plusHours(issue.created_at, 4) });
  });

  it('recomputes unresolved trackers when the rules change, keeps resolved ones, and removes trackers whose rule is gone', async () => {
    const { api, ws, policy, project, byGroup } = await setup();
    const open = await createIssue(api, ws, project.id, { priority: 'high' });
    const done = await createIssue(api, ws, project.id, { priority: 'high' });
    const low = await createIssue(api, ws, project.id, { priority: 'low' });
    await patchIssue(api, ws, project.id, done.id, { state_id: byGroup('completed') });
    const doneBefore = await tracker(api, ws, done.id);
    await patchPolicy(api, ws, policy!.id, {
      rules: [
        { priority: 'high', response_time_h: 2, resolution_time_h: 10 },
        { priority: 'urgent', response_time_h: 1, resolution_time_h: 2 },
      ],
    });
    expect(await tracker(api, ws, open.id)).toMatchObject({
      response_due_at: plusHours(open.created_at, 2),
      resolution_due_at: plusHours(open.created_at, 10),
    });
    expect(await tracker(api, ws, done.id)).toEqual(doneBefore);
    expectProblem(await api.get(trackerPath(ws, low.id), { token: ws.admin.token }), 404, 'sla_not_applicable');
    // Reopening the resolved issue brings its open target in line with the current rules; the response target was
    // met and never changes (contract 11.3).
    await patchIssue(api, ws, project.id, done.id, { state_id: byGroup('started') });
    expect(await tracker(api, ws, done.id)).toMatchObject({
      resolved_at: null,
      response_due_at: doneBefore.response_due_at,
      resolution_due_at: plusHours(done.created_at, 10),
    });
  });

  it('keeps the due times of a resolved tracker when its priority changes', async () => {
    const { api, ws, project, byGroup } = await setup();
    const issue = await createIssue(api, ws, project.id, { priority: 'high' });
    await patchIssue(api, ws, project.id, issue.id, { state_id: byGroup('cancelled') });
    const before = await tracker(api, ws, issue.id);
    await patchIssue(api, ws, project.id, issue.id, { priority: 'urgent' });
    expect(await tracker(api, ws, issue.id)).toEqual(before);
  });

  it('applies a priority change sent together with a resolution before the tracker closes', async () => {
    const { api, ws, project, byGroup } = await setup();
    const issue = await createIssue(api, ws, project.id, { priority: 'low' });
    await patchIssue(api, ws, project.id, issue.id, { state_id: byGroup('completed'), priority: 'urgent' });
    expect(await tracker(api, ws, issue.id)).toMatchObject({ priority: 'urgent', response_due_at: plusHours(issue.created_at, 1) });
  });

  it('removes the trackers of a deleted policy and falls back to the default for projects that named it', async () => {
    const { api, ws, policy, project } = await setup();
    const named = await createPolicy(api, ws, { name: 'Named', rules: [{ priority: 'high', response_time_h: 0.5, resolution_time_h: 1 }] });
    const own = await createProject(api, ws, { sla_policy_id: named.id });
    const a = await createIssue(api, ws, own.id, { priority: 'high' });
    const b = await createIssue(api, ws, project.id, { priority: 'high' });
    expect((await tracker(api, ws, a.id)).policy_id).toBe(named.id);
    expect((await api.delete(`${policiesPath(ws)}${named.id}/`, { token: ws.admin.token })).status).toBe(204);
    expect(await tracker(api, ws, a.id)).toMatchObject({ policy_id: policy!.id, response_due_at: plusHours(a.created_at, 4) });
    // Deleting the default leaves no policy at all.
    expect((await api.delete(`${policiesPath(ws)}${policy!.id}/`, { token: ws.admin.token })).status).toBe(204);
    expectProblem(await api.get(trackerPath(ws, a.id), { token: ws.admin.token }), 404, 'sla_not_applicable');
    expectProblem(await api.get(trackerPath(ws, b.id), { token: ws.admin.token }), 404, 'sla_not_applicable');
  });
});

describe('concurrency', () => {
  it('leaves no tracker on stale rules when issues are created while the rules change', async () => {
    const { api, ws, policy, project } = await setup();
    const rules = [{ priority: 'high', response_time_h: 2, resolution_time_h: 3 }];
    const [patched, ...created] = await Promise.all([
      api.patch(`${policiesPath(ws)}${policy!.id}/`, { rules }, { token: ws.admin.token }),
      ...Array.from({ length: 8 }, () =>
        api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/`, { name: 'x', priority: 'high' }, { token: ws.admin.token }),
      ),
    ]);
    expect(patched!.status).toBe(200);
    for (const res of created) {
      expect(res.status).toBe(201);
      expect(await tracker(api, ws, res.body.id)).toMatchObject({
        response_due_at: plusHours(res.body.created_at, 2),
        resolution_due_at: plusHours(res.body.created_at, 3),
      });
    }
  });
});

describe('responded_at and resolved_at', () => {
  it('counts a comment by another member as the response, not one by the creator, and never moves it', async () => {
    const { api, ws, project } = await setup();
    const { clock } = ctx();
    const guest = await ws.addUser('guest');
    const issue = await createIssue(api, ws, project.id, { priority: 'high' });
    clock.advanceHours(1);
    await comment(api, ws, project.id, issue.id, ws.admin.token);
    expect((await tracker(api, ws, issue.id)).responded_at).toBeNull();
    clock.advanceHours(1);
    const respondedAt = clock.now().toISOString();
    await comment(api, ws, project.id, issue.id, guest.token);
    expect((await tracker(api, ws, issue.id)).responded_at).toBe(respondedAt);
    clock.advanceHours(1);
    await comment(api, ws, project.id, issue.id, guest.token);
    expect((await tracker(api, ws, issue.id)).responded_at).toBe(respondedAt);
  });

  it('counts a move into started, completed or cancelled as the response, not into unstarted or backlog', async () => {
    const { api, ws, project, byGroup } = await setup();
    const { clock } = ctx();
    for (const group of ['started', 'completed', 'cancelled']) {
      const issue = await createIssue(api, ws, project.id, { priority: 'high' });
      clock.advanceHours(1);
      await patchIssue(api, ws, project.id, issue.id, { state_id: byGroup('unstarted') });
      expect((await tracker(api, ws, issue.id)).responded_at).toBeNull();
      clock.advanceHours(1);
      await patchIssue(api, ws, project.id, issue.id, { state_id: byGroup(group) });
      expect((await tracker(api, ws, issue.id)).responded_at).toBe(clock.now().toISOString());
    }
  });

  it('sets resolved_at on completion or cancellation and clears it on reopening; the response stays', async () => {
    const { api, ws, project, byGroup } = await setup();
    const { clock } = ctx();
    const issue = await createIssue(api, ws, project.id, { priority: 'high' });
    clock.advanceHours(1);
    const firstMove = clock.now().toISOString();
    await patchIssue(api, ws, project.id, issue.id, { state_id: byGroup('completed') });
    expect(await tracker(api, ws, issue.id)).toMatchObject({ responded_at: firstMove, resolved_at: firstMove });
    clock.advanceHours(1);
    // completed -> cancelled: still resolved, since the first moment.
    await patchIssue(api, ws, project.id, issue.id, { state_id: byGroup('cancelled') });
    expect((await tracker(api, ws, issue.id)).resolved_at).toBe(firstMove);
    clock.advanceHours(1);
    await patchIssue(api, ws, project.id, issue.id, { state_id: byGroup('backlog') });
    expect(await tracker(api, ws, issue.id)).toMatchObject({ responded_at: firstMove, resolved_at: null });
    clock.advanceHours(1);
    await patchIssue(api, ws, project.id, issue.id, { state_id: byGroup('cancelled') });
    expect((await tracker(api, ws, issue.id)).resolved_at).toBe(clock.now().toISOString());
  });

  it('treats an issue created in a completed state as responded and resolved at creation', async () => {
    const { api, ws, project, byGroup } = await setup();
    const issue = await createIssue(api, ws, project.id, { priority: 'urgent', state_id: byGroup('completed') });
    expect(await tracker(api, ws, issue.id)).toMatchObject({
      responded_at: issue.created_at,
      resolved_at: issue.created_at,
      response_breached: false,
      resolution_breached: false,
    });
  });
});

describe('breach flags', () => {
  it('turns a flag on once the clock passes a due time, with no job running', async () => {
    const { api, ws, project } = await setup();
    const { clock } = ctx();
    const issue = await createIssue(api, ws, project.id, { priority: 'urgent' }); // 1 h / 4 h
    clock.advanceHours(1);
    expect(await tracker(api, ws, issue.id)).toMatchObject({ response_breached: false, resolution_breached: false });
    clock.advance(1);
    expect(await tracker(api, ws, issue.id)).toMatchObject({ response_breached: true, resolution_breached: false });
    clock.advanceHours(3);
    expect(await tracker(api, ws, issue.id)).toMatchObject({ response_breached: true, resolution_breached: true });
  });

  it('keeps a target met in time unbreached, and a target met late breached, forever', async () => {
    const { api, ws, project, byGroup } = await setup();
    const { clock } = ctx();
    const member = await ws.addUser('member');
    const issue = await createIssue(api, ws, project.id, { priority: 'urgent' });
    clock.advanceHours(0.5);
    await comment(api, ws, project.id, issue.id, member.token);
    clock.advanceHours(5);
    await patchIssue(api, ws, project.id, issue.id, { state_id: byGroup('completed') });
    clock.advanceHours(100);
    expect(await tracker(api, ws, issue.id)).toMatchObject({ response_breached: false, resolution_breached: true });
  });
});

describe('breached list', () => {
  it('lists breached trackers most overdue first with the issue summary, paginated', async () => {
    const { api, ws, project, byGroup } = await setup();
    const { clock } = ctx();
    const low = await createIssue(api, ws, project.id, { name: 'Low one', priority: 'low' }); // 24 h
    const high = await createIssue(api, ws, project.id, { name: 'High one', priority: 'high' }); // 4 h
    clock.advanceHours(1);
    const urgent = await createIssue(api, ws, project.id, { name: 'Urgent one', priority: 'urgent' }); // due +1 h from now
    const met = await createIssue(api, ws, project.id, { priority: 'urgent' });
    await patchIssue(api, ws, project.id, met.id, { state_id: byGroup('completed') });
    await createIssue(api, ws, project.id, { priority: 'none' });

    let page = await api.get(breachedPath(ws), { token: ws.admin.token });
    expect(page.body).toEqual({ results: [], total: 0, offset: 0, per_page: 20 });

    clock.advanceHours(30);
    page = await api.get(breachedPath(ws), { token: ws.admin.token });
    expect(page.status).toBe(200);
    // high breached at +4 h, urgent at +2 h (created 1 h later, 1 h target), low at +24 h.
    expect(page.body.results.map((r: { issue_id: string }) => r.issue_id)).toEqual([urgent.id, high.id, low.id]);
    expect(page.body.total).toBe(3);
    const [first] = page.body.results;
    expect(first).toEqual({
      ...(await tracker(api, ws, urgent.id)),
      issue: { id: urgent.id, name: 'Urgent one', project_id: project.id, sequence_id: urgent.sequence_id, priority: 'urgent', state_group: 'backlog' },
    });
    expect(first.response_breached).toBe(true);

    const second = await api.get(breachedPath(ws, '?offset=1&per_page=1'), { token: ws.admin.token });
    expect(second.body).toMatchObject({ total: 3, offset: 1, per_page: 1 });
    expect(second.body.results.map((r: { issue_id: string }) => r.issue_id)).toEqual([high.id]);
    const third = await api.get(breachedPath(ws, '?offset=2&per_page=5'), { token: ws.admin.token });
    expect(third.body).toMatchObject({ total: 3, offset: 2, per_page: 5 });
    expect(third.body.results.map((r: { issue_id: string }) => r.issue_id)).toEqual([low.id]);
    const past = await api.get(breachedPath(ws, '?offset=10'), { token: ws.admin.token });
    expect(past.body).toEqual({ results: [], total: 3, offset: 10, per_page: 20 });
  });

  it('keeps an issue resolved late in the list and leaves out one resolved in time', async () => {
    const { api, ws, project, byGroup } = await setup();
    const { clock } = ctx();
    const late = await createIssue(api, ws, project.id, { priority: 'urgent' });
    clock.advanceHours(5);
    await patchIssue(api, ws, project.id, late.id, { state_id: byGroup('completed') });
    const onTime = await createIssue(api, ws, project.id, { priority: 'urgent' });
    await patchIssue(api, ws, project.id, onTime.id, { state_id: byGroup('completed') });
    clock.advanceHours(50);
    const page = await api.get(breachedPath(ws), { token: ws.admin.token });
    expect(page.body.results.map((r: { issue_id: string }) => r.issue_id)).toEqual([late.id]);
    expect(page.body.results[0]).toMatchObject({ response_breached: true, resolution_breached: true, issue: { state_group: 'completed' } });
  });

  it('refuses bad pagination parameters', async () => {
    const { api, ws } = await setup();
    for (const q of ['?per_page=0', '?per_page=101', '?offset=-1', '?offset=abc', '?per_page=1.5']) {
      expectProblem(await api.get(breachedPath(ws, q), { token: ws.admin.token }), 400, 'validation_failed');
    }
  });
});

describe('tracker and breached list: roles and isolation', () => {
  it('lets admins, members and guests read trackers and the breached list; non-members get 404', async () => {
    const { api, ws, project } = await setup();
    const issue = await createIssue(api, ws, project.id, { priority: 'urgent' });
    ctx().clock.advanceHours(2);
    for (const role of ['member', 'guest'] as const) {
      const user = await ws.addUser(role);
      expect((await api.get(trackerPath(ws, issue.id), { token: user.token })).status).toBe(200);
      const list = await api.get(breachedPath(ws), { token: user.token });
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(1);
    }
    const outsider = await createWorkspace(api);
    expectProblem(await api.get(trackerPath(ws, issue.id), { token: outsider.admin.token }), 404, 'not_found');
    expectProblem(await api.get(breachedPath(ws), { token: outsider.admin.token }), 404, 'not_found');
    expectProblem(await api.get(trackerPath(ws, issue.id)), 401, 'unauthenticated');
    expectProblem(await api.get(breachedPath(ws)), 401, 'unauthenticated');
  });

  it('returns 404 not_found for an issue of another workspace or an unknown issue, 400 for a bad id', async () => {
    const { api, ws, project } = await setup();
    const other = await createWorkspace(api, ws.admin);
    await createPolicy(api, other, { is_default: true });
    const otherProject = await createProject(api, other);
    const foreign = await createIssue(api, other, otherProject.id, { priority: 'urgent' });
    await createIssue(api, ws, project.id, { priority: 'urgent' });
    const res = await api.get(trackerPath(ws, foreign.id), { token: ws.admin.token });
    expectProblem(res, 404, 'not_found');
    expectProblem(await api.get(trackerPath(ws, '01900000-0000-7000-8000-000000000000'), { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.get(trackerPath(ws, 'nope'), { token: ws.admin.token }), 400, 'validation_failed');
    ctx().clock.advanceHours(2);
    const a = await api.get(breachedPath(ws), { token: ws.admin.token });
    const b = await api.get(breachedPath(other), { token: ws.admin.token });
    expect(a.body.total).toBe(1);
    expect(b.body.total).toBe(1);
    expect(b.body.results[0].issue_id).toBe(foreign.id);
  });

  it('lets a workspace or project with policies and trackers be deleted', async () => {
    const { api, ws, project } = await setup();
    await createIssue(api, ws, project.id, { priority: 'urgent' });
    expect((await api.delete(`/api/workspaces/${ws.slug}/projects/${project.id}/`, { token: ws.admin.token })).status).toBe(204);
    const other = await createProject(api, ws);
    await createIssue(api, ws, other.id, { priority: 'high' });
    expect((await api.delete(`/api/workspaces/${ws.slug}/`, { token: ws.admin.token })).status).toBe(204);
  });

  it('drops the tracker with its issue', async () => {
    const { api, ws, project } = await setup();
    const issue = await createIssue(api, ws, project.id, { priority: 'urgent' });
    expect((await api.delete(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`, { token: ws.admin.token })).status).toBe(204);
    expectProblem(await api.get(trackerPath(ws, issue.id), { token: ws.admin.token }), 404, 'not_found');
  });
});
