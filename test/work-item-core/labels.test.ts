import { describe, expect, it } from 'vitest';
import { createProject, createWorkspace, expectProblem } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { coreFixture } from './support.js';

const ctx = useTestApp();

describe('labels (contract 24.1)', () => {
  it('creates, lists by name, renames, recolours and deletes labels of a project', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const url = `${f.base}/labels/`;
    const bug = await api.post(url, { name: '  Bug ', color: '#DC2626', description: 'Something is broken' }, f.t);
    expect(bug.status, bug.text).toBe(201);
    expect(bug.body).toMatchObject({ name: 'Bug', color: '#dc2626', description: 'Something is broken', project_id: f.project.id });
    const plain = await api.post(url, { name: 'docs' }, f.t);
    expect(plain.body).toMatchObject({ color: '#6b7280', description: '' });
    expect((await api.get(url, f.t)).body.map((l: { name: string }) => l.name)).toEqual(['Bug', 'docs']);
    const renamed = await api.patch(`${url}${bug.body.id}/`, { name: 'Defect', color: '#000000' }, f.t);
    expect(renamed.body).toMatchObject({ name: 'Defect', color: '#000000', description: 'Something is broken' });
    expect((await api.delete(`${url}${bug.body.id}/`, f.t)).status).toBe(204);
    expectProblem(await api.delete(`${url}${bug.body.id}/`, f.t), 404, 'not_found');
    expect((await api.get(url, f.t)).body).toHaveLength(1);
  });

  it('refuses a name taken in the project ignoring case (409), and allows it in another project', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const other = await createProject(api, f.ws);
    await f.label('Straße');
    expectProblem(await api.post(`${f.base}/labels/`, { name: 'STRASSE' }, f.t), 409, 'conflict');
    const second = await f.label('Other');
    expectProblem(await api.patch(`${f.base}/labels/${second.id}/`, { name: 'straße' }, f.t), 409, 'conflict');
    await f.label('Straße', '#000000', other.id);
  });

  it('validates name, colour and description with 400 naming the field', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const url = `${f.base}/labels/`;
    expectProblem(await api.post(url, {}, f.t), 400, 'validation_failed');
    for (const [body, path] of [
      [{ name: '   ' }, '/name'],
      [{ name: 'x'.repeat(65) }, '/name'],
      [{ name: 'ok', color: 'red' }, '/color'],
      [{ name: 'ok', color: '#12345' }, '/color'],
      [{ name: 'ok', description: 'x'.repeat(501) }, '/description'],
    ] as const) {
      const res = await api.post(url, body, f.t);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].path).toBe(path);
    }
  });

  it('sets the whole set on create and PATCH, sorted, with history kind labels', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const a = await f.label('a');
    const b = await f.label('b');
    const c = await f.label('c');
    const sorted = (ids: string[]) => [...ids].sort();
    const issue = await f.issue({ label_ids: [c.id, a.id, a.id] });
    expect((await f.read(issue.id)).label_ids).toEqual(sorted([a.id, c.id]));
    const patched = await api.patch(f.issueUrl(issue.id), { label_ids: [b.id] }, f.t);
    expect(patched.body.label_ids).toEqual([b.id]);
    const cleared = await api.patch(f.issueUrl(issue.id), { label_ids: [] }, f.t);
    expect(cleared.body.label_ids).toEqual([]);
    const history = (await f.history(issue.id)).filter((h) => h.kind === 'labels');
    expect(history).toEqual([
      expect.objectContaining({ from: sorted([a.id, c.id]), to: [b.id], actor_id: f.ws.admin.user.id }),
      expect.objectContaining({ from: [b.id], to: [] }),
    ]);
    // The same set again is no change: no history entry.
    await api.patch(f.issueUrl(issue.id), { label_ids: [] }, f.t);
    expect((await f.history(issue.id)).filter((h) => h.kind === 'labels')).toHaveLength(2);
  });

  it('refuses a label of another project, another workspace or none at all with 400 naming the index', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const other = await createProject(api, f.ws);
    const own = await f.label('own');
    const foreign = await f.label('foreign', '#000000', other.id);
    const elsewhere = await coreFixture(api);
    const theirs = await elsewhere.label('theirs');
    const issue = await f.issue();
    for (const id of [foreign.id, theirs.id, '01a1fe20-0000-7000-8000-000000000000']) {
      const created = await api.post(`${f.base}/issues/`, { name: 'x', label_ids: [own.id, id] }, f.t);
      expectProblem(created, 400, 'validation_failed');
      expect(created.body.errors[0].path).toBe('/label_ids/1');
      const patched = await api.patch(f.issueUrl(issue.id), { label_ids: [id] }, f.t);
      expectProblem(patched, 400, 'validation_failed');
      expect(patched.body.errors[0].path).toBe('/label_ids/0');
    }
    expectProblem(await api.patch(f.issueUrl(issue.id), { label_ids: ['nope'] }, f.t), 400, 'validation_failed');
    expect((await f.read(issue.id)).label_ids).toEqual([]);
  });

  it('takes a deleted label off its issues, with issue.updated but no history, and counts stay exact', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const a = await f.label('a');
    const b = await f.label('b');
    const one = await f.issue({ label_ids: [a.id, b.id] });
    const two = await f.issue({ label_ids: [a.id] });
    expect((await api.get(`${f.base}/issues/?label_id=${a.id}`, f.t)).body.total).toBe(2);
    expect((await api.delete(`${f.base}/labels/${a.id}/`, f.t)).status).toBe(204);
    expect((await f.read(one.id)).label_ids).toEqual([b.id]);
    expect((await f.read(two.id)).label_ids).toEqual([]);
    expect((await api.get(`${f.base}/issues/?label_id=${a.id}`, f.t)).body).toMatchObject({ total: 0, results: [] });
    expect((await api.get(`${f.base}/issues/?label_id=${b.id}`, f.t)).body.total).toBe(1);
    expect((await f.history(one.id)).filter((h) => h.kind === 'labels')).toEqual([]);
  });

  it('filters the issue list by label_id (repeated or comma-separated: any of them), with exact totals', async () => {
    const { api, app } = ctx();
    const f = await coreFixture(api);
    const a = await f.label('a');
    const b = await f.label('b');
    const c = await f.label('c');
    const ab = await f.issue({ label_ids: [a.id, b.id] });
    const onlyA = await f.issue({ label_ids: [a.id] });
    const onlyB = await f.issue({ label_ids: [b.id], priority: 'high' });
    await f.issue();
    await api.patch(f.issueUrl(onlyA.id), { label_ids: [a.id, c.id] }, f.t);
    const ids = async (qs: string) => {
      const res = await api.get(`${f.base}/issues/?${qs}`, f.t);
      expect(res.status, res.text).toBe(200);
      return { ids: res.body.results.map((i: { id: string }) => i.id).sort(), total: res.body.total };
    };
    expect(await ids(`label_id=${a.id}`)).toEqual({ ids: [ab.id, onlyA.id].sort(), total: 2 });
    expect(await ids(`label_id=${c.id}`)).toEqual({ ids: [onlyA.id], total: 1 });
    expect(await ids(`label_id=${a.id}&label_id=${b.id}`)).toEqual({ ids: [ab.id, onlyA.id, onlyB.id].sort(), total: 3 });
    expect(await ids(`label_id=${a.id},${b.id}&priority=high`)).toEqual({ ids: [onlyB.id], total: 1 });
    expect(await ids(`label_id=01a1fe20-0000-7000-8000-000000000000`)).toEqual({ ids: [], total: 0 });
    // The kept counts read the same after the job folded them.
    await app.services.workItems.runLabelCounts();
    expect((await ids(`label_id=${a.id}`)).total).toBe(2);
    expect((await ids(`label_id=${b.id}&offset=5`)).total).toBe(2);
    const bad = await api.get(`${f.base}/issues/?label_id=not-a-uuid`, f.t);
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors[0].path).toBe('/querystring/label_id');
  });

  it('lets members manage labels and guests only read them; other workspaces get 404', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const member = await f.ws.addUser('member');
    const guest = await f.ws.addUser('guest');
    const url = `${f.base}/labels/`;
    const made = await api.post(url, { name: 'by member' }, { token: member.token });
    expect(made.status).toBe(201);
    expect((await api.get(url, { token: guest.token })).body).toHaveLength(1);
    expectProblem(await api.post(url, { name: 'by guest' }, { token: guest.token }), 403, 'forbidden');
    expectProblem(await api.patch(`${url}${made.body.id}/`, { name: 'x' }, { token: guest.token }), 403, 'forbidden');
    expectProblem(await api.delete(`${url}${made.body.id}/`, { token: guest.token }), 403, 'forbidden');
    const outsider = await createWorkspace(api);
    const o = { token: outsider.admin.token };
    expectProblem(await api.get(url, o), 404);
    expectProblem(await api.post(url, { name: 'x' }, o), 404);
    expectProblem(await api.patch(`${url}${made.body.id}/`, { name: 'x' }, o), 404);
    // A label id of this workspace under the outsider's own project is not found either.
    const theirs = await coreFixture(api);
    expectProblem(await api.patch(`${theirs.base}/labels/${made.body.id}/`, { name: 'x' }, theirs.t), 404);
    expectProblem(await api.delete(`${theirs.base}/labels/${made.body.id}/`, theirs.t), 404);
    expectProblem(await api.get(url), 401);
  });
});
