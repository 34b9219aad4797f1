import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientFor, expectSuccess } from '../helpers/client.js';
import { createProject, createWorkspace, expectProblem, projectStates, type Session, startProTrial, type WorkspaceFixture } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

/**
 * Issue filters, the workspace-wide issue list and "my issues" (contract 23.2), through HTTP. One workspace is built
 * once (two projects, three roles, issues at known instants) and read by most tests; the kept counts are checked
 * against a full count through writes of their own.
 */
const ctx = useTestApp();

type Query = Record<string, string | number | (string | number)[]>;
// Within the 30 days of the sessions signed up at the test clock's start.
const T0 = Date.parse('2026-01-20T10:00:00.000Z');
const at = (hours: number) => new Date(T0 + hours * 3_600_000).toISOString();

interface World {
  ws: WorkspaceFixture;
  member: Session;
  other: Session;
  guest: Session;
  p1: { id: string; states: (group: string) => string };
  p2: { id: string; states: (group: string) => string };
  /** Issue ids by name. */
  id: Record<string, string>;
  foreign: { slug: string; token: string; projectId: string; stateId: string; userId: string };
}

let w: World;

/** `?a=1&a=2` for arrays, as a browser's form would send them. */
function qs(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
}

async function page(path: string, query: Query = {}, token = w.ws.admin.token) {
  const res = await ctx().api.get(`${path}${qs({ per_page: 100, ...query })}`, { token });
  expect(res.status, res.text).toBe(200);
  return { names: (res.body.results as { name: string }[]).map((i) => i.name), total: res.body.total as number };
}
const projectUrl = (projectId = w.p1.id) => `/api/workspaces/${w.ws.slug}/projects/${projectId}/issues/`;
const workspaceUrl = () => `/api/workspaces/${w.ws.slug}/issues/`;
/** The names on the project's list (newest first), checking that `total` counts exactly them. */
async function inProject(query: Query, token?: string, projectId?: string) {
  const { names, total } = await page(projectUrl(projectId), query, token);
  expect(total).toBe(names.length);
  return names;
}
async function inWorkspace(query: Query, token?: string) {
  const { names, total } = await page(workspaceUrl(), query, token);
  expect(total).toBe(names.length);
  return names;
}

beforeAll(async () => {
  const { api, clock } = ctx();
  const ws = await createWorkspace(api);
  const member = await ws.addUser('member', 'Member');
  const other = await ws.addUser('member', 'Other');
  const guest = await ws.addUser('guest', 'Guest');
  const made: Record<string, string> = {};
  const project = async () => {
    const p = await createProject(api, ws);
    const { byGroup } = await projectStates(api, ws, p.id);
    return { id: p.id, states: byGroup };
  };
  const p1 = await project();
  const p2 = await project();
  const create = async (hours: number, p: World['p1'], name: string, body: Record<string, unknown>, token = ws.admin.token) => {
    clock.set(at(hours));
    const res = await api.post(`/api/workspaces/${ws.slug}/projects/${p.id}/issues/`, { name, ...body }, { token });
    expect(res.status, res.text).toBe(201);
    made[name] = res.body.id;
  };
  // p1: a1..a5; p2: b1..b3; one an hour from T0, so the workspace list reads b3, b2, b1, a5, ..., a1.
  await create(0, p1, 'a1', { state_id: p1.states('unstarted'), priority: 'high', assignee_ids: [member.user.id] });
  await create(1, p1, 'a2', { state_id: p1.states('started'), priority: 'urgent', assignee_ids: [member.user.id, other.user.id] }, member.token);
  await create(2, p1, 'a3', { priority: 'none' });
  await create(3, p1, 'a4', { state_id: p1.states('completed'), priority: 'low', assignee_ids: [other.user.id] });
  await create(4, p1, 'a5', { state_id: p1.states('started'), priority: 'medium', assignee_ids: [ws.admin.user.id], parent_id: made.a3 }, member.token);
  await create(5, p2, 'b1', { state_id: p2.states('unstarted'), assignee_ids: [member.user.id] });
  await create(6, p2, 'b2', { state_id: p2.states('started') });
  await create(7, p2, 'b3', { assignee_ids: [other.user.id] }, member.token);
  // a1 edited last: its updated_at moves to T0 + 10 h.
  clock.set(at(10));
  const edited = await api.patch(`/api/workspaces/${ws.slug}/projects/${p1.id}/issues/${made.a1}/`, { description: 'edited' }, { token: ws.admin.token });
  expect(edited.status, edited.text).toBe(200);

  const stranger = await createWorkspace(api);
  const foreignProject = await createProject(api, stranger);
  const { byGroup } = await projectStates(api, stranger, foreignProject.id);
  clock.set(at(0));
  const foreignIssue = await api.post(
    `/api/workspaces/${stranger.slug}/projects/${foreignProject.id}/issues/`,
    { name: 'foreign', state_id: byGroup('unstarted'), assignee_ids: [stranger.admin.user.id] },
    { token: stranger.admin.token },
  );
  expect(foreignIssue.status, foreignIssue.text).toBe(201);
  w = {
    ws,
    member,
    other,
    guest,
    p1,
    p2,
    id: made,
    foreign: { slug: stranger.slug, token: stranger.admin.token, projectId: foreignProject.id, stateId: byGroup('unstarted'), userId: stranger.admin.user.id },
  };
});

