import { afterAll, describe, expect, it } from 'vitest';
import { createProject, expectProblem } from '../helpers/factories.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { useTestApp } from '../helpers/test-app.js';
import { coreFixture } from './support.js';

const ctx = useTestApp();
const receivers: Receiver[] = [];
afterAll(async () => Promise.all(receivers.map((r) => r.close())));

describe('relations (contract 24.3)', () => {
  it('stores a relation once and lists it from both sides with the inverse type, across projects', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const other = await createProject(api, f.ws, { identifier: 'OPS' });
    const a = await f.issue({ name: 'A' });
    const b = await api.post(`/api/workspaces/${f.ws.slug}/projects/${other.id}/issues/`, { name: 'B' }, f.t);
    const created = await api.post(`${f.issueUrl(a.id)}relations/`, { type: 'blocked_by', issue_id: b.body.id }, f.t);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      type: 'blocked_by',
      issue: { id: b.body.id, key: `OPS-${b.body.sequence_id}`, name: 'B', project_id: other.id, state: { name: 'Backlog', group: 'backlog' } },
    });
    const fromA = await api.get(`${f.issueUrl(a.id)}relations/`, f.t);
    expect(fromA.body).toEqual([created.body]);
    const fromB = await api.get(`/api/workspaces/${f.ws.slug}/projects/${other.id}/issues/${b.body.id}/relations/`, f.t);
    expect(fromB.body).toEqual([expect.objectContaining({ id: created.body.id, type: 'blocks', issue: expect.objectContaining({ id: a.id, name: 'A' }) })]);
    for (const [type, inverse] of [
      ['duplicate_of', 'duplicates'],
      ['duplicates', 'duplicate_of'],
      ['relates_to', 'relates_to'],
      ['blocks', 'blocked_by'],
    ] as const) {
      const x = await f.issue();
      const y = await f.issue();
      const made = await api.post(`${f.issueUrl(x.id)}relations/`, { type, issue_id: y.id }, f.t);
      expect(made.body.type).toBe(type);
      expect((await api.get(`${f.issueUrl(y.id)}relations/`, f.t)).body[0].type).toBe(inverse);
    }
  });

  it('answers 400 for a relation with itself, 409 for the same pair again in any direction, 404 for another workspace', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const a = await f.issue();
    const b = await f.issue();
    const url = `${f.issueUrl(a.id)}relations/`;
    const self = await api.post(url, { type: 'relates_to', issue_id: a.id }, f.t);
    expectProblem(self, 400, 'validation_failed');
    expect(self.body.errors[0].path).toBe('/issue_id');
    expect((await api.post(url, { type: 'blocks', issue_id: b.id }, f.t)).status).toBe(201);
    expectProblem(await api.post(url, { type: 'relates_to', issue_id: b.id }, f.t), 409, 'conflict');
    expectProblem(await api.post(`${f.issueUrl(b.id)}relations/`, { type: 'blocks', issue_id: a.id }, f.t), 409, 'conflict');
    expectProblem(await api.post(`${f.issueUrl(b.id)}relations/`, { type: 'blocked_by', issue_id: a.id }, f.t), 409, 'conflict');
    const elsewhere = await coreFixture(api);
    const theirs = await elsewhere.issue();
    expectProblem(await api.post(url, { type: 'blocks', issue_id: theirs.id }, f.t), 404, 'not_found');
    expectProblem(await api.post(url, { type: 'blocks', issue_id: '01a1fe20-0000-7000-8000-000000000000' }, f.t), 404, 'not_found');
    expectProblem(await api.post(url, { type: 'causes', issue_id: b.id }, f.t), 400, 'validation_failed');
    expectProblem(await api.post(url, { type: 'blocks' }, f.t), 400, 'validation_failed');
    // The other workspace cannot read or change them through its own paths.
    expectProblem(await api.get(url, elsewhere.t), 404);
    const relation = (await api.get(url, f.t)).body[0];
    expectProblem(await api.delete(`${elsewhere.issueUrl(theirs.id)}relations/${relation.id}/`, elsewhere.t), 404);
    const guest = await f.ws.addUser('guest');
    expect((await api.get(url, { token: guest.token })).status).toBe(200);
    expectProblem(await api.post(`${f.issueUrl(b.id)}relations/`, { type: 'relates_to', issue_id: (await f.issue()).id }, { token: guest.token }), 403);
    expectProblem(await api.delete(`${url}${relation.id}/`, { token: guest.token }), 403);
  });

  it('reads blocked while an open issue blocks it, and tells both sides by issue.updated', async () => {
    const { api, app } = ctx();
    const f = await coreFixture(api);
    const r = await startReceiver();
    receivers.push(r);
    const hook = await api.post(`/api/workspaces/${f.ws.slug}/webhooks/`, { url: r.url, event_types: ['issue.updated', 'issue.deleted'] }, f.t);
    expect(hook.status, hook.text).toBe(201);
    const blocker = await f.issue({ name: 'Blocker' });
    const blocked = await f.issue({ name: 'Blocked' });
    const made = await api.post(`${f.issueUrl(blocked.id)}relations/`, { type: 'blocked_by', issue_id: blocker.id }, f.t);
    expect(made.status).toBe(201);
    expect((await f.read(blocked.id)).blocked).toBe(true);
    expect((await f.read(blocker.id)).blocked).toBe(false);
    const updates = async (count: number) => {
      const got = await r.waitFor(count);
      await app.jobs.find((j) => j.name === 'webhooks.deliver')!.run();
      return got.map((g) => g.json);
    };
    let got = await updates(2);
    expect(got.map((e) => [e.type, e.data.id, e.data.blocked]).sort()).toEqual(
      [
        ['issue.updated', blocked.id, true],
        ['issue.updated', blocker.id, false],
      ].sort(),
    );
    // The blocker completes: the blocked issue is told it is no longer blocked.
    await api.patch(f.issueUrl(blocker.id), { state_id: f.byGroup('completed') }, f.t);
    expect((await f.read(blocked.id)).blocked).toBe(false);
    got = await updates(4);
    expect(
      got
        .slice(2)
        .map((e) => [e.data.id, e.data.blocked])
        .sort(),
    ).toEqual(
      [
        [blocked.id, false],
        [blocker.id, false],
      ].sort(),
    );
    // Reopened, then the relation removed.
    await api.patch(f.issueUrl(blocker.id), { state_id: f.byGroup('started') }, f.t);
    expect((await f.read(blocked.id)).blocked).toBe(true);
    expect((await api.delete(`${f.issueUrl(blocker.id)}relations/${made.body.id}/`, f.t)).status).toBe(204);
    expectProblem(await api.delete(`${f.issueUrl(blocker.id)}relations/${made.body.id}/`, f.t), 404);
    expect((await f.read(blocked.id)).blocked).toBe(false);
    // Four more: the reopening and the removal tell both sides each. The two changes were made before waiting, and
    // deliveries run side by side, so their order of arrival is not the order of the changes: compared as a set.
    got = await updates(8);
    expect(
      got
        .slice(4)
        .map((e) => [e.data.id, e.data.blocked])
        .sort(),
    ).toEqual(
      [
        [blocked.id, true],
        [blocked.id, false],
        [blocker.id, false],
        [blocker.id, false],
      ].sort(),
    );
  });

  it('deletes the relations of a deleted issue, and unblocks what it blocked', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const blocker = await f.issue();
    const blocked = await f.issue();
    const related = await f.issue();
    await api.post(`${f.issueUrl(blocker.id)}relations/`, { type: 'blocks', issue_id: blocked.id }, f.t);
    await api.post(`${f.issueUrl(blocker.id)}relations/`, { type: 'relates_to', issue_id: related.id }, f.t);
    expect((await f.read(blocked.id)).blocked).toBe(true);
    expect((await api.delete(f.issueUrl(blocker.id), f.t)).status).toBe(204);
    expect((await f.read(blocked.id)).blocked).toBe(false);
    expect((await api.get(`${f.issueUrl(blocked.id)}relations/`, f.t)).body).toEqual([]);
    expect((await api.get(`${f.issueUrl(related.id)}relations/`, f.t)).body).toEqual([]);
  });
});
