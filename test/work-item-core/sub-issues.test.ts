import { describe, expect, it } from 'vitest';
import { createProject, expectProblem } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { coreFixture } from './support.js';

const ctx = useTestApp();

describe('sub-issues (contract 24.2)', () => {
  it('counts direct children and those completed, and lists children and top-level issues', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const parent = await f.issue({ name: 'Parent' });
    const a = await f.issue({ parent_id: parent.id });
    const b = await f.issue({ parent_id: parent.id, state_id: f.byGroup('completed') });
    const grandchild = await f.issue({ parent_id: a.id });
    expect((await f.read(parent.id)).sub_issues).toEqual({ total: 2, completed: 1 });
    expect(await f.read(a.id)).toMatchObject({ parent_id: parent.id, sub_issues: { total: 1, completed: 0 } });
    await api.patch(f.issueUrl(a.id), { state_id: f.byGroup('completed') }, f.t);
    expect((await f.read(parent.id)).sub_issues).toEqual({ total: 2, completed: 2 });
    await api.patch(f.issueUrl(b.id), { state_id: f.byGroup('cancelled') }, f.t);
    expect((await f.read(parent.id)).sub_issues).toEqual({ total: 2, completed: 1 });
    const children = await api.get(`${f.base}/issues/?parent_id=${parent.id}`, f.t);
    expect(children.body.total).toBe(2);
    expect(children.body.results.map((i: { id: string }) => i.id).sort()).toEqual([a.id, b.id].sort());
    const top = await api.get(`${f.base}/issues/?parent_id=none`, f.t);
    expect(top.body.results.map((i: { id: string }) => i.id)).toEqual([parent.id]);
    const either = await api.get(`${f.base}/issues/?parent_id=${a.id}&parent_id=none`, f.t);
    expect(either.body.total).toBe(2);
    expect(either.body.results.map((i: { id: string }) => i.id).sort()).toEqual([parent.id, grandchild.id].sort());
    // The list reads the counts too.
    const listed = (await api.get(`${f.base}/issues/`, f.t)).body.results.find((i: { id: string }) => i.id === parent.id);
    expect(listed.sub_issues).toEqual({ total: 2, completed: 1 });
  });

  it('moves an issue under another parent and to the top, with history kind parent', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const p1 = await f.issue();
    const p2 = await f.issue();
    const child = await f.issue({ parent_id: p1.id });
    expect((await api.patch(f.issueUrl(child.id), { parent_id: p2.id }, f.t)).body.parent_id).toBe(p2.id);
    expect((await api.patch(f.issueUrl(child.id), { parent_id: null }, f.t)).body.parent_id).toBeNull();
    expect((await f.read(p2.id)).sub_issues.total).toBe(0);
    expect((await f.history(child.id)).filter((h) => h.kind === 'parent')).toEqual([
      expect.objectContaining({ from: p1.id, to: p2.id }),
      expect.objectContaining({ from: p2.id, to: null }),
    ]);
  });

  it('refuses itself, an unknown issue, another project or workspace, and any descendant as parent (400 at /parent_id)', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const other = await createProject(api, f.ws);
    const foreign = await api.post(`/api/workspaces/${f.ws.slug}/projects/${other.id}/issues/`, { name: 'x' }, f.t);
    const elsewhere = await coreFixture(api);
    const theirs = await elsewhere.issue();
    const root = await f.issue();
    const mid = await f.issue({ parent_id: root.id });
    const leaf = await f.issue({ parent_id: mid.id });
    const deep = await f.issue({ parent_id: leaf.id });
    const refuse = async (issueId: string, parentId: string) => {
      const res = await api.patch(f.issueUrl(issueId), { parent_id: parentId }, f.t);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].path).toBe('/parent_id');
    };
    await refuse(root.id, root.id);
    await refuse(root.id, mid.id);
    await refuse(root.id, deep.id);
    await refuse(mid.id, deep.id);
    await refuse(root.id, foreign.body.id);
    await refuse(root.id, theirs.id);
    await refuse(root.id, '01a1fe20-0000-7000-8000-000000000000');
    for (const parent of [foreign.body.id, theirs.id]) {
      const res = await api.post(`${f.base}/issues/`, { name: 'x', parent_id: parent }, f.t);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].path).toBe('/parent_id');
    }
    expect((await f.read(root.id)).parent_id).toBeNull();
    // A sibling branch is fine.
    const side = await f.issue();
    expect((await api.patch(f.issueUrl(side.id), { parent_id: deep.id }, f.t)).status).toBe(200);
  });

  it('never closes a circle under concurrent moves', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    for (let round = 0; round < 5; round++) {
      const a = await f.issue();
      const b = await f.issue();
      const c = await f.issue({ parent_id: b.id });
      // a under c and b under a, at once: together b -> a -> c -> b would be a circle.
      const [one, two] = await Promise.all([api.patch(f.issueUrl(a.id), { parent_id: c.id }, f.t), api.patch(f.issueUrl(b.id), { parent_id: a.id }, f.t)]);
      expect([one.status, two.status].sort()).toEqual([200, 400]);
    }
  });

  it('keeps the children of a deleted parent, top-level, with history and issue.updated', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const parent = await f.issue();
    const child = await f.issue({ parent_id: parent.id });
    const grandchild = await f.issue({ parent_id: child.id });
    expect((await api.delete(f.issueUrl(parent.id), f.t)).status).toBe(204);
    expect(await f.read(child.id)).toMatchObject({ parent_id: null, sub_issues: { total: 1, completed: 0 } });
    expect((await f.read(grandchild.id)).parent_id).toBe(child.id);
    expect((await f.history(child.id)).filter((h) => h.kind === 'parent')).toEqual([expect.objectContaining({ from: parent.id, to: null })]);
  });
});
