import { expect } from 'vitest';
import { createIssue, createProject, createWorkspace, startProTrial, type WorkspaceFixture } from '../helpers/factories.js';
import type { Api } from '../helpers/http.js';
import type { TestApp } from '../helpers/test-app.js';

/** A workspace on a plan with time_tracking (a pro trial from the clock's now), a project and an issue in it. */
export async function trackedWorkspace(t: TestApp, issueBody: Record<string, unknown> = {}) {
  const ws = await createWorkspace(t.api);
  await startProTrial(t.api, ws);
  const project = await createProject(t.api, ws);
  const issue = await createIssue(t.api, ws, project.id, issueBody);
  return { ws, project, issue };
}

export const issuePath = (ws: WorkspaceFixture, projectId: string, issueId: string) => `/api/workspaces/${ws.slug}/projects/${projectId}/issues/${issueId}/`;
export const worklogsPath = (ws: WorkspaceFixture, projectId: string, issueId: string) => `${issuePath(ws, projectId, issueId)}worklogs/`;

export async function logTime(api: Api, ws: WorkspaceFixture, projectId: string, issueId: string, body: Record<string, unknown>, token = ws.admin.token) {
  const res = await api.post(worklogsPath(ws, projectId, issueId), body, { token });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; issue_id: string; user_id: string; started_at: string; duration_minutes: number; note: string };
}

export async function getIssue(api: Api, ws: WorkspaceFixture, projectId: string, issueId: string) {
  const res = await api.get(issuePath(ws, projectId, issueId), { token: ws.admin.token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

export async function setTimeZone(api: Api, ws: WorkspaceFixture, timeZone: string) {
  const res = await api.patch(`/api/workspaces/${ws.slug}/`, { time_zone: timeZone }, { token: ws.admin.token });
  expect(res.status, res.text).toBe(200);
}

export async function outboxEvents(t: TestApp, workspaceId: string, type: string) {
  return t.database.db
    .selectFrom('events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('type', '=', type)
    .orderBy('created_at')
    .orderBy('id')
    .execute() as Promise<{ type: string; data: any }[]>;
}
