/** Saved views (contract 23.3) through HTTP: CRUD, visibility and roles, filter validation, running a view. */
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, projectStates } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

async function setup() {
  const { api } = ctx();
  const ws = await createWorkspace(api);
  const member = await ws.addUser('member', 'Member');
  const other = await ws.addUser('member', 'Other');
  const guest = await ws.addUser('guest', 'Guest');
  const project = await createProject(api, ws);
  const views = `/api/workspaces/${ws.slug}/views/`;
  return { api, ws, member, other, guest, project, views };
}

describe('saved views', () => {
  it('creates, reads, lists, changes and deletes a view; the list shows your views and the shared ones by name', async () => {
    const { api, ws, member, other, project, views } = await setup();
    const created = await api.post(
      views,
      { name: '  Urgent work ', project_id: project.id, filters: { priority: ['urgent', 'high', 'urgent'], assignee_id: ['me'] }, order_by: '-priority' },
      { token: member.token },
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Urgent work',
      project_id: project.id,
      filters: { priority: ['urgent', 'high'], assignee_id: ['me'] },
      order_by: '-priority',
      shared: false,
      owner_id: member.user.id,
    });
    const id = created.body.id;
    expect((await api.get(`${views}${id}/`, { token: member.token })).body).toEqual(created.body);

    const shared = await api.post(views, { name: 'A shared one', shared: true }, { token: other.token });
    expect(shared.status, shared.text).toBe(201);
    expect(shared.body).toMatchObject({ project_id: null, filters: {}, order_by: null, shared: true });
    await api.post(views, { name: 'B private of other' }, { token: other.token });

    const listed = await api.get(views, { token: member.token });
    expect(listed.status).toBe(200);
    expect(listed.body.map((v: { name: string }) => v.name)).toEqual(['A shared one', 'Urgent work']);

    const patched = await api.patch(`${views}${id}/`, { name: 'Renamed', shared: true, filters: { state_group: ['started'] } }, { token: member.token });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Renamed', shared: true, filters: { state_group: ['started'] }, order_by: '-priority' });
    expect(new Date(patched.body.updated_at) >= new Date(created.body.updated_at)).toBe(true);

    expect((await api.delete(`${views}${id}/`, { token: member.token })).status).toBe(204);
    expectProblem(await api.get(`${views}${id}/`, { token: member.token }), 404, 'not_found');
    expectProblem(await api.delete(`${views}${id}/`, { token: member.token }), 404, 'not_found');
    expect((await api.get(views, { token: ws.admin.token })).body.map((v: { name: string }) => v.name)).toEqual(['A shared one']);
  });

  it("keeps a private view from everyone but its owner (admins included: 404); a shared one is everyone's to read", async () => {
    const { api, ws, member, other, guest, views } = await setup();
    const mine = (await api.post(views, { name: 'Mine' }, { token: member.token })).body;
    for (const token of [ws.admin.token, other.token, guest.token]) {
      expectProblem(await api.get(`${views}${mine.id}/`, { token }), 404, 'not_found');
      expectProblem(await api.get(`${views}${mine.id}/issues/`, { token }), 404, 'not_found');
    }
    expectProblem(await api.patch(`${views}${mine.id}/`, { name: 'x' }, { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.delete(`${views}${mine.id}/`, { token: ws.admin.token }), 404, 'not_found');

    const shared = (await api.post(views, { name: 'Shared', shared: true }, { token: member.token })).body;
    for (const token of [ws.admin.token, other.token, guest.token]) {
      expect((await api.get(`${views}${shared.id}/`, { token })).status).toBe(200);
      expect((await api.get(`${views}${shared.id}/issues/`, { token })).status).toBe(200);
    }
    // A member on another's shared view: 403; an admin may change and delete it; guests keep no views.
    expectProblem(await api.patch(`${views}${shared.id}/`, { name: 'x' }, { token: other.token }), 403, 'forbidden');
    expectProblem(await api.delete(`${views}${shared.id}/`, { token: other.token }), 403, 'forbidden');
    expectProblem(await api.post(views, { name: 'Guest view' }, { token: guest.token }), 403, 'forbidden');
    expect((await api.patch(`${views}${shared.id}/`, { name: 'By admin' }, { token: ws.admin.token })).body.name).toBe('By admin');
    expect((await api.delete(`${views}${shared.id}/`, { token: ws.admin.token })).status).toBe(204);

    // Another workspace: its views do not exist here, and this one's are 404 there.
    const elsewhere = await createWorkspace(api);
    const theirs = (await api.post(`/api/workspaces/${elsewhere.slug}/views/`, { name: 'Theirs', shared: true }, { token: elsewhere.admin.token })).body;
    expectProblem(await api.get(`${views}${theirs.id}/`, { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.get(`/api/workspaces/${elsewhere.slug}/views/`, { token: member.token }), 404, 'not_found');
    expectProblem(await api.get(views), 401, 'unauthenticated');
  });

  it('validates filters like the list (400 naming the key), the project and the name', async () => {
    const { api, ws, project, views } = await setup();
    const t = { token: ws.admin.token };
    const bad = async (body: Record<string, unknown>, path: string) => {
      const res = await api.post(views, { name: 'V', ...body }, t);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].path, res.text).toMatch(new RegExp(`^${path}(/\\d+)?$`));
    };
    await bad({ filters: { state_id: ['not-a-uuid'] } }, '/filters/state_id');
    await bad({ filters: { priority: ['extreme'] } }, '/filters/priority');
    await bad({ filters: { assignee_id: ['someone'] } }, '/filters/assignee_id');
    await bad({ filters: { created_from: ['yesterday'] } }, '/filters/created_from');
    await bad({ filters: { colour: ['red'] } }, '/filters/colour');
    await bad({ filters: { priority: 'high' } }, '/filters/priority');
    await bad({ filters: { priority: [''] } }, '/filters/priority');
    await bad({ project_id: project.id, filters: { project_id: [project.id] } }, '/filters/project_id');
    await bad({ order_by: 'colour' }, '/order_by');
    await bad({ project_id: '01a1fe20-0000-7000-8000-000000000000' }, '/project_id');
    await bad({ name: '   ' }, '/name');
    expectProblem(await api.post(views, { name: 'x'.repeat(101) }, t), 400, 'validation_failed');
    expectProblem(await api.post(views, { name: 'V', extra: 1 }, t), 400, 'validation_failed');
    expectProblem(await api.post(views, { name: 'V\u0000' }, t), 400, 'validation_failed');
    const view = (await api.post(views, { name: 'V' }, t)).body;
    const patch = await api.patch(`${views}${view.id}/`, { filters: { state_group: ['sideways'] } }, t);
    expectProblem(patch, 400, 'validation_failed');
    expect(patch.body.errors[0].path).toBe('/filters/state_group');
    expectProblem(await api.patch(`${views}${view.id}/`, {}, t), 400, 'validation_failed');
    expect((await api.get(`${views}${view.id}/`, t)).body.filters).toEqual({});
  });

  it('runs a view: its filters and sort with `me` as the caller, paginated; a deleted label it names matches nothing', async () => {
    const { api, ws, member, project, views } = await setup();
    const t = { token: ws.admin.token };
    const { byGroup } = await projectStates(api, ws, project.id);
    const label = (await api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/labels/`, { name: 'Bug' }, t)).body;
    const a = await createIssue(api, ws, project.id, { name: 'mine started', assignee_ids: [member.user.id], state_id: byGroup('started'), priority: 'low' });
    const b = await createIssue(api, ws, project.id, {
      name: 'mine urgent',
      assignee_ids: [member.user.id],
      state_id: byGroup('unstarted'),
      priority: 'urgent',
    });
    await createIssue(api, ws, project.id, { name: 'admin', assignee_ids: [ws.admin.user.id], state_id: byGroup('started') });
    await createIssue(api, ws, project.id, { name: 'mine done', assignee_ids: [member.user.id], state_id: byGroup('completed') });
    const labelled = await createIssue(api, ws, project.id, { name: 'labelled', label_ids: [label.id] });

    // "My issues", shared and workspace-wide: each member who runs it sees their own.
    const myIssues = (
      await api.post(
        views,
        { name: 'My issues', shared: true, filters: { assignee_id: ['me'], state_group: ['unstarted', 'started'] }, order_by: 'priority' },
        { token: member.token },
      )
    ).body;
    const run = await api.get(`${views}${myIssues.id}/issues/`, { token: member.token });
    expect(run.status, run.text).toBe(200);
    expect(run.body.total).toBe(2);
    expect(run.body.results.map((i: { id: string }) => i.id)).toEqual([b.id, a.id]);
    const page2 = await api.get(`${views}${myIssues.id}/issues/?per_page=1&offset=1`, { token: member.token });
    expect(page2.body).toMatchObject({ total: 2, offset: 1, per_page: 1 });
    expect(page2.body.results.map((i: { id: string }) => i.id)).toEqual([a.id]);
    const asAdmin = await api.get(`${views}${myIssues.id}/issues/`, t);
    expect(asAdmin.body.results.map((i: { name: string }) => i.name)).toEqual(['admin']);

    // A project view naming a label that is deleted later: it keeps working and matches nothing.
    const byLabel = (await api.post(views, { name: 'Bugs', project_id: project.id, filters: { label_id: [label.id] } }, t)).body;
    expect((await api.get(`${views}${byLabel.id}/issues/`, t)).body.results.map((i: { id: string }) => i.id)).toEqual([labelled.id]);
    expect((await api.delete(`/api/workspaces/${ws.slug}/projects/${project.id}/labels/${label.id}/`, t)).status).toBe(204);
    const after = await api.get(`${views}${byLabel.id}/issues/`, t);
    expect(after.status, after.text).toBe(200);
    expect(after.body.total).toBe(0);
    expectProblem(await api.get(`${views}${byLabel.id}/issues/?per_page=0`, t), 400, 'validation_failed');

    // Deleting the project deletes its views.
    expect((await api.delete(`/api/workspaces/${ws.slug}/projects/${project.id}/`, t)).status).toBe(204);
    expectProblem(await api.get(`${views}${byLabel.id}/`, t), 404, 'not_found');
    expect((await api.get(`${views}${myIssues.id}/`, t)).status).toBe(200);
  });
});
