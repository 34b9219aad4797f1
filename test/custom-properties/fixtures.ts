import { expect } from 'vitest';
import { createIssue, createProject, createWorkspace, startProTrial, type WorkspaceFixture } from '../helpers/factories.js';
import type { Api } from '../helpers/http.js';

export interface PropertyRecord {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  description: string;
  type: string;
  options: string[];
  is_required: boolean;
  created_at: string;
  updated_at: string;
}

export const propertiesPath = (ws: WorkspaceFixture, projectId: string) => `/api/workspaces/${ws.slug}/projects/${projectId}/custom-properties/`;
export const propertyPath = (ws: WorkspaceFixture, propertyId: string) => `/api/workspaces/${ws.slug}/custom-properties/${propertyId}/`;
export const valuesPath = (ws: WorkspaceFixture, projectId: string, issueId: string) =>
  `/api/workspaces/${ws.slug}/projects/${projectId}/issues/${issueId}/custom-values/`;
export const valuePath = (ws: WorkspaceFixture, issueId: string, propertyId: string) =>
  `/api/workspaces/${ws.slug}/issues/${issueId}/custom-values/${propertyId}/`;
export const issuesPath = (ws: WorkspaceFixture, projectId: string) => `/api/workspaces/${ws.slug}/projects/${projectId}/issues/`;

/** A workspace on a plan with custom properties, one project in it, and one issue. */
export async function setup(api: Api) {
  const ws = await createWorkspace(api);
  await startProTrial(api, ws);
  const project = await createProject(api, ws);
  const issue = await createIssue(api, ws, project.id);
  return { ws, project, issue };
}

export async function createProperty(api: Api, ws: WorkspaceFixture, projectId: string, body: Record<string, unknown>): Promise<PropertyRecord> {
  const res = await api.post(propertiesPath(ws, projectId), { name: `Field ${Math.random().toString(36).slice(2, 8)}`, ...body }, { token: ws.admin.token });
  expect(res.status, res.text).toBe(201);
  return res.body as PropertyRecord;
}

export async function setValue(api: Api, ws: WorkspaceFixture, issueId: string, propertyId: string, value: unknown, token = ws.admin.token) {
  const res = await api.put(valuePath(ws, issueId, propertyId), { value }, { token });
  expect(res.status, res.text).toBe(200);
  return res.body as { issue_id: string; property_id: string; value: unknown; updated_at: string };
}
