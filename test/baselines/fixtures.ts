import { expect } from 'vitest';
import type { Api } from '../helpers/http.js';
import { createIssue, type WorkspaceFixture } from '../helpers/factories.js';

import { PRIORITIES, STATE_GROUPS } from '../../src/kernel/work-items.js';

export { PRIORITIES, STATE_GROUPS };

export const baselinesPath = (ws: WorkspaceFixture, projectId: string) => `/api/workspaces/${ws.slug}/projects/${projectId}/baselines/`;
export const baselinePath = (ws: WorkspaceFixture, baselineId: string) => `/api/workspaces/${ws.slug}/baselines/${baselineId}/`;
export const deviationPath = (ws: WorkspaceFixture, baselineId: string) => `/api/workspaces/${ws.slug}/baselines/${baselineId}/deviation/`;

export interface BaselineBody {
  id: string;
  project_id: string;
  name: string;
  total_issues: number;
  completed_issues: number;
  state_breakdown: Record<(typeof STATE_GROUPS)[number], number>;
  priority_breakdown: Record<(typeof PRIORITIES)[number], number>;
  snapshot_at: string;
}

export async function createBaseline(api: Api, ws: WorkspaceFixture, projectId: string, name = 'Sprint 1', token = ws.admin.token) {
  const res = await api.post(baselinesPath(ws, projectId), { name }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body as BaselineBody;
}

export async function deviation(api: Api, ws: WorkspaceFixture, baselineId: string, query = '', token = ws.admin.token) {
  const res = await api.get(deviationPath(ws, baselineId) + query, { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Creates `count` issues in the state of the group and with the priority, through the API. */
export async function issuesIn(api: Api, ws: WorkspaceFixture, projectId: string, stateId: string, priority: string, count = 1, name = 'An issue') {
  const made = [];
  for (let i = 0; i < count; i++) made.push(await createIssue(api, ws, projectId, { name, state_id: stateId, priority }));
  return made;
}

/** Internal consistency of a baseline record: every key present, each breakdown sums to the total. */
export function expectConsistent(b: BaselineBody) {
  expect(Object.keys(b.state_breakdown).sort()).toEqual([...STATE_GROUPS].sort());
  expect(Object.keys(b.priority_breakdown).sort()).toEqual([...PRIORITIES].sort());
  const sum = (m: Record<string, number>) => Object.values(m).reduce((a, n) => a + n, 0);
  expect(sum(b.state_breakdown)).toBe(b.total_issues);
  expect(sum(b.priority_breakdown)).toBe(b.total_issues);
  expect(b.completed_issues).toBe(b.state_breakdown.completed);
}

type Item = { state_group: string; priority: string };

/**
 * The deviation explains itself: with uncut lists, the baseline's breakdowns plus the added issues, minus the removed
 * ones, with each changed issue moved from its old to its new group and priority, give the current breakdowns and the
 * deltas exactly. Only a deviation read from one consistent snapshot passes this while issues are being written.
 */
export function expectExplained(d: any) {
  expect(d.added.items).toHaveLength(d.added.count);
  expect(d.removed.items).toHaveLength(d.removed.count);
  expect(d.changed.items).toHaveLength(d.changed.count);
  const state: Record<string, number> = { ...d.baseline.state_breakdown };
  const priority: Record<string, number> = { ...d.baseline.priority_breakdown };
  const move = (i: Item, by: number) => {
    state[i.state_group]! += by;
    priority[i.priority]! += by;
  };
  for (const i of d.added.items as Item[]) move(i, 1);
  for (const i of d.removed.items as Item[]) move(i, -1);
  for (const i of d.changed.items as { from: Item; to: Item }[]) {
    move(i.from, -1);
    move(i.to, 1);
  }
  expect(state).toEqual(d.current_state_breakdown);
  expect(priority).toEqual(d.current_priority_breakdown);
  expect(d.current_total).toBe(d.baseline.total_issues + d.added.count - d.removed.count);
  expect(d.issues_delta).toBe(d.added.count - d.removed.count);
  for (const g of STATE_GROUPS) expect(d.state_delta[g]).toBe(d.current_state_breakdown[g] - d.baseline.state_breakdown[g]);
  for (const p of PRIORITIES) expect(d.priority_delta[p]).toBe(d.current_priority_breakdown[p] - d.baseline.priority_breakdown[p]);
  expect(d.current_completed).toBe(d.current_state_breakdown.completed);
  expect(d.completion_delta).toBe(d.current_completed - d.baseline.completed_issues);
}
