import { expect } from 'vitest';
import { createIssue, createProject, createWorkspace, projectStates, type WorkspaceFixture } from '../helpers/factories.js';
import type { Api } from '../helpers/http.js';
import type { TestApp } from '../helpers/test-app.js';

/** A workspace (in `timeZone`) with a project, its states by group, and helpers that write history at the test clock's instants. */
export async function forecastProject(t: TestApp, timeZone = 'UTC') {
  const { api, clock } = t;
  const ws = await createWorkspace(api);
  if (timeZone !== 'UTC') {
    const res = await api.patch(`/api/workspaces/${ws.slug}/`, { time_zone: timeZone }, { token: ws.admin.token });
    expect(res.status, res.text).toBe(200);
  }
  const project = await createProject(api, ws);
  const { byGroup } = await projectStates(api, ws, project.id);
  const issuePath = (id: string) => `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${id}/`;
  return {
    ws,
    project,
    byGroup,
    /** New open issues (created at the clock's now). */
    async open(count: number, body: Record<string, unknown> = {}) {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push((await createIssue(api, ws, project.id, { name: `Issue ${i}`, ...body })).id);
      return ids;
    },
    /** Moves an issue to a state at `at` (the history entry takes the clock's now). */
    async move(issueId: string, stateId: string, at?: string) {
      if (at) clock.set(at);
      const res = await api.patch(issuePath(issueId), { state_id: stateId }, { token: ws.admin.token });
      expect(res.status, res.text).toBe(200);
    },
    forecast(query = '', token = ws.admin.token) {
      return api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/forecast/${query}`, { token });
    },
  };
}

export const forecastPath = (ws: WorkspaceFixture, projectId: string, query = '') => `/api/workspaces/${ws.slug}/projects/${projectId}/forecast/${query}`;

export async function getForecast(api: Api, ws: WorkspaceFixture, projectId: string, query = '') {
  const res = await api.get(forecastPath(ws, projectId, query), { token: ws.admin.token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}