describe('issue filters of the project list (contract 23.2)', () => {
  it('filters by state_id, repeated or comma-separated, values ORed', async () => {
    const started = w.p1.states('started');
    const done = w.p1.states('completed');
    expect(await inProject({ state_id: started })).toEqual(['a5', 'a2']);
    expect(await inProject({ state_id: [started, done] })).toEqual(['a5', 'a4', 'a2']);
    expect(await inProject({ state_id: `${done},${started}` })).toEqual(['a5', 'a4', 'a2']);
    expect(await inProject({ state_id: [`${done},${started}`, started] })).toEqual(['a5', 'a4', 'a2']);
  });

  it('filters by assignee_id: a member, me, none, and several ORed', async () => {
    const { member, other } = w;
    expect(await inProject({ assignee_id: member.user.id })).toEqual(['a2', 'a1']);
    expect(await inProject({ assignee_id: 'me' }, member.token)).toEqual(['a2', 'a1']);
    expect(await inProject({ assignee_id: 'me' })).toEqual(['a5']);
    expect(await inProject({ assignee_id: 'none' })).toEqual(['a3']);
    expect(await inProject({ assignee_id: ['me', 'none'] }, other.token)).toEqual(['a4', 'a3', 'a2']);
    expect(await inProject({ assignee_id: `${member.user.id},${other.user.id}` })).toEqual(['a4', 'a2', 'a1']);
    expect(await inProject({ assignee_id: [member.user.id.toUpperCase(), 'none'] })).toEqual(['a3', 'a2', 'a1']);
  });

  it('filters by created_by: a user or me', async () => {
    expect(await inProject({ created_by: w.member.user.id })).toEqual(['a5', 'a2']);
    expect(await inProject({ created_by: 'me' })).toEqual(['a4', 'a3', 'a1']);
    expect(await inProject({ created_by: ['me', w.member.user.id] }, w.guest.token)).toEqual(['a5', 'a2']);
  });

  it('bounds created_at and updated_at: from inclusive, to exclusive, any offset, finer than a millisecond exact', async () => {
    expect(await inProject({ created_from: at(1), created_to: at(3) })).toEqual(['a3', 'a2']);
    expect(await inProject({ created_from: '2026-01-20T14:00:00+03:00' })).toEqual(['a5', 'a4', 'a3', 'a2']);
    expect(await inProject({ created_to: at(1) })).toEqual(['a1']);
    expect(await inProject({ created_to: at(0) })).toEqual([]);
    expect(await inProject({ updated_from: at(10), order_by: 'name' })).toEqual(['a1']);
    // a2 was created at exactly T0 + 1 h: a bound a ten-thousandth of a millisecond later leaves it out of `from`
    // and in `to`.
    const justAfter = at(1).replace('.000Z', '.0001Z');
    expect(await inProject({ created_from: justAfter, created_to: at(3) })).toEqual(['a3']);
    expect(await inProject({ created_to: justAfter })).toEqual(['a2', 'a1']);
    // Repeated: the values are ORed, so the widest bound holds.
    expect(await inProject({ created_from: [at(3), at(1)] })).toEqual(['a5', 'a4', 'a3', 'a2']);
    expect(await inProject({ created_to: `${at(1)},${at(2)}` })).toEqual(['a2', 'a1']);
    expect(await inProject({ updated_from: at(5) })).toEqual(['a1']);
    expect(await inProject({ updated_to: at(5) })).toEqual(['a5', 'a4', 'a3', 'a2']);
    expect(await inProject({ updated_from: at(10), updated_to: at(10.001) })).toEqual(['a1']);
  });

  it('takes state_group and priority repeated as well as comma-separated, and ANDs different filters', async () => {
    expect(await inProject({ state_group: 'unstarted,started' })).toEqual(['a5', 'a2', 'a1']);
    expect(await inProject({ state_group: ['unstarted', 'started'] })).toEqual(['a5', 'a2', 'a1']);
    expect(await inProject({ priority: ['urgent', 'low,none'] })).toEqual(['a4', 'a3', 'a2']);
    expect(await inProject({ assignee_id: 'me', state_group: 'started' }, w.member.token)).toEqual(['a2']);
    expect(await inProject({ assignee_id: w.member.user.id, created_by: 'me', priority: 'high' })).toEqual(['a1']);
    expect(await inProject({ created_by: 'me', created_from: at(1), parent_id: 'none' })).toEqual(['a4', 'a3']);
    expect(await inProject({ state_id: w.p1.states('started'), assignee_id: 'none' })).toEqual([]);
    // The existing filters and sorts keep working beside the new ones.
    expect(await inProject({ parent_id: 'none', order_by: 'priority' })).toEqual(['a2', 'a1', 'a4', 'a3']);
    expect(await inProject({ parent_id: w.id.a3! })).toEqual(['a5']);
  });

  it('matches nothing for ids that name nothing: unknown, of another project, of another workspace', async () => {
    const unknown = '01890000-0000-7000-8000-000000000000';
    const queries: Query[] = [
      { state_id: unknown },
      { state_id: w.p2.states('started') },
      { state_id: w.foreign.stateId },
      { assignee_id: unknown },
      { assignee_id: w.foreign.userId },
      { created_by: w.foreign.userId },
      { label_id: unknown },
    ];
    for (const query of queries) expect(await page(projectUrl(), query)).toEqual({ names: [], total: 0 });
    expect(await page(workspaceUrl(), { project_id: w.foreign.projectId })).toEqual({ names: [], total: 0 });
    expect(await page(workspaceUrl(), { state_id: w.foreign.stateId })).toEqual({ names: [], total: 0 });
  });

  it('answers a malformed value with 400 problem+json naming the parameter', async () => {
    const { api } = ctx();
    const t = { token: w.ws.admin.token };
    const cases: [Query, string][] = [
      [{ assignee_id: 'someone' }, 'assignee_id'],
      [{ assignee_id: [w.member.user.id, ''] }, 'assignee_id'],
      [{ state_id: 'me' }, 'state_id'],
      [{ state_id: `${w.p1.states('started')},` }, 'state_id'],
      [{ created_by: 'none' }, 'created_by'],
      [{ created_from: '2026-01-20' }, 'created_from'],
      [{ created_to: 'yesterday' }, 'created_to'],
      [{ updated_from: '2026-02-30T00:00:00Z' }, 'updated_from'],
      [{ updated_to: '0000-06-01T00:00:00Z' }, 'updated_to'],
      [{ state_group: ['started', 'doing'] }, 'state_group'],
      [{ priority: 'urgent,asap' }, 'priority'],
    ];
    for (const [query, name] of cases) {
      for (const url of [projectUrl(), workspaceUrl()]) {
        const res = await api.get(`${url}${qs(query)}`, t);
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors[0].path, JSON.stringify(query)).toBe(`/querystring/${name}`);
      }
    }
    const bad = await api.get(`${workspaceUrl()}${qs({ project_id: 'p1' })}`, t);
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors[0].path).toBe('/querystring/project_id');
  });
});

