/**
 * The SLA boards' filters (issue 41): `project_id` on the breached and at-risk lists, and `status=open|resolved` on the
 * breached list, each keeping the spec's order (most overdue first, soonest due first) and an exact total.
 */
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, projectStates } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { breachedPath, createPolicy, patchIssue } from './sla-fixtures.js';

const ctx = useTestApp();

const atRiskPath = (slug: string, query = '') => `/api/workspaces/${slug}/sla-at-risk/${query}`;
const ids = (body: { results: { issue_id: string }[] }) => body.results.map((r) => r.issue_id);

/**
 * Two projects; in each, four urgent issues (1 h response, 4 h target) created an hour apart, the second of each
 * resolved late (after its breach): at the end, every issue is breached, the oldest first.
 */
async function setup() {
  const { api, clock } = ctx();
  const ws = await createWorkspace(api);
  await createPolicy(api, ws, { is_default: true });
  const a = await createProject(api, ws, { name: 'Alpha' });
  const b = await createProject(api, ws, { name: 'Beta' });
  const done = { a: (await projectStates(api, ws, a.id)).byGroup('completed'), b: (await projectStates(api, ws, b.id)).byGroup('completed') };
  const made: { id: string; project: 'a' | 'b'; n: number }[] = [];
  for (let n = 0; n < 4; n++) {
    for (const project of ['a', 'b'] as const) {
      const issue = await createIssue(api, ws, (project === 'a' ? a : b).id, { name: `${project}${n}`, priority: 'urgent' });
      made.push({ id: issue.id, project, n });
      clock.advance(60_000);
    }
    clock.advanceHours(1);
  }
  clock.advanceHours(2);
  for (const m of made.filter((x) => x.n === 1)) await patchIssue(api, ws, (m.project === 'a' ? a : b).id, m.id, { state_id: done[m.project] });
  clock.advanceHours(10);
  const of = (project: 'a' | 'b', ...ns: number[]) => ns.map((n) => made.find((m) => m.project === project && m.n === n)!.id);
  return { api, ws, a, b, made, of };
}

