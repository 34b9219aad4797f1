import { expect } from 'vitest';
import { createIssue, createProject, createWorkspace, projectStates, type WorkspaceFixture } from '../helpers/factories.js';
import type { Api } from '../helpers/http.js';

/** A workspace with one project, and shorthands for its URLs (contract 24). */
export async function coreFixture(api: Api) {
  const ws = await createWorkspace(api);
  const project = await createProject(api, ws);
  const { byGroup } = await projectStates(api, ws, project.id);
  const t = { token: ws.admin.token };
  const base = `/api/workspaces/${ws.slug}/projects/${project.id}`;
  return {
    ws,
    project,
    byGroup,
    t,
    base,
    issueUrl: (id: string) => `${base}/issues/${id}/`,
    issue: (body: Record<string, unknown> = {}) => createIssue(api, ws, project.id, body),
    async label(name: string, color = '#16a34a', ofProject = project.id) {
      const res = await api.post(`/api/workspaces/${ws.slug}/projects/${ofProject}/labels/`, { name, color }, t);
      expect(res.status, res.text).toBe(201);
      return res.body as { id: string; name: string; color: string };
    },
    async read(id: string) {
      const res = await api.get(`${base}/issues/${id}/`, t);
      expect(res.status, res.text).toBe(200);
      return res.body as IssueBody;
    },
    async history(id: string, ws2: WorkspaceFixture = ws) {
      const res = await api.get(`${base}/issues/${id}/history/?per_page=100`, { token: ws2.admin.token });
      expect(res.status, res.text).toBe(200);
      return res.body.results as { kind: string; from: unknown; to: unknown; actor_id: string | null }[];
    },
  };
}

export interface IssueBody {
  id: string;
  sequence_id: number;
  state_id: string;
  state_group: string;
  priority: string;
  label_ids: string[];
  parent_id: string | null;
  sub_issues: { total: number; completed: number };
  blocked: boolean;
  updated_at: string;
  target_date: string | null;
}
