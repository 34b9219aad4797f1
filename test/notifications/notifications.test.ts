/** Watchers and the inbox (contract 26.1, 26.2) through HTTP: who is told what, the inbox's actions, isolation. */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, projectStates, type Session } from '../helpers/factories.js';
import { notificationsRepository } from '../../src/modules/notifications/notifications.repository.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();
const HOUR = 3_600_000;

async function setup() {
  const { api } = ctx();
  const ws = await createWorkspace(api);
  const member = await ws.addUser('member', 'Member');
  const other = await ws.addUser('member', 'Other');
  const guest = await ws.addUser('guest', 'Guest');
  const project = await createProject(api, ws);
  const { byGroup, states } = await projectStates(api, ws, project.id);
  const base = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/`;
  const inbox = async (who: Session, query = '') => {
    const res = await api.get(`/api/users/me/notifications/${query}`, { token: who.token });
    expect(res.status, res.text).toBe(200);
    return res.body as { results: any[]; total: number; unread_count: number; offset: number; per_page: number };
  };
  const kinds = async (who: Session, query = '') => (await inbox(who, query)).results.map((n) => n.kind);
  const patch = async (issueId: string, body: Record<string, unknown>, token = ws.admin.token) => {
    const res = await api.patch(`${base}${issueId}/`, body, { token });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const comment = async (issueId: string, body: string, token: string) => {
    const res = await api.post(`${base}${issueId}/comments/`, { body }, { token });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  return { api, ws, member, other, guest, project, byGroup, states, base, inbox, kinds, patch, comment };
}

describe('who is told what', () => {
  it('tells new assignees `assigned`, never the actor, and makes them watchers', async () => {
    const s = await setup();
    const issue = await createIssue(s.api, s.ws, s.project.id, { name: 'Printer', assignee_ids: [s.member.user.id, s.ws.admin.user.id] });
    expect(await s.kinds(s.member)).toEqual(['assigned']);
    expect(await s.kinds(s.ws.admin)).toEqual([]);
    const [n] = (await s.inbox(s.member)).results;
    expect(n).toMatchObject({
      workspace_slug: s.ws.slug,
      issue: { id: issue.id, key: `${s.project.identifier}-1`, name: 'Printer' },
      kind: 'assigned',
      actor: { id: s.ws.admin.user.id, display_name: 'Admin' },
      data: { project_id: s.project.id },
      read_at: null,
      archived_at: null,
      snoozed_until: null,
    });
    await s.patch(issue.id, { assignee_ids: [s.member.user.id, s.other.user.id] });
    expect(await s.kinds(s.other)).toEqual(['assigned']);
    expect(await s.kinds(s.member)).toEqual(['assigned']); // not told again: not newly assigned
    const watchers = await s.api.get(`${s.base}${issue.id}/watchers/`, { token: s.guest.token });
    expect(watchers.status).toBe(200);
    expect(watchers.body.map((w: any) => w.id).sort()).toEqual([s.ws.admin.user.id, s.member.user.id, s.other.user.id].sort());
    expect(watchers.body[0]).toEqual({ id: expect.any(String), display_name: expect.any(String), email: expect.stringContaining('@') });
  });

  it('tells watchers of state, priority and due date changes with what changed, one per change and recipient', async () => {
    const s = await setup();
    const issue = await createIssue(s.api, s.ws, s.project.id, { name: 'Leak', assignee_ids: [s.member.user.id] });
    const started = s.byGroup('started');
    await s.patch(issue.id, { state_id: started }, s.member.token);
    const backlog = s.states.find((x) => x.group === 'backlog')!;
    const startedState = s.states.find((x) => x.id === started)!;
    const admin = (await s.inbox(s.ws.admin)).results;
    expect(admin.map((n) => n.kind)).toEqual(['state_changed']);
    expect(admin[0].data).toEqual({
      project_id: s.project.id,
      from: { id: backlog.id, name: backlog.name, group: 'backlog' },
      to: { id: started, name: startedState.name, group: 'started' },
    });
    expect(admin[0].actor).toEqual({ id: s.member.user.id, display_name: 'Member' });
    expect(await s.kinds(s.member)).toEqual(['assigned']); // the actor is not told of their own change

    await s.patch(issue.id, { priority: 'high' });
    expect((await s.inbox(s.member)).results[0]).toMatchObject({ kind: 'priority_changed', data: { project_id: s.project.id, from: 'none', to: 'high' } });
    await s.patch(issue.id, { target_date: '2026-12-24' });
    expect((await s.inbox(s.member)).results[0]).toMatchObject({ kind: 'due_date_changed', data: { from: null, to: '2026-12-24' } });

    // State and priority in one change, and the member newly assigned: one notification, of the kind listed first.
    await s.patch(issue.id, { state_id: s.byGroup('completed'), priority: 'low', assignee_ids: [s.member.user.id, s.other.user.id] }, s.member.token);
    expect(await s.kinds(s.other)).toEqual(['assigned']);
    expect(await s.kinds(s.ws.admin)).toEqual(['state_changed', 'state_changed']);
    // Nothing is told of a name change.
    await s.patch(issue.id, { name: 'Leak in the roof' }, s.member.token);
    expect((await s.inbox(s.ws.admin)).total).toBe(2);
  });

  it('tells watchers `commented` and mentioned members `mentioned` (taking precedence), with an excerpt', async () => {
    const s = await setup();
    const issue = await createIssue(s.api, s.ws, s.project.id, { name: 'Door' });
    const long = 'x'.repeat(300);
    const c = await s.comment(issue.id, `Hey @${s.other.user.email.toUpperCase()}, look. ${long}`, s.member.token);
    expect((await s.inbox(s.ws.admin)).results[0]).toMatchObject({ kind: 'commented', data: { project_id: s.project.id, comment_id: c.id } });
    const mentioned = (await s.inbox(s.other)).results;
    expect(mentioned.map((n) => n.kind)).toEqual(['mentioned']);
    expect(mentioned[0].data.excerpt.length).toBeLessThanOrEqual(200);
    expect(mentioned[0].data.excerpt.startsWith('Hey @')).toBe(true);
    expect(await s.kinds(s.member)).toEqual([]); // the commenter is not told of their own comment
    // Commenter and mentioned now watch: the next comment tells them `commented`.
    await s.comment(issue.id, 'Fixed.', s.ws.admin.token);
    expect(await s.kinds(s.member)).toEqual(['commented']);
    expect(await s.kinds(s.other)).toEqual(['commented', 'mentioned']);
    // A mentioned member who already watches gets `mentioned`, not `commented` as well.
    await s.comment(issue.id, `@${s.member.user.email} again`, s.ws.admin.token);
    expect(await s.kinds(s.member)).toEqual(['mentioned', 'commented']);
  });

  it('tells members mentioned in a description, on an edit only the newly mentioned; a non-member is told nothing', async () => {
    const s = await setup();
    const { api } = s;
    const outsider = await createWorkspace(api);
    const issue = await createIssue(s.api, s.ws, s.project.id, {
      name: 'Spec',
      description: `cc @${s.member.user.email} and @${outsider.admin.user.email}`,
    });
    expect(await s.kinds(s.member)).toEqual(['mentioned']);
    expect(await s.kinds(outsider.admin)).toEqual([]);
    await s.patch(issue.id, { description: `cc @${s.member.user.email} and @${s.other.user.email}.` });
    expect(await s.kinds(s.other)).toEqual(['mentioned']);
    expect(await s.kinds(s.member)).toEqual(['mentioned']); // already mentioned: not told again
    expect((await s.inbox(s.other)).results[0].data.excerpt).toContain('cc @');
  });

  it('a bulk edit of 50 issues writes one notification per issue and recipient', async () => {
    const s = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push((await createIssue(s.api, s.ws, s.project.id, { name: `Bulk ${i}` }, s.member.token)).id);
    const res = await s.api.post(
      `${s.base}bulk/`,
      { issue_ids: ids, set: { priority: 'urgent', state_id: s.byGroup('started') } },
      { token: s.ws.admin.token },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.issues.every((i: any) => i.watching === false)).toBe(true);
    const page = await s.inbox(s.member, '?per_page=100');
    expect(page.total).toBe(50);
    expect(new Set(page.results.map((n) => n.issue.id)).size).toBe(50);
    expect(page.results.every((n) => n.kind === 'state_changed')).toBe(true);
    expect(page.unread_count).toBe(50);
    // Assigning all 50 to the other member: 50 `assigned`.
    const assigned = await s.api.post(`${s.base}bulk/`, { issue_ids: ids, set: { assignee_ids: [s.other.user.id] } }, { token: s.ws.admin.token });
    expect(assigned.status).toBe(200);
    expect((await s.inbox(s.other, '?per_page=100')).total).toBe(50);
  });

  it('a rolled-back change tells no one', async () => {
    const s = await setup();
    const issue = await createIssue(s.api, s.ws, s.project.id, { name: 'X' }, s.member.token);
    // The parent does not exist: the whole PATCH fails after nothing was committed.
    const res = await s.api.patch(
      `${s.base}${issue.id}/`,
      { priority: 'high', parent_id: '0190a0a0-0000-7000-8000-000000000000' },
      { token: s.ws.admin.token },
    );
    expect(res.status).toBe(400);
    expect(await s.kinds(s.member)).toEqual([]);
  });
});

describe('watching', () => {
  it('shows `watching` on the issue, the lists and the answers; watch and unwatch; an explicit unwatch holds until assigned', async () => {
    const s = await setup();
    const issue = (await createIssue(s.api, s.ws, s.project.id, { name: 'W' })) as Awaited<ReturnType<typeof createIssue>> & { watching: boolean };
    expect(issue.watching).toBe(true); // the creator
    const get = (token: string) => s.api.get(`${s.base}${issue.id}/`, { token });
    expect((await get(s.member.token)).body.watching).toBe(false);
    const watch = await s.api.post(`${s.base}${issue.id}/watch/`, undefined, { token: s.member.token });
    expect(watch.status, watch.text).toBe(200);
    expect(watch.body).toEqual({ watching: true });
    expect((await get(s.member.token)).body.watching).toBe(true);
    const list = await s.api.get(s.base, { token: s.member.token });
    expect(list.body.results.find((i: any) => i.id === issue.id).watching).toBe(true);
    const wide = await s.api.get(`/api/workspaces/${s.ws.slug}/issues/`, { token: s.other.token });
    expect(wide.body.results.find((i: any) => i.id === issue.id).watching).toBe(false);

    const unwatch = await s.api.delete(`${s.base}${issue.id}/watch/`, { token: s.ws.admin.token });
    expect(unwatch.status).toBe(204);
    expect((await s.patch(issue.id, { priority: 'low' }, s.member.token)).watching).toBe(true);
    expect(await s.kinds(s.ws.admin)).toEqual([]); // unwatched: not told
    // Commenting does not bring back an explicit unwatch ...
    await s.comment(issue.id, 'me too', s.ws.admin.token);
    expect((await get(s.ws.admin.token)).body.watching).toBe(false);
    // ... being mentioned does.
    await s.comment(issue.id, `@${s.ws.admin.user.email}`, s.member.token);
    expect((await get(s.ws.admin.token)).body.watching).toBe(true);
    expect(await s.kinds(s.ws.admin)).toEqual(['mentioned']);
  });

  it("keeps an explicit unwatch through the user's own comment, and ends it by an assignment", async () => {
    const s = await setup();
    const issue = await createIssue(s.api, s.ws, s.project.id, { name: 'Back' });
    const get = (token: string) => s.api.get(`${s.base}${issue.id}/`, { token });
    expect((await s.api.delete(`${s.base}${issue.id}/watch/`, { token: s.member.token })).status).toBe(204);
    await s.comment(issue.id, 'a comment of mine', s.member.token);
    expect((await get(s.member.token)).body.watching).toBe(false);
    await s.patch(issue.id, { assignee_ids: [s.member.user.id] });
    expect((await get(s.member.token)).body.watching).toBe(true);
    const { rows } = await sql<{ user_id: string; unwatched: boolean; source: string }>`
      SELECT user_id, unwatched, source FROM issue_watchers WHERE issue_id = ${issue.id} ORDER BY source`.execute(ctx().database.db);
    expect(rows).toEqual([
      { user_id: s.ws.admin.user.id, unwatched: false, source: 'creator' },
      { user_id: s.member.user.id, unwatched: false, source: 'manual' },
    ]);
  });

  it.runIf(process.env.DATABASE_URL)('lets one author comment on one issue from two requests at once: the watcher row is not locked', async () => {
    const s = await setup();
    const issue = await createIssue(s.api, s.ws, s.project.id, { name: 'Busy' });
    // Another comment of the admin's, still in its transaction: it has added the admin as a watcher, as comments do.
    let release!: () => void;
    let begun!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const started = new Promise<void>((r) => (begun = r));
    const other = ctx()
      .database.db.transaction()
      .execute(async (tx) => {
        await notificationsRepository().addWatchers(tx, [
          { workspace_id: s.ws.workspaceId, issue_id: issue.id, user_id: s.ws.admin.user.id, source: 'commenter', created_at: new Date() },
        ]);
        begun();
        await held;
      });
    await started;
    try {
      const answer = await Promise.race([s.comment(issue.id, 'meanwhile', s.ws.admin.token), new Promise((r) => setTimeout(() => r('waited'), 5_000))]);
      expect(answer).not.toBe('waited');
    } finally {
      release();
      await other;
    }
  });

  it('keeps webhook payloads unchanged: no `watching` in the recorded events', async () => {
    const s = await setup();
    const issue = (await createIssue(s.api, s.ws, s.project.id, { name: 'Hook' })) as Awaited<ReturnType<typeof createIssue>> & { watching: boolean };
    const updated = await s.patch(issue.id, { priority: 'high' });
    const { rows } = await sql<{ type: string; data: any }>`
      SELECT type, data FROM events WHERE workspace_id = ${s.ws.workspaceId} AND type LIKE 'issue.%' ORDER BY created_at, id`.execute(ctx().database.db);
    expect(rows.map((r) => r.type)).toEqual(['issue.created', 'issue.updated']);
    const { watching: _a, ...createdView } = issue;
    const { watching: _b, ...updatedView } = updated;
    expect(rows[0]!.data).toEqual(createdView);
    expect(rows[1]!.data).toEqual(updatedView);
    expect('watching' in rows[1]!.data).toBe(false);
  });

  it('answers 404 for an issue of another project or workspace, and 400 for a malformed id', async () => {
    const s = await setup();
    const issue = await createIssue(s.api, s.ws, s.project.id, { name: 'I' });
    const otherProject = await createProject(s.api, s.ws);
    const wrong = `/api/workspaces/${s.ws.slug}/projects/${otherProject.id}/issues/${issue.id}/watch/`;
    expectProblem(await s.api.post(wrong, undefined, { token: s.member.token }), 404, 'not_found');
    const outsider = await createWorkspace(s.api);
    expectProblem(await s.api.post(`${s.base}${issue.id}/watch/`, undefined, { token: outsider.admin.token }), 404, 'not_found');
    expectProblem(await s.api.get(`${s.base}not-a-uuid/watchers/`, { token: s.member.token }), 400, 'validation_failed');
  });
});

describe('the inbox', () => {
  it('reads by ids, all, and all of one workspace; unread filter; unread-count', async () => {
    const s = await setup();
    const second = await createWorkspace(s.api, s.ws.admin);
    await s.api.post(`/api/workspaces/${second.slug}/members/`, { email: s.member.user.email, role: 'member' }, { token: s.ws.admin.token });
    const p2 = await createProject(s.api, second);
    await createIssue(s.api, s.ws, s.project.id, { name: 'A', assignee_ids: [s.member.user.id] });
    await createIssue(s.api, s.ws, s.project.id, { name: 'B', assignee_ids: [s.member.user.id] });
    await createIssue(s.api, second, p2.id, { name: 'C', assignee_ids: [s.member.user.id] });
    const count = async (query = '') => (await s.api.get(`/api/users/me/notifications/unread-count/${query}`, { token: s.member.token })).body.unread;
    expect(await count()).toBe(3);
    expect(await count(`?workspace=${second.slug}`)).toBe(1);
    const all = await s.inbox(s.member);
    expect(all).toMatchObject({ total: 3, unread_count: 3, offset: 0, per_page: 20 });
    expect((await s.inbox(s.member, `?workspace=${second.slug}`)).results.map((n) => n.issue.name)).toEqual(['C']);

    const read = (body: unknown) => s.api.post('/api/users/me/notifications/read/', body, { token: s.member.token });
    const first = all.results[0];
    expect((await read({ ids: [first.id] })).body).toEqual({ updated: 1 });
    expect(await count()).toBe(2);
    expect((await s.inbox(s.member, '?unread=true')).total).toBe(2);
    expect((await s.inbox(s.member)).results[0].read_at).toBe(ctx().clock.now().toISOString());
    expect(first.workspace_slug).toBe(second.slug); // newest first
    expect((await read({ all: true, workspace: s.ws.slug })).body.updated).toBe(2);
    expect(await count()).toBe(0);
    expect((await read({ all: true })).body.updated).toBe(0);
    // Another user's ids are ignored.
    const mine = await createIssue(s.api, s.ws, s.project.id, { name: 'D', assignee_ids: [s.other.user.id] });
    expect(mine.id).toBeTruthy();
    const othersId = (await s.inbox(s.other)).results[0].id;
    expect((await read({ ids: [othersId] })).body).toEqual({ updated: 0 });
    expect((await s.inbox(s.other)).unread_count).toBe(1);
  });

  it('archives and unarchives; the default list hides the archive, archived=true shows it', async () => {
    const s = await setup();
    await createIssue(s.api, s.ws, s.project.id, { name: 'A', assignee_ids: [s.member.user.id] });
    const [n] = (await s.inbox(s.member)).results;
    const archived = await s.api.post(`/api/users/me/notifications/${n.id}/archive/`, undefined, { token: s.member.token });
    expect(archived.status, archived.text).toBe(200);
    expect(archived.body.archived_at).toBe(ctx().clock.now().toISOString());
    expect(await s.inbox(s.member)).toMatchObject({ total: 0, unread_count: 0, results: [] });
    expect((await s.inbox(s.member, '?archived=true')).results.map((x) => x.id)).toEqual([n.id]);
    const back = await s.api.post(`/api/users/me/notifications/${n.id}/unarchive/`, undefined, { token: s.member.token });
    expect(back.body.archived_at).toBeNull();
    expect((await s.inbox(s.member)).total).toBe(1);
  });

  it('filters by kind (total and page of that kind); deleting an issue takes its notifications with it', async () => {
    const s = await setup();
    const a = await createIssue(s.api, s.ws, s.project.id, { name: 'A', assignee_ids: [s.member.user.id] });
    const b = await createIssue(s.api, s.ws, s.project.id, { name: 'B', assignee_ids: [s.member.user.id] });
    await s.patch(a.id, { priority: 'urgent' });
    expect(await s.kinds(s.member)).toEqual(['priority_changed', 'assigned', 'assigned']);
    expect(await s.inbox(s.member, '?kind=assigned')).toMatchObject({ total: 2, unread_count: 3 });
    expect(await s.kinds(s.member, '?kind=priority_changed')).toEqual(['priority_changed']);
    expect((await s.api.get('/api/users/me/notifications/?kind=nope', { token: s.member.token })).status).toBe(400);
    const removed = await s.api.delete(`${s.base}${a.id}/`, { token: s.ws.admin.token });
    expect(removed.status).toBe(204);
    expect(await s.inbox(s.member)).toMatchObject({ total: 1, unread_count: 1, results: [{ issue: { id: b.id } }] });
  });

  it('hides a snoozed notification from the list and both counts until it wakes', async () => {
    const s = await setup();
    const { clock } = ctx();
    await createIssue(s.api, s.ws, s.project.id, { name: 'A', assignee_ids: [s.member.user.id] });
    await createIssue(s.api, s.ws, s.project.id, { name: 'B', assignee_ids: [s.member.user.id] });
    const [n] = (await s.inbox(s.member)).results;
    const until = new Date(clock.now().getTime() + HOUR).toISOString();
    const snoozed = await s.api.post(`/api/users/me/notifications/${n.id}/snooze/`, { until }, { token: s.member.token });
    expect(snoozed.status, snoozed.text).toBe(200);
    expect(snoozed.body.snoozed_until).toBe(until);
    expect(await s.inbox(s.member)).toMatchObject({ total: 1, unread_count: 1 });
    expect((await s.api.get('/api/users/me/notifications/unread-count/', { token: s.member.token })).body).toEqual({ unread: 1 });
    clock.advance(HOUR);
    const woken = await s.inbox(s.member);
    expect(woken).toMatchObject({ total: 2, unread_count: 2 });
    expect(woken.results.find((x) => x.id === n.id).read_at).toBeNull();
    const past = await s.api.post(
      `/api/users/me/notifications/${n.id}/snooze/`,
      { until: new Date(clock.now().getTime() - 1).toISOString() },
      { token: s.member.token },
    );
    expectProblem(past, 400, 'validation_failed');
  });

  it("answers 404 for another user's notification and 4xx for bad input", async () => {
    const s = await setup();
    await createIssue(s.api, s.ws, s.project.id, { name: 'A', assignee_ids: [s.member.user.id] });
    const [n] = (await s.inbox(s.member)).results;
    for (const action of ['archive', 'unarchive']) {
      expectProblem(await s.api.post(`/api/users/me/notifications/${n.id}/${action}/`, undefined, { token: s.other.token }), 404, 'not_found');
    }
    const until = new Date(ctx().clock.now().getTime() + HOUR).toISOString();
    expectProblem(await s.api.post(`/api/users/me/notifications/${n.id}/snooze/`, { until }, { token: s.other.token }), 404, 'not_found');
    const post = (path: string, body: unknown) => s.api.post(`/api/users/me/notifications/${path}`, body, { token: s.member.token });
    expectProblem(await post('read/', {}), 400, 'validation_failed');
    expectProblem(await post('read/', { ids: [n.id], all: true }), 400, 'validation_failed');
    expectProblem(await post('read/', { all: false }), 400, 'validation_failed');
    expectProblem(await post('read/', { ids: ['nope'] }), 400, 'validation_failed');
    expectProblem(await post('read/', { all: true, workspace: 'no-such-workspace' }), 404, 'not_found');
    expectProblem(await post(`${n.id}/snooze/`, { until: 'tomorrow' }), 400, 'validation_failed');
    expectProblem(await post(`${n.id}/snooze/`, {}), 400, 'validation_failed');
    expectProblem(await post('not-a-uuid/archive/', undefined), 400, 'validation_failed');
    for (const q of ['?per_page=0', '?per_page=101', '?offset=-1', '?unread=maybe', '?workspace=']) {
      expectProblem(await s.api.get(`/api/users/me/notifications/${q}`, { token: s.member.token }), 400, 'validation_failed');
    }
    expectProblem(await s.api.get(`/api/users/me/notifications/?workspace=${(await createWorkspace(s.api)).slug}`, { token: s.member.token }), 404);
    expectProblem(await s.api.get('/api/users/me/notifications/'), 401, 'unauthenticated');
  });

  it('a user who left the workspace gets no more notifications and no longer sees its old ones', async () => {
    const s = await setup();
    const issue = await createIssue(s.api, s.ws, s.project.id, { name: 'A', assignee_ids: [s.member.user.id] });
    expect((await s.inbox(s.member)).total).toBe(1);
    const left = await s.api.delete(`/api/workspaces/${s.ws.slug}/members/${s.member.user.id}/`, { token: s.member.token });
    expect(left.status, left.text).toBe(204);
    expect(await s.inbox(s.member)).toMatchObject({ total: 0, unread_count: 0 });
    await s.patch(issue.id, { priority: 'urgent' }); // still a watcher row, but no longer a member
    await s.comment(issue.id, `@${s.member.user.email}`, s.ws.admin.token);
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM notifications WHERE workspace_id = ${s.ws.workspaceId} AND user_id = ${s.member.user.id}`.execute(ctx().database.db);
    expect(rows[0]!.n).toBe(1);
    const watchers = await s.api.get(`${s.base}${issue.id}/watchers/`, { token: s.ws.admin.token });
    expect(watchers.body.map((w: any) => w.id)).toEqual([s.ws.admin.user.id]);
  });

  it('keeps workspaces apart: the inbox of one shows nothing of another, and another workspace filter is 404', async () => {
    const s = await setup();
    const t = await setup();
    await createIssue(s.api, s.ws, s.project.id, { name: 'S', assignee_ids: [s.member.user.id] });
    await createIssue(t.api, t.ws, t.project.id, { name: 'T', assignee_ids: [t.member.user.id] });
    expect((await s.inbox(s.member)).results.map((n) => n.issue.name)).toEqual(['S']);
    expect((await t.inbox(t.member)).results.map((n) => n.issue.name)).toEqual(['T']);
    expectProblem(await s.api.get(`/api/users/me/notifications/?workspace=${t.ws.slug}`, { token: s.member.token }), 404, 'not_found');
    const foreign = (await t.inbox(t.member)).results[0].id;
    expectProblem(await s.api.post(`/api/users/me/notifications/${foreign}/archive/`, undefined, { token: s.member.token }), 404, 'not_found');
  });
});