describe('the workspace-wide issue list (contract 23.2)', () => {
  it('lists the issues of every project newest first, pages them with the exact total, and narrows by project_id', async () => {
    expect(await inWorkspace({})).toEqual(['b3', 'b2', 'b1', 'a5', 'a4', 'a3', 'a2', 'a1']);
    const second = await page(workspaceUrl(), { per_page: 3, offset: 3 });
    expect(second).toEqual({ names: ['a5', 'a4', 'a3'], total: 8 });
    expect(await inWorkspace({ project_id: w.p2.id })).toEqual(['b3', 'b2', 'b1']);
    expect(await inWorkspace({ project_id: [w.p2.id, w.p1.id] })).toHaveLength(8);
    expect(await inWorkspace({ project_id: `${w.p1.id},${w.foreign.projectId}`, state_group: 'started' })).toEqual(['a5', 'a2']);
  });

  it('applies the same filters across projects', async () => {
    expect(await inWorkspace({ assignee_id: 'none' })).toEqual(['b2', 'a3']);
    expect(await inWorkspace({ created_by: 'me' }, w.member.token)).toEqual(['b3', 'a5', 'a2']);
    expect(await inWorkspace({ state_id: [w.p1.states('started'), w.p2.states('started')] })).toEqual(['b2', 'a5', 'a2']);
    expect(await inWorkspace({ created_from: at(4), created_to: at(7) })).toEqual(['b2', 'b1', 'a5']);
    expect(await inWorkspace({ priority: 'none', assignee_id: 'none', project_id: w.p2.id })).toEqual(['b2']);
    expect(await inWorkspace({ parent_id: 'none', label_id: [] as string[], updated_from: at(5) })).toEqual(['b3', 'b2', 'b1', 'a1']);
  });

  it('sorts as the project list does, ties newest first', async () => {
    expect(await inWorkspace({ order_by: 'priority' })).toEqual(['a2', 'a1', 'a5', 'a4', 'b3', 'b2', 'b1', 'a3']);
    expect(await page(workspaceUrl(), { order_by: '-updated_at', per_page: 2 })).toEqual({ names: ['a1', 'b3'], total: 8 });
    expect(await inWorkspace({ order_by: 'sequence_id', project_id: w.p2.id })).toEqual(['b1', 'b2', 'b3']);
    const res = await ctx().api.get(`${workspaceUrl()}?order_by=shoe_size`, { token: w.ws.admin.token });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0].path).toBe('/querystring/order_by');
  });

  it('shows "my issues": assigned to the caller and unstarted or started, across projects, through the typed client', async () => {
    const mine = async (token: string) =>
      expectSuccess(
        await clientFor(ctx().url, token).GET('/api/workspaces/{slug}/issues/', {
          params: { path: { slug: w.ws.slug }, query: { assignee_id: 'me', state_group: ['unstarted', 'started'] } },
        }),
      );
    const forMember = await mine(w.member.token);
    expect(forMember.results.map((i) => i.name)).toEqual(['b1', 'a2', 'a1']);
    expect(forMember.total).toBe(3);
    expect((await mine(w.other.token)).results.map((i) => i.name)).toEqual(['a2']);
    expect((await mine(w.ws.admin.token)).results.map((i) => i.name)).toEqual(['a5']);
    expect((await mine(w.guest.token)).total).toBe(0);
  });

  it('is read by every role of the workspace, guests included, and is 404 to anyone else', async () => {
    const { api } = ctx();
    expect(await inWorkspace({ project_id: w.p2.id }, w.guest.token)).toEqual(['b3', 'b2', 'b1']);
    expect(await inProject({ state_group: 'backlog' }, w.guest.token)).toEqual(['a3']);
    // Another workspace's slug, to a caller who is not its member: 404, as its project list is.
    expectProblem(await api.get(`/api/workspaces/${w.foreign.slug}/issues/`, { token: w.member.token }), 404, 'not_found');
    expectProblem(await api.get(`/api/workspaces/${w.ws.slug}/issues/`, { token: w.foreign.token }), 404, 'not_found');
    expectProblem(await api.get(`/api/workspaces/no-such-workspace/issues/`, { token: w.member.token }), 404, 'not_found');
    expectProblem(await api.get(`/api/workspaces/${w.ws.slug}/issues/`), 401, 'unauthenticated');
    // Its own caller sees only its own workspace's issue.
    const foreign = await page(`/api/workspaces/${w.foreign.slug}/issues/`, { assignee_id: 'me' }, w.foreign.token);
    expect(foreign).toEqual({ names: ['foreign'], total: 1 });
  });

  it('filters and sorts by a custom property of one of the projects: the others have no value', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    await startProTrial(api, ws);
    const t = { token: ws.admin.token };
    const [p1, p2] = [await createProject(api, ws), await createProject(api, ws)];
    const property = await api.post(`/api/workspaces/${ws.slug}/projects/${p1.id}/custom-properties/`, { name: 'Points', type: 'number' }, t);
    expect(property.status, property.text).toBe(201);
    const issue = async (projectId: string, name: string, points?: number) => {
      const res = await api.post(`/api/workspaces/${ws.slug}/projects/${projectId}/issues/`, { name }, t);
      if (points !== undefined) {
        const set = await api.put(`/api/workspaces/${ws.slug}/issues/${res.body.id}/custom-values/${property.body.id}/`, { value: points }, t);
        expect(set.status, set.text).toBe(200);
      }
    };
    await issue(p1.id, 'three', 3);
    await issue(p2.id, 'other');
    await issue(p1.id, 'eight', 8);
    const names = async (query: Query) => (await page(`/api/workspaces/${ws.slug}/issues/`, query, ws.admin.token)).names;
    expect(await names({ [`custom.${property.body.id}.gte`]: 5 })).toEqual(['eight']);
    expect(await names({ order_by: `custom.${property.body.id}` })).toEqual(['three', 'eight', 'other']);
    expect(await names({ order_by: `-custom.${property.body.id}` })).toEqual(['eight', 'three', 'other']);
    const res = await api.get(`/api/workspaces/${ws.slug}/issues/?order_by=custom.${w.p1.id}`, t);
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0].message).toMatch(/not a custom property of this workspace/);
  });
});

