import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Api } from './http.js';

export const unique = (prefix: string): string => `${prefix}-${randomBytes(5).toString('hex')}`;

export interface Session {
  token: string;
  user: { id: string; email: string; display_name: string; is_instance_admin: boolean };
}

export async function signUp(api: Api, name = 'User'): Promise<Session> {
  const email = `${unique(name.toLowerCase().replace(/\W+/g, ''))}@example.com`;
  const res = await api.post('/api/auth/sign-up/', { email, password: 'correct horse battery', display_name: name });
  expect(res.status, res.text).toBe(201);
  return res.body as Session;
}

export interface WorkspaceFixture {
  slug: string;
  workspaceId: string;
  admin: Session;
  /** Signs up a new user and adds them with this role. */
  addUser(role: 'admin' | 'member' | 'guest', name?: string): Promise<Session>;
}

export async function createWorkspace(api: Api, admin?: Session): Promise<WorkspaceFixture> {
  const owner = admin ?? (await signUp(api, 'Admin'));
  const slug = unique('ws');
  const res = await api.post('/api/workspaces/', { name: 'Test workspace', slug }, { token: owner.token });
  expect(res.status, res.text).toBe(201);
  return {
    slug,
    workspaceId: res.body.id,
    admin: owner,
    async addUser(role, name = role) {
      const user = await signUp(api, name);
      const added = await api.post(`/api/workspaces/${slug}/members/`, { email: user.user.email, role }, { token: owner.token });
      expect(added.status, added.text).toBe(201);
      return user;
    },
  };
}

export async function createProject(api: Api, ws: WorkspaceFixture, body: Record<string, unknown> = {}) {
  const identifier = `P${randomBytes(3).toString('hex').toUpperCase()}`.slice(0, 8);
  const res = await api.post(`/api/workspaces/${ws.slug}/projects/`, { name: 'Project', identifier, ...body }, { token: ws.admin.token });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; identifier: string; sla_policy_id: string | null };
}

export async function projectStates(api: Api, ws: WorkspaceFixture, projectId: string) {
  const res = await api.get(`/api/workspaces/${ws.slug}/projects/${projectId}/states/`, { token: ws.admin.token });
  expect(res.status).toBe(200);
  const states = res.body as { id: string; group: string; name: string }[];
  const byGroup = (group: string) => states.find((s) => s.group === group)!.id;
  return { states, byGroup };
}

export async function createIssue(api: Api, ws: WorkspaceFixture, projectId: string, body: Record<string, unknown> = {}, token = ws.admin.token) {
  const res = await api.post(`/api/workspaces/${ws.slug}/projects/${projectId}/issues/`, { name: 'An issue', ...body }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; sequence_id: number; priority: string; state_id: string; state_group: string; created_at: string };
}

/** Every error answer is problem+json with the contract's fields. */
export function expectProblem(res: { status: number; headers: Headers; body: any; text: string }, status: number, code?: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'about:blank', status, code: expect.any(String), detail: expect.any(String), title: expect.any(String) });
  if (code) expect(res.body.code).toBe(code);
}

/**
 * Puts the workspace on a plan that has every feature (a `pro` trial, 14 days of the test clock), for tests of
 * plan-gated features such as custom properties.
 */
export async function startProTrial(api: Api, ws: WorkspaceFixture): Promise<void> {
  const res = await api.post(`/api/workspaces/${ws.slug}/billing/trial/`, { plan_slug: 'pro' }, { token: ws.admin.token });
  expect(res.status, res.text).toBe(201);
}

/**
 * One workspace with one of everything, and a value for every path parameter of the OpenAPI document (`ids`), for
 * the robustness test and the by-hand fuzz (`bench/fuzz.ts`).
 */
export async function pathFixtures(api: Api) {
  const ws = await createWorkspace(api);
  await startProTrial(api, ws);
  const project = await createProject(api, ws);
  const issue = await createIssue(api, ws, project.id, { priority: 'high' });
  const t = { token: ws.admin.token };
  const policy = await api.post(`/api/workspaces/${ws.slug}/sla-policies/`, { name: 'P', rules: [] }, t);
  const property = await api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/custom-properties/`, { name: 'N', type: 'number' }, t);
  const baseline = await api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/baselines/`, { name: 'B' }, t);
  const states = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/states/`, t);
  const label = await api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/labels/`, { name: 'L' }, t);
  const other = await createIssue(api, ws, project.id);
  const relation = await api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/relations/`, { type: 'blocks', issue_id: other.id }, t);
  const view = await api.post(`/api/workspaces/${ws.slug}/views/`, { name: 'V', project_id: project.id, filters: { priority: ['high'] } }, t);
  const comment = await api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/comments/`, { body: 'C' }, t);
  const form = new FormData();
  form.append('file', new Blob(['fixture']), 'fixture.txt');
  const upload = await fetch(`${api.baseUrl}/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/attachments/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ws.admin.token}` },
    body: form,
  });
  const attachment = (await upload.json()) as { id: string };
  const invitation = await api.post(`/api/workspaces/${ws.slug}/invitations/`, { email: `${unique('invitee')}@example.com`, role: 'member' }, t);
  const ids: Record<string, string> = {
    slug: ws.slug,
    projectId: project.id,
    issueId: issue.id,
    policyId: policy.body.id,
    propertyId: property.body.id,
    baselineId: baseline.body.id,
    stateId: states.body[0].id,
    labelId: label.body.id,
    relationId: relation.body.id,
    viewId: view.body.id,
    commentId: comment.body.id,
    attachmentId: attachment.id,
    invitationId: invitation.body.id,
    userId: ws.admin.user.id,
    tokenId: '01a1fe20-0000-7000-8000-000000000000',
    planSlug: 'pro',
    code: 'nope',
  };
  return { ws, t, ids };
}
