import { expect } from 'vitest';
import type { Api } from '../helpers/http.js';
import type { WorkspaceFixture } from '../helpers/factories.js';

export const simulatePath = (ws: WorkspaceFixture) => `/api/workspaces/${ws.slug}/sla-policies/simulate/`;

export interface Block {
  met: number;
  breached: number;
  open: number;
  achievement_percent: number | null;
}
export interface Blocks {
  response: Block;
  resolution: Block;
}
export interface Simulation {
  issues: number;
  current: Blocks;
  draft: Blocks;
  by_priority: { priority: string; current: Blocks; draft: Blocks }[];
  changed: { total: number; items: { issue_id: string; target: string; current: string; draft: string }[] };
}

export async function simulate(api: Api, ws: WorkspaceFixture, body: Record<string, unknown>, token = ws.admin.token): Promise<Simulation> {
  const res = await api.post(simulatePath(ws), body, { token });
  expect(res.status, res.text).toBe(200);
  return res.body as Simulation;
}

/** The UTC date of an instant, YYYY-MM-DD. */
export const dayOf = (at: Date) => at.toISOString().slice(0, 10);

export const block = (met: number, breached: number, open: number): Block => ({
  met,
  breached,
  open,
  achievement_percent: met + breached === 0 ? null : Math.round((met / (met + breached)) * 1000) / 10,
});
