import { expect } from 'vitest';
import type { Api } from '../helpers/http.js';
import type { WorkspaceFixture } from '../helpers/factories.js';

export interface RuleBody {
  priority: string;
  response_time_h: number;
  resolution_time_h: number;
}

export const STANDARD_RULES: RuleBody[] = [
  { priority: 'urgent', response_time_h: 1, resolution_time_h: 4 },
  { priority: 'high', response_time_h: 4, resolution_time_h: 24 },
  { priority: 'medium', response_time_h: 8, resolution_time_h: 72 },
  { priority: 'low', response_time_h: 24, resolution_time_h: 168 },
];

export const policiesPath = (ws: WorkspaceFixture) => `/api/workspaces/${ws.slug}/sla-policies/`;
export const trackerPath = (ws: WorkspaceFixture, issueId: string) => `/api/workspaces/${ws.slug}/issues/${issueId}/sla/`;
export const breachedPath = (ws: WorkspaceFixture, query = '') => `/api/workspaces/${ws.slug}/sla-breached/${query}`;

export async function createPolicy(api: Api, ws: WorkspaceFixture, body: Record<string, unknown> = {}) {
  const res = await api.post(policiesPath(ws), { name: 'Standard', rules: STANDARD_RULES, ...body }, { token: ws.admin.token });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; is_default: boolean; rules: RuleBody[] };
}

export async function patchPolicy(api: Api, ws: WorkspaceFixture, policyId: string, body: Record<string, unknown>) {
  const res = await api.patch(`${policiesPath(ws)}${policyId}/`, body, { token: ws.admin.token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

export async function tracker(api: Api, ws: WorkspaceFixture, issueId: string) {
  const res = await api.get(trackerPath(ws, issueId), { token: ws.admin.token });
  expect(res.status, res.text).toBe(200);
  return res.body as {
    id: string;
    issue_id: string;
    policy_id: string;
    priority: string;
    response_due_at: string;
    resolution_due_at: string;
    responded_at: string | null;
    resolved_at: string | null;
    response_breached: boolean;
    resolution_breached: boolean;
  };
}

export async function patchIssue(api: Api, ws: WorkspaceFixture, projectId: string, issueId: string, body: Record<string, unknown>, token = ws.admin.token) {
  const res = await api.patch(`/api/workspaces/${ws.slug}/projects/${projectId}/issues/${issueId}/`, body, { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

export async function comment(api: Api, ws: WorkspaceFixture, projectId: string, issueId: string, token: string) {
  const res = await api.post(`/api/workspaces/${ws.slug}/projects/${projectId}/issues/${issueId}/comments/`, { body: 'A comment' }, { token });
  expect(res.status, res.text).toBe(201);
}

export async function patchProject(api: Api, ws: WorkspaceFixture, projectId: string, body: Record<string, unknown>) {
  return api.patch(`/api/workspaces/${ws.slug}/projects/${projectId}/`, body, { token: ws.admin.token });
}

export const plusHours = (at: string, hours: number) => new Date(new Date(at).getTime() + hours * 3_600_000).toISOString();