describe('the kept issue counts (migration 1090)', () => {
  it('give the same totals as a full count through creates, edits, bulk edits, deletes, a deleted project and folds', async () => {
    const { api, app, database } = ctx();
    const ws = await createWorkspace(api);
    const member = await ws.addUser('member');
    const t = { token: ws.admin.token };
    const projects = [await createProject(api, ws), await createProject(api, ws)];
    const states = await Promise.all(projects.map((p) => projectStates(api, ws, p.id)));
    const people = [ws.admin.user.id, member.user.id];
    const issues: { id: string; project: number }[] = [];
    const create = async (n: number) => {
      const project = n % 2;
      const body = { name: `i${n}`, priority: ['urgent', 'none', 'low'][n % 3], assignee_ids: [[], [people[0]], people, [people[1]]][n % 4] };
      const res = await api.post(`/api/workspaces/${ws.slug}/projects/${projects[project]!.id}/issues/`, body, n % 3 ? t : { token: member.token });
      expect(res.status, res.text).toBe(201);
      issues.push({ id: res.body.id, project });
    };
    const issueUrl = (i: { id: string; project: number }) => `/api/workspaces/${ws.slug}/projects/${projects[i.project]!.id}/issues/${i.id}/`;
    const filters: Query[] = [
      {},
      { assignee_id: 'me' },
      { assignee_id: 'none' },
      { assignee_id: [member.user.id, 'none'] },
      { assignee_id: 'me', state_group: ['unstarted', 'started'] },
      { state_group: 'completed', priority: 'urgent' },
      { created_by: member.user.id, assignee_id: 'me' },
      { project_id: projects[1]!.id, assignee_id: member.user.id },
    ];
    // Each filter alone is answered by the kept counts; with a bound that holds for every issue, by a full count.
    const check = async () => {
      for (const filter of filters) {
        for (const url of [`/api/workspaces/${ws.slug}/issues/`, `/api/workspaces/${ws.slug}/projects/${projects[0]!.id}/issues/`]) {
          const kept = await page(url, { ...filter, per_page: 1 }, ws.admin.token);
          const counted = await page(url, { ...filter, per_page: 1, created_from: '0001-01-01T00:00:00Z' }, ws.admin.token);
          expect(kept.total, `${url} ${JSON.stringify(filter)}`).toBe(counted.total);
        }
      }
    };
    const fold = () => app.jobs.find((j) => j.name === 'issues.counts')!.run();
    for (let n = 0; n < 8; n++) await create(n);
    await check();
    await fold();
    await check();
    const patch = async (i: number, body: Record<string, unknown>) => {
      const res = await api.patch(issueUrl(issues[i]!), body, t);
      expect(res.status, res.text).toBe(200);
    };
    await patch(0, { assignee_ids: people, state_id: states[0]!.byGroup('started') });
    await patch(1, { priority: 'urgent', state_id: states[1]!.byGroup('completed') });
    await patch(2, { assignee_ids: [] });
    await patch(3, { assignee_ids: [people[1], people[0]] });
    await check();
    const bulk = await api.post(
      `/api/workspaces/${ws.slug}/projects/${projects[0]!.id}/issues/bulk/`,
      { issue_ids: issues.filter((i) => i.project === 0).map((i) => i.id), set: { state_id: states[0]!.byGroup('unstarted'), assignee_ids: [member.user.id] } },
      t,
    );
    expect(bulk.status, bulk.text).toBe(200);
    await fold();
    await check();
    expect((await api.delete(issueUrl(issues[5]!), t)).status).toBe(204);
    await create(8);
    await check();
    expect((await api.delete(`/api/workspaces/${ws.slug}/projects/${projects[1]!.id}/`, t)).status).toBe(204);
    await check();
    await fold();
    await check();
    // Folded, a combination that reached zero is gone: the kept rows are those of the issues that are left.
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM issue_counts WHERE workspace_id = ${ws.workspaceId} AND project_id = ${projects[1]!.id}`.execute(database.db);
    expect(rows[0]!.n).toBe(0);
  });
});
