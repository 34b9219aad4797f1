import { expect } from 'vitest';
import type { Api } from '../helpers/http.js';
import { createProject, createWorkspace, projectStates, type Session, type WorkspaceFixture } from '../helpers/factories.js';
import type { TestApp } from '../helpers/test-app.js';

export const HOUR = 3_600_000;

export const RULES = [
  { priority: 'urgent', response_time_h: 1, resolution_time_h: 4 },
  { priority: 'high', response_time_h: 4, resolution_time_h: 24 },
  { priority: 'medium', response_time_h: 8, resolution_time_h: 72 },
  { priority: 'low', response_time_h: 24, resolution_time_h: 168 },
];

export interface Block {
  met: number;
  breached: number;
  achievement_percent: number | null;
  median_seconds: number | null;
  p90_seconds: number | null;
}
export interface Report {
  from: string;
  to: string;
  time_zone: string;
  group_by: string;
  totals: { response: Block; resolution: Block };
  rows: { key: string; label: string; response: Block; resolution: Block }[];
}

export const reportPath = (ws: WorkspaceFixture, query: Record<string, string>) => `/api/workspaces/${ws.slug}/sla-reports/?${new URLSearchParams(query)}`;

export async function report(api: Api, ws: WorkspaceFixture, query: Record<string, string>, token = ws.admin.token): Promise<Report> {
  const res = await api.get(reportPath(ws, query), { token });
  expect(res.status, res.text).toBe(200);
  return res.body as Report;
}

/** Runs the sla.events duty once, as the timer would. */
export async function runDuty(app: TestApp) {
  await (app.app as unknown as { jobs: { name: string; run(): Promise<unknown> }[] }).jobs.find((j) => j.name === 'sla.events')!.run();
}

/** A workspace in `timeZone` with a default policy (RULES), a project, a member who responds, and helpers. */
export async function deskSetup(ctx: TestApp, timeZone = 'Europe/Istanbul', policyBody: Record<string, unknown> = {}) {
  const { api } = ctx;
  const ws = await createWorkspace(api);
  const tz = await api.patch(`/api/workspaces/${ws.slug}/`, { time_zone: timeZone }, { token: ws.admin.token });
  expect(tz.status, tz.text).toBe(200);
  const member: Session = await ws.addUser('member');
  const policy = await api.post(
    `/api/workspaces/${ws.slug}/sla-policies/`,
    { name: 'Standard', is_default: true, rules: RULES, ...policyBody },
    { token: ws.admin.token },
  );
  expect(policy.status, policy.text).toBe(201);
  const project = await createProject(api, ws, { name: 'Desk' });
  const { byGroup } = await projectStates(api, ws, project.id);
  const base = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/`;
  return {
    ws,
    member,
    policyId: policy.body.id as string,
    project,
    async issue(priority = 'urgent', projectId = project.id) {
      const res = await api.post(`/api/workspaces/${ws.slug}/projects/${projectId}/issues/`, { name: 'Printer on fire', priority }, { token: ws.admin.token });
      expect(res.status, res.text).toBe(201);
      return res.body.id as string;
    },
    async respond(issueId: string, projectId = project.id) {
      const res = await api.post(`/api/workspaces/${ws.slug}/projects/${projectId}/issues/${issueId}/comments/`, { body: 'On it' }, { token: member.token });
      expect(res.status, res.text).toBe(201);
    },
    async move(issueId: string, group: 'backlog' | 'started' | 'completed' | 'cancelled') {
      const res = await api.patch(`${base}${issueId}/`, { state_id: byGroup(group) }, { token: ws.admin.token });
      expect(res.status, res.text).toBe(200);
    },
  };
}

export const zero: Block = { met: 0, breached: 0, achievement_percent: null, median_seconds: null, p90_seconds: null };
