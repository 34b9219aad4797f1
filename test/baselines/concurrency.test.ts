import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, projectStates } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { type BaselineBody, createBaseline, deviation, expectConsistent, expectExplained, PRIORITIES, STATE_GROUPS } from './fixtures.js';

/**
 * On PostgreSQL these requests really overlap (a pool of connections); on PGlite the single connection serialises
 * them, so there the test checks the same invariants without real interleaving.
 */
const ctx = useTestApp();

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

/** The per-issue rows of a baseline, counted in the database: they must agree with the baseline's own counts. */
async function itemCounts(baselineId: string) {
  const { rows } = await sql<{ state_group: string; priority: string; n: number }>`
    SELECT state_group, priority, count(*)::int AS n FROM baseline_items WHERE baseline_id = ${baselineId} GROUP BY 1, 2
  `.execute(ctx().database.db);
  const state = Object.fromEntries(STATE_GROUPS.map((g) => [g, 0])) as Record<string, number>;
  const priority = Object.fromEntries(PRIORITIES.map((p) => [p, 0])) as Record<string, number>;
  for (const r of rows) {
    state[r.state_group]! += r.n;
    priority[r.priority]! += r.n;
  }
  return { total: rows.reduce((a, r) => a + r.n, 0), state, priority };
}

async function expectItemsMatch(b: BaselineBody) {
  expectConsistent(b);
  const items = await itemCounts(b.id);
  expect(items.total).toBe(b.total_issues);
  expect(items.state).toEqual(b.state_breakdown);
  expect(items.priority).toEqual(b.priority_breakdown);
}

describe('snapshots taken while issues are written', () => {
  it('are internally consistent while issues are created in parallel, and each sees a set of whole issues', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const { byGroup } = await projectStates(api, ws, project.id);
    for (let i = 0; i < 10; i++) await createIssue(api, ws, project.id, { state_id: byGroup(pick(STATE_GROUPS, i)), priority: pick(PRIORITIES, i) });

    const creations = Array.from({ length: 60 }, (_, i) =>
      createIssue(api, ws, project.id, { name: `Parallel ${i}`, state_id: byGroup(pick(STATE_GROUPS, i * 3)), priority: pick(PRIORITIES, i * 7) }),
    );
    const snapshots = Array.from({ length: 8 }, (_, i) => createBaseline(api, ws, project.id, `Concurrent ${i}`));
    const [, baselines] = await Promise.all([Promise.all(creations), Promise.all(snapshots)]);

    for (const b of baselines) {
      await expectItemsMatch(b);
      expect(b.total_issues).toBeGreaterThanOrEqual(10);
      expect(b.total_issues).toBeLessThanOrEqual(70);
      // only creations happened: everything not in the snapshot is "added", nothing is removed or changed
      const d = await deviation(api, ws, b.id, '?items_limit=1000');
      expect(d.current_total).toBe(70);
      expect(d.added.count).toBe(70 - b.total_issues);
      expect(d.removed.count).toBe(0);
      expect(d.changed.count).toBe(0);
      expectExplained(d);
    }
  });

  it('stay consistent, and deviations explain themselves, while issues are created, moved and deleted', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const { byGroup } = await projectStates(api, ws, project.id);
    const token = ws.admin.token;
    const seed = [];
    for (let i = 0; i < 30; i++)
      seed.push(await createIssue(api, ws, project.id, { state_id: byGroup(pick(STATE_GROUPS, i)), priority: pick(PRIORITIES, i * 2) }));
    const first = await createBaseline(api, ws, project.id, 'Before the storm');
    const issue = (id: string) => `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${id}/`;

    const writes = seed.flatMap((s, i) => [
      api.patch(issue(s.id), { state_id: byGroup(pick(STATE_GROUPS, i + 2)), priority: pick(PRIORITIES, i + 1) }, { token }),
      ...(i % 3 === 0 ? [api.delete(issue(s.id), { token })] : []),
      createIssue(api, ws, project.id, { name: `Storm ${i}`, priority: pick(PRIORITIES, i) }),
    ]);
    const snapshots = Array.from({ length: 6 }, (_, i) => createBaseline(api, ws, project.id, `During ${i}`));
    const deviations = Array.from({ length: 6 }, () => deviation(api, ws, first.id, '?items_limit=1000'));
    const [, baselines, devs] = await Promise.all([Promise.allSettled(writes), Promise.all(snapshots), Promise.all(deviations)]);

    for (const b of baselines) await expectItemsMatch(b);
    for (const d of devs) expectExplained(d);
    for (const b of baselines) expectExplained(await deviation(api, ws, b.id, '?items_limit=1000'));
    const final = await deviation(api, ws, first.id, '?items_limit=1000');
    expectExplained(final);
    expect(final.removed.count).toBe(10);
    expect(final.added.count).toBe(30);
  });
});