describe('breached list: project and status filters', () => {
  it('lists only the project’s breaches, most overdue first, with an exact total on every page', async () => {
    const { api, ws, a, b, of } = await setup();
    const token = ws.admin.token;
    const all = await api.get(breachedPath(ws), { token });
    expect(all.body.total).toBe(8);
    const alpha = await api.get(breachedPath(ws, `?project_id=${a.id}`), { token });
    expect(alpha.status, alpha.text).toBe(200);
    expect(ids(alpha.body)).toEqual(of('a', 0, 1, 2, 3));
    expect(alpha.body.total).toBe(4);
    expect(alpha.body.results.every((r: { issue: { project_id: string } }) => r.issue.project_id === a.id)).toBe(true);
    const page2 = await api.get(breachedPath(ws, `?project_id=${b.id}&offset=1&per_page=2`), { token });
    expect(page2.body).toMatchObject({ total: 4, offset: 1, per_page: 2 });
    expect(ids(page2.body)).toEqual(of('b', 1, 2));
    // An upper-case id names the same project.
    const upper = await api.get(breachedPath(ws, `?project_id=${b.id.toUpperCase()}&per_page=1`), { token });
    expect(upper.body.total).toBe(4);
  });

  it('splits open and resolved breaches, each in the spec order, the two totals adding up to all', async () => {
    const { api, ws, a, of } = await setup();
    const token = ws.admin.token;
    const open = await api.get(breachedPath(ws, '?status=open'), { token });
    expect(ids(open.body)).toEqual([...of('a', 0), ...of('b', 0), ...of('a', 2), ...of('b', 2), ...of('a', 3), ...of('b', 3)]);
    expect(open.body.total).toBe(6);
    expect(open.body.results.every((r: { resolved_at: string | null }) => r.resolved_at === null)).toBe(true);
    const resolved = await api.get(breachedPath(ws, '?status=resolved&per_page=1'), { token });
    expect(resolved.body.total).toBe(2);
    expect(ids(resolved.body)).toEqual(of('a', 1));
    expect(resolved.body.results[0].resolved_at).not.toBeNull();
    const both = await api.get(breachedPath(ws, `?status=open&project_id=${a.id}&per_page=2`), { token });
    expect(both.body.total).toBe(3);
    expect(ids(both.body)).toEqual(of('a', 0, 2));
    // the default stays every breach, most overdue first
    const all = await api.get(breachedPath(ws, '?per_page=3'), { token });
    expect(ids(all.body)).toEqual([...of('a', 0), ...of('b', 0), ...of('a', 1)]);
  });

  it('refuses an unknown status and a malformed project id (400), and answers 404 for a project of another workspace', async () => {
    const { api, ws } = await setup();
    const token = ws.admin.token;
    expectProblem(await api.get(breachedPath(ws, '?status=closed'), { token }), 400, 'validation_failed');
    expectProblem(await api.get(breachedPath(ws, '?project_id=nope'), { token }), 400, 'validation_failed');
    const other = await createWorkspace(api);
    const theirs = await createProject(api, other);
    expectProblem(await api.get(breachedPath(ws, `?project_id=${theirs.id}`), { token }), 404, 'not_found');
    expectProblem(await api.get(atRiskPath(ws.slug, `?project_id=${theirs.id}`), { token }), 404, 'not_found');
    expectProblem(await api.get(breachedPath(ws, '?project_id=0190a000-0000-7000-8000-000000000000'), { token }), 404, 'not_found');
  });

  it('never shows another workspace’s trackers, whatever the filter', async () => {
    const { api, ws, a } = await setup();
    const other = await createWorkspace(api);
    await createPolicy(api, other, { is_default: true });
    const theirs = await createProject(api, other);
    await createIssue(api, other, theirs.id, { priority: 'urgent' });
    ctx().clock.advanceHours(3);
    const mine = await api.get(breachedPath(ws, `?project_id=${a.id}&status=open`), { token: ws.admin.token });
    expect(mine.body.total).toBe(3);
    const theirsList = await api.get(breachedPath(other, '?status=open'), { token: other.admin.token });
    expect(theirsList.body.total).toBe(1);
    expect(theirsList.body.results[0].issue.project_id).toBe(theirs.id);
    // an outsider does not learn whether the workspace or the project exists
    expectProblem(await api.get(breachedPath(ws, `?project_id=${a.id}`), { token: other.admin.token }), 404, 'not_found');
  });
});

describe('at-risk list: project filter', () => {
  it('lists only the project’s trackers at risk, soonest due first, with an exact total', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    await createPolicy(api, ws, { is_default: true, at_risk_percent: 50 });
    const a = await createProject(api, ws);
    const b = await createProject(api, ws);
    // urgent: 1 h response, 4 h resolution; high: 4 h response, 24 h resolution
    const a1 = await createIssue(api, ws, a.id, { priority: 'high' });
    clock.advance(60_000);
    const b1 = await createIssue(api, ws, b.id, { priority: 'high' });
    clock.advanceHours(1);
    const a2 = await createIssue(api, ws, a.id, { priority: 'urgent' });
    clock.advance(40 * 60_000); // a2's response target is 40 min gone (> 50 %); a1 and b1 are 1 h 40 min of 4 h gone (< 50 %)
    let alpha = await api.get(atRiskPath(ws.slug, `?project_id=${a.id}`), { token: ws.admin.token });
    expect(ids(alpha.body)).toEqual([a2.id]);
    expect(alpha.body.total).toBe(1);
    clock.advanceHours(1); // a1 and b1 past 50 %; a2 breached (not at risk on its response any more, on resolution 1 h 40 of 4 h)
    alpha = await api.get(atRiskPath(ws.slug, `?project_id=${a.id}`), { token: ws.admin.token });
    expect(ids(alpha.body)).toEqual([a1.id]);
    expect(alpha.body.total).toBe(1);
    const beta = await api.get(atRiskPath(ws.slug, `?project_id=${b.id}&per_page=1`), { token: ws.admin.token });
    expect(ids(beta.body)).toEqual([b1.id]);
    expect(beta.body.total).toBe(1);
    const all = await api.get(atRiskPath(ws.slug), { token: ws.admin.token });
    expect(ids(all.body)).toEqual([a1.id, b1.id]);
    expect(all.body.total).toBe(2);
  });
});
