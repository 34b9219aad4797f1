import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createProject, expectProblem } from '../helpers/factories.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { useTestApp } from '../helpers/test-app.js';
import { createPolicy, tracker } from '../sla/sla-fixtures.js';
import { coreFixture, type IssueBody } from './support.js';

const ctx = useTestApp();
const receivers: Receiver[] = [];
afterAll(async () => Promise.all(receivers.map((r) => r.close())));

/** What a change leaves that must be the same whether a bulk edit or a PATCH made it: the issue, its history, its SLA. */
async function outcome(f: Awaited<ReturnType<typeof coreFixture>>, issueId: string) {
  const { api } = ctx();
  const { id: _i, sequence_id: _s, ...issue } = await f.read(issueId);
  const history = (await f.history(issueId)).map(({ kind, from, to, actor_id }) => ({ kind, from, to, actor_id }));
  const { id: _t, issue_id: _ii, ...sla } = (await tracker(api, f.ws, issueId)) as Record<string, unknown>;
  delete sla.issue;
  return { issue, history, sla };
}

describe('bulk edits (contract 24.4)', () => {
  it('changes each issue exactly as a PATCH of it would: fields, history, SLA trackers', async () => {
    const { api, clock } = ctx();
    const f = await coreFixture(api);
    await createPolicy(api, f.ws, { is_default: true });
    const a = await f.label('a');
    const b = await f.label('b');
    const parent = await f.issue();
    const member = await f.ws.addUser('member');
    const make = () => Promise.all([f.issue({ priority: 'high', label_ids: [a.id] }), f.issue({ priority: 'low', state_id: f.byGroup('started') })]);
    const viaBulk = await make();
    const viaPatch = await make();
    clock.advanceHours(2);
    const set = {
      state_id: f.byGroup('completed'),
      priority: 'urgent',
      assignee_ids: [member.user.id],
      add_label_ids: [b.id],
      remove_label_ids: [a.id],
      target_date: '2026-12-31',
      parent_id: parent.id,
    };
    const res = await api.post(`${f.base}/issues/bulk/`, { issue_ids: viaBulk.map((i) => i.id), set }, f.t);
    expect(res.status, res.text).toBe(200);
    expect(res.body.updated).toBe(2);
    expect(res.body.issues.map((i: IssueBody) => i.id)).toEqual(viaBulk.map((i) => i.id));
    for (const issue of viaPatch) {
      const patched = await api.patch(
        f.issueUrl(issue.id),
        {
          state_id: set.state_id,
          priority: set.priority,
          assignee_ids: set.assignee_ids,
          label_ids: [b.id],
          target_date: set.target_date,
          parent_id: parent.id,
        },
        f.t,
      );
      expect(patched.status, patched.text).toBe(200);
    }
    for (const [i, issue] of viaBulk.entries()) {
      const got = await outcome(f, issue.id);
      expect(got).toEqual(await outcome(f, viaPatch[i]!.id));
      expect(got.issue).toMatchObject({ state_group: 'completed', priority: 'urgent', label_ids: [b.id], parent_id: parent.id, target_date: '2026-12-31' });
      expect(got.sla).toMatchObject({ resolved_at: clock.now().toISOString() });
    }
    expect((await f.read(parent.id)).sub_issues).toEqual({ total: 4, completed: 4 });
    // The answer reads each issue as it now is.
    expect(res.body.issues[0]).toEqual(await f.read(viaBulk[0]!.id));
  });

  it('records one issue.updated per changed issue, and none for an issue the edit left as it was', async () => {
    const { api, app } = ctx();
    const f = await coreFixture(api);
    const r = await startReceiver();
    receivers.push(r);
    expect((await api.post(`/api/workspaces/${f.ws.slug}/webhooks/`, { url: r.url, event_types: ['issue.updated'] }, f.t)).status).toBe(201);
    const issues = [await f.issue({ priority: 'low' }), await f.issue({ priority: 'high' }), await f.issue({ priority: 'high' })];
    const res = await api.post(`${f.base}/issues/bulk/`, { issue_ids: issues.map((i) => i.id), set: { priority: 'high' } }, f.t);
    expect(res.status).toBe(200);
    const got = await r.waitFor(1);
    await app.jobs.find((j) => j.name === 'webhooks.deliver')!.run();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.received.map((e) => e.json.data.id)).toEqual([issues[0]!.id]);
    expect(got[0]!.json.data).toMatchObject({ priority: 'high', label_ids: [], parent_id: null, blocked: false, sub_issues: { total: 0, completed: 0 } });
  });

  it('changes nothing when any issue fails: an id of another project, a circle, inverted dates', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const other = await createProject(api, f.ws);
    const foreign = await api.post(`/api/workspaces/${f.ws.slug}/projects/${other.id}/issues/`, { name: 'x' }, f.t);
    const label = await f.label('l');
    const a = await f.issue();
    const b = await f.issue({ parent_id: a.id });
    const c = await f.issue({ start_date: '2027-02-01' });
    const url = `${f.base}/issues/bulk/`;
    const failed = async (body: unknown, path: string) => {
      const res = await api.post(url, body, f.t);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].path).toBe(path);
      return res;
    };
    await failed({ issue_ids: [a.id, foreign.body.id], set: { add_label_ids: [label.id] } }, '/issue_ids/1');
    await failed({ issue_ids: [a.id, '01a1fe20-0000-7000-8000-000000000000'], set: { priority: 'urgent' } }, '/issue_ids/1');
    await failed({ issue_ids: [a.id, c.id], set: { parent_id: b.id } }, '/set/parent_id');
    const dates = await failed({ issue_ids: [a.id, c.id], set: { target_date: '2027-01-01', add_label_ids: [label.id] } }, '/set/target_date');
    expect(dates.body.errors[0].message).toContain(c.id);
    await failed({ issue_ids: [a.id], set: { add_label_ids: ['01a1fe20-0000-7000-8000-000000000000'] } }, '/set/add_label_ids/0');
    await failed(
      { issue_ids: [a.id], set: { state_id: (await api.get(`/api/workspaces/${f.ws.slug}/projects/${other.id}/states/`, f.t)).body[0].id } },
      '/set/state_id',
    );
    for (const id of [a.id, b.id, c.id]) {
      expect(await f.read(id)).toMatchObject({ label_ids: [], priority: 'none', target_date: null });
    }
    expect((await f.read(b.id)).parent_id).toBe(a.id);
  });

  it('validates the request: 1..500 unique ids, a non-empty set (400 naming the field)', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const a = await f.issue();
    const url = `${f.base}/issues/bulk/`;
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `01a1fe20-0000-7000-8000-${String(i).padStart(12, '0')}`);
    for (const [body, path] of [
      [{ issue_ids: [], set: { priority: 'high' } }, '/issue_ids'],
      [{ issue_ids: ids(501), set: { priority: 'high' } }, '/issue_ids'],
      [{ issue_ids: [a.id, a.id], set: { priority: 'high' } }, '/issue_ids'],
      [{ issue_ids: [a.id], set: {} }, '/set'],
      [{ issue_ids: [a.id], set: { priority: 'critical' } }, '/set/priority'],
      [{ issue_ids: [a.id], set: { name: 'x' } }, '/set/name'],
      [{ issue_ids: ['nope'], set: { priority: 'high' } }, '/issue_ids/0'],
    ] as const) {
      const res = await api.post(url, body, f.t);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].path, JSON.stringify(body).slice(0, 80)).toBe(path);
    }
    expectProblem(await api.post(`${f.base}/issues/bulk-delete/`, { issue_ids: ids(501) }, f.t), 400, 'validation_failed');
    // The same id in two spellings is named twice too; an upper-case id is the same issue.
    const twice = await api.post(url, { issue_ids: [a.id, a.id.toUpperCase()], set: { priority: 'high' } }, f.t);
    expectProblem(twice, 400, 'validation_failed');
    expect(twice.body.errors[0].path).toBe('/issue_ids/1');
    const upper = await api.post(url, { issue_ids: [a.id.toUpperCase()], set: { priority: 'high' } }, f.t);
    expect(upper.body.issues[0]).toMatchObject({ id: a.id, priority: 'high' });
  });

  it('edits 500 issues in one request, with kept label counts exact', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const label = await f.label('l');
    await sql`
      INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, state_id, state_group, priority, created_by, created_at, updated_at)
      SELECT gen_random_uuid(), ${f.ws.workspaceId}, ${f.project.id}, 1000 + g, 'Issue ' || g, ${f.byGroup('backlog')}, 'backlog', 'none',
             ${f.ws.admin.user.id}, now(), now()
      FROM generate_series(1, 500) g`.execute(ctx().database.db);
    const ids = (await api.get(`${f.base}/issues/?per_page=100`, f.t)).body.total === 500 ? await allIds() : [];
    async function allIds() {
      const out: string[] = [];
      for (let offset = 0; offset < 500; offset += 100) {
        out.push(...(await api.get(`${f.base}/issues/?per_page=100&offset=${offset}`, f.t)).body.results.map((i: IssueBody) => i.id));
      }
      return out;
    }
    expect(ids).toHaveLength(500);
    const res = await api.post(`${f.base}/issues/bulk/`, { issue_ids: ids, set: { add_label_ids: [label.id], state_id: f.byGroup('started') } }, f.t);
    expect(res.status, res.text).toBe(200);
    expect(res.body.updated).toBe(500);
    expect((await api.get(`${f.base}/issues/?label_id=${label.id}&per_page=1`, f.t)).body.total).toBe(500);
    expect((await api.get(`${f.base}/issues/?label_id=${label.id}&state_group=started&per_page=1`, f.t)).body.total).toBe(500);
    const removed = await api.post(`${f.base}/issues/bulk/`, { issue_ids: ids.slice(0, 200), set: { remove_label_ids: [label.id] } }, f.t);
    expect(removed.status).toBe(200);
    expect((await api.get(`${f.base}/issues/?label_id=${label.id}&per_page=1`, f.t)).body.total).toBe(300);
    const deleted = await api.post(`${f.base}/issues/bulk-delete/`, { issue_ids: ids.slice(100, 400) }, f.t);
    expect(deleted.body).toEqual({ deleted: 300 });
    expect((await api.get(`${f.base}/issues/?label_id=${label.id}&per_page=1`, f.t)).body.total).toBe(100);
    expect((await api.get(`${f.base}/issues/?per_page=1`, f.t)).body.total).toBe(200);
  });

  it('bulk-deletes all or nothing; children stay, top-level', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const parent = await f.issue();
    const child = await f.issue({ parent_id: parent.id });
    const other = await f.issue();
    const url = `${f.base}/issues/bulk-delete/`;
    const bad = await api.post(url, { issue_ids: [parent.id, '01a1fe20-0000-7000-8000-000000000000'] }, f.t);
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors[0].path).toBe('/issue_ids/1');
    expect((await f.read(parent.id)).sub_issues.total).toBe(1);
    const ok = await api.post(url, { issue_ids: [parent.id, other.id] }, f.t);
    expect(ok.body).toEqual({ deleted: 2 });
    expectProblem(await api.get(f.issueUrl(other.id), f.t), 404);
    expect((await f.read(child.id)).parent_id).toBeNull();
  });

  it('lets admins and members edit in bulk; guests get 403 and other workspaces 404', async () => {
    const { api } = ctx();
    const f = await coreFixture(api);
    const a = await f.issue();
    const member = await f.ws.addUser('member');
    const guest = await f.ws.addUser('guest');
    const body = { issue_ids: [a.id], set: { priority: 'low' } };
    expect((await api.post(`${f.base}/issues/bulk/`, body, { token: member.token })).status).toBe(200);
    expectProblem(await api.post(`${f.base}/issues/bulk/`, body, { token: guest.token }), 403, 'forbidden');
    expectProblem(await api.post(`${f.base}/issues/bulk-delete/`, { issue_ids: [a.id] }, { token: guest.token }), 403, 'forbidden');
    const elsewhere = await coreFixture(api);
    expectProblem(await api.post(`${f.base}/issues/bulk/`, body, elsewhere.t), 404);
    // Their own project's path with this workspace's issue: not an issue of that project.
    const theirs = await api.post(`${elsewhere.base}/issues/bulk-delete/`, { issue_ids: [a.id] }, elsewhere.t);
    expectProblem(theirs, 400, 'validation_failed');
    expect((await f.read(a.id)).priority).toBe('low');
  });
});
