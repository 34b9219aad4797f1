import { describe, expect, it } from 'vitest';
import { createProject, createWorkspace, expectProblem } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { createPolicy, policiesPath, STANDARD_RULES } from './sla-fixtures.js';

const ctx = useTestApp();

/** A field error at `path`; a missing required field is reported at its parent, naming the field. */
const errorAt = (errors: { path: string; message: string }[], path: string) =>
  errors.some((e) => e.path === path || (path.startsWith(`${e.path}/`) && e.message.includes(path.split('/').pop()!)));

describe('SLA policies: create and list', () => {
  it('creates a policy with defaults for description, is_default and rules', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const res = await api.post(policiesPath(ws), { name: '  Basic  ' }, { token: ws.admin.token });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      workspace_id: ws.workspaceId,
      name: 'Basic',
      description: '',
      is_default: false,
      calendar_id: null,
      at_risk_percent: 75,
      rules: [],
      created_at: clock.now().toISOString(),
      updated_at: clock.now().toISOString(),
    });
  });

  it('lists the policies of the workspace as a plain array, rules ordered urgent to low', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const reversed = [...STANDARD_RULES].reverse();
    const a = await createPolicy(api, ws, { name: 'A', description: 'first', rules: reversed });
    const b = await createPolicy(api, ws, { name: 'B', rules: [{ priority: 'low', response_time_h: 0.5, resolution_time_h: 0.5 }] });
    const res = await api.get(policiesPath(ws), { token: ws.admin.token });
    expect(res.status).toBe(200);
    expect(res.body.map((p: { id: string }) => p.id)).toEqual([a.id, b.id]);
    expect(res.body[0].rules).toEqual(STANDARD_RULES);
    expect(res.body[0].description).toBe('first');
    expect(res.body[1].rules).toEqual([{ priority: 'low', response_time_h: 0.5, resolution_time_h: 0.5 }]);
  });

  it('accepts fractional targets', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const p = await createPolicy(api, ws, { rules: [{ priority: 'high', response_time_h: 0.25, resolution_time_h: 1.75 }] });
    expect(p.rules).toEqual([{ priority: 'high', response_time_h: 0.25, resolution_time_h: 1.75 }]);
  });

  it('makes at most one policy the default: a new default unsets the previous one', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const a = await createPolicy(api, ws, { name: 'A', is_default: true });
    expect(a.is_default).toBe(true);
    const b = await createPolicy(api, ws, { name: 'B', is_default: true });
    let list = (await api.get(policiesPath(ws), { token: ws.admin.token })).body as { id: string; is_default: boolean }[];
    expect(list.filter((p) => p.is_default).map((p) => p.id)).toEqual([b.id]);
    const patched = await api.patch(`${policiesPath(ws)}${a.id}/`, { is_default: true }, { token: ws.admin.token });
    expect(patched.status).toBe(200);
    expect(patched.body.is_default).toBe(true);
    list = (await api.get(policiesPath(ws), { token: ws.admin.token })).body;
    expect(list.filter((p) => p.is_default).map((p) => p.id)).toEqual([a.id]);
    // Unsetting the default leaves the workspace without one.
    await api.patch(`${policiesPath(ws)}${a.id}/`, { is_default: false }, { token: ws.admin.token });
    list = (await api.get(policiesPath(ws), { token: ws.admin.token })).body;
    expect(list.some((p) => p.is_default)).toBe(false);
  });
});

describe('SLA policies: concurrency', () => {
  it('keeps exactly one default when several requests make a policy default at once', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const existing = await createPolicy(api, ws, { name: 'Existing' });
    const results = await Promise.all([
      ...[1, 2, 3, 4].map((n) => api.post(policiesPath(ws), { name: `D${n}`, is_default: true }, { token: ws.admin.token })),
      api.patch(`${policiesPath(ws)}${existing.id}/`, { is_default: true }, { token: ws.admin.token }),
    ]);
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 200]);
    const list = (await api.get(policiesPath(ws), { token: ws.admin.token })).body as { is_default: boolean }[];
    expect(list).toHaveLength(5);
    expect(list.filter((p) => p.is_default)).toHaveLength(1);
  });
});

describe('SLA policies: validation', () => {
  const cases: [string, unknown, string][] = [
    ['a missing name', { rules: [] }, '/name'],
    ['an empty name', { name: '' }, '/name'],
    ['a blank name', { name: '   ' }, '/name'],
    ['a name over 255 characters', { name: 'x'.repeat(256) }, '/name'],
    ['a name that is not a string', { name: 12 }, '/name'],
    ['a description that is not a string', { name: 'P', description: 5 }, '/description'],
    ['is_default that is not a boolean', { name: 'P', is_default: 'yes' }, '/is_default'],
    ['rules that are not an array', { name: 'P', rules: {} }, '/rules'],
    ['the priority none', { name: 'P', rules: [{ priority: 'none', response_time_h: 1, resolution_time_h: 2 }] }, '/rules/0/priority'],
    ['an unknown priority', { name: 'P', rules: [{ priority: 'asap', response_time_h: 1, resolution_time_h: 2 }] }, '/rules/0/priority'],
    ['a zero response target', { name: 'P', rules: [{ priority: 'high', response_time_h: 0, resolution_time_h: 2 }] }, '/rules/0/response_time_h'],
    ['a negative resolution target', { name: 'P', rules: [{ priority: 'high', response_time_h: 1, resolution_time_h: -2 }] }, '/rules/0/resolution_time_h'],
    ['a target sent as a string', { name: 'P', rules: [{ priority: 'high', response_time_h: '1', resolution_time_h: 2 }] }, '/rules/0/response_time_h'],
    ['a target over 100000 hours', { name: 'P', rules: [{ priority: 'high', response_time_h: 1, resolution_time_h: 100_001 }] }, '/rules/0/resolution_time_h'],
    ['a rule without its resolution target', { name: 'P', rules: [{ priority: 'high', response_time_h: 1 }] }, '/rules/0/resolution_time_h'],
    [
      'a resolution target below the response target',
      {
        name: 'P',
        rules: [
          { priority: 'low', response_time_h: 1, resolution_time_h: 2 },
          { priority: 'high', response_time_h: 4, resolution_time_h: 2 },
        ],
      },
      '/rules/1/resolution_time_h',
    ],
    [
      'two rules for one priority',
      {
        name: 'P',
        rules: [
          { priority: 'high', response_time_h: 1, resolution_time_h: 2 },
          { priority: 'high', response_time_h: 2, resolution_time_h: 3 },
        ],
      },
      '/rules/1/priority',
    ],
  ];

  for (const [what, body, path] of cases) {
    it(`refuses ${what} on create and on update (400 at ${path})`, async () => {
      const { api } = ctx();
      const ws = await createWorkspace(api);
      const created = await api.post(policiesPath(ws), body, { token: ws.admin.token });
      expectProblem(created, 400, 'validation_failed');
      expect(errorAt(created.body.errors, path), created.text).toBe(true);
      if (path === '/name' && !(body as { name?: unknown }).name && (body as { name?: unknown }).name !== '') return;
      const policy = await createPolicy(api, ws);
      const updated = await api.patch(`${policiesPath(ws)}${policy.id}/`, body, { token: ws.admin.token });
      expectProblem(updated, 400, 'validation_failed');
      expect(errorAt(updated.body.errors, path), updated.text).toBe(true);
      // Nothing changed.
      const list = (await api.get(policiesPath(ws), { token: ws.admin.token })).body;
      expect(list).toEqual([expect.objectContaining({ id: policy.id, name: 'Standard', rules: STANDARD_RULES })]);
    });
  }

  it('answers 400 for a policy id that is not a UUID', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    expectProblem(await api.patch(`${policiesPath(ws)}not-a-uuid/`, { name: 'x' }, { token: ws.admin.token }), 400, 'validation_failed');
    expectProblem(await api.delete(`${policiesPath(ws)}not-a-uuid/`, { token: ws.admin.token }), 400, 'validation_failed');
  });
});

describe('SLA policies: update and delete', () => {
  it('updates only the fields sent, and replaces all rules when rules are sent', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const policy = await createPolicy(api, ws, { description: 'd' });
    clock.advanceHours(1);
    const renamed = await api.patch(`${policiesPath(ws)}${policy.id}/`, { name: 'Renamed' }, { token: ws.admin.token });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', description: 'd', is_default: false, rules: STANDARD_RULES, updated_at: clock.now().toISOString() });
    expect(renamed.body.created_at).not.toBe(renamed.body.updated_at);
    const rules = [{ priority: 'medium', response_time_h: 2, resolution_time_h: 2 }];
    const replaced = await api.patch(`${policiesPath(ws)}${policy.id}/`, { rules }, { token: ws.admin.token });
    expect(replaced.body).toMatchObject({ name: 'Renamed', rules });
    const cleared = await api.patch(`${policiesPath(ws)}${policy.id}/`, { rules: [] }, { token: ws.admin.token });
    expect(cleared.body.rules).toEqual([]);
  });

  it('deletes a policy (204), after which it is gone', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const policy = await createPolicy(api, ws);
    const res = await api.delete(`${policiesPath(ws)}${policy.id}/`, { token: ws.admin.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api.get(policiesPath(ws), { token: ws.admin.token })).body).toEqual([]);
    expectProblem(await api.delete(`${policiesPath(ws)}${policy.id}/`, { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.patch(`${policiesPath(ws)}${policy.id}/`, { name: 'x' }, { token: ws.admin.token }), 404, 'not_found');
  });

  it('clears the sla_policy_id of projects that named a deleted policy', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const policy = await createPolicy(api, ws);
    const project = await createProject(api, ws, { sla_policy_id: policy.id });
    expect(project.sla_policy_id).toBe(policy.id);
    await api.delete(`${policiesPath(ws)}${policy.id}/`, { token: ws.admin.token });
    const after = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/`, { token: ws.admin.token });
    expect(after.body.sla_policy_id).toBeNull();
  });
});

describe('SLA policies: roles and isolation', () => {
  it('lets members and guests read policies but only admins manage them', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const policy = await createPolicy(api, ws);
    for (const role of ['member', 'guest'] as const) {
      const user = await ws.addUser(role);
      const list = await api.get(policiesPath(ws), { token: user.token });
      expect(list.status).toBe(200);
      expect(list.body).toHaveLength(1);
      expectProblem(await api.post(policiesPath(ws), { name: 'Mine' }, { token: user.token }), 403, 'forbidden');
      expectProblem(await api.patch(`${policiesPath(ws)}${policy.id}/`, { name: 'Mine' }, { token: user.token }), 403, 'forbidden');
      expectProblem(await api.delete(`${policiesPath(ws)}${policy.id}/`, { token: user.token }), 403, 'forbidden');
      // Domain validation does not come before the role check.
      const dup = { rules: [STANDARD_RULES[0], STANDARD_RULES[0]] };
      expectProblem(await api.patch(`${policiesPath(ws)}${policy.id}/`, dup, { token: user.token }), 403, 'forbidden');
    }
  });

  it('answers 404 to non-members and 401 without a token', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const policy = await createPolicy(api, ws);
    const outsider = await createWorkspace(api);
    const t = outsider.admin.token;
    expectProblem(await api.get(policiesPath(ws), { token: t }), 404, 'not_found');
    expectProblem(await api.post(policiesPath(ws), { name: 'x' }, { token: t }), 404, 'not_found');
    expectProblem(await api.patch(`${policiesPath(ws)}${policy.id}/`, { name: 'x' }, { token: t }), 404, 'not_found');
    expectProblem(await api.delete(`${policiesPath(ws)}${policy.id}/`, { token: t }), 404, 'not_found');
    expectProblem(await api.get(policiesPath(ws)), 401, 'unauthenticated');
    expectProblem(await api.post(policiesPath(ws), { name: 'x' }), 401, 'unauthenticated');
  });

  it('returns 404 for a policy of another workspace', async () => {
    const { api } = ctx();
    const a = await createWorkspace(api);
    const b = await createWorkspace(api, a.admin);
    const policyB = await createPolicy(api, b);
    expectProblem(await api.patch(`${policiesPath(a)}${policyB.id}/`, { name: 'x' }, { token: a.admin.token }), 404, 'not_found');
    expectProblem(await api.delete(`${policiesPath(a)}${policyB.id}/`, { token: a.admin.token }), 404, 'not_found');
    expect((await api.get(policiesPath(a), { token: a.admin.token })).body).toEqual([]);
    expect((await api.get(policiesPath(b), { token: a.admin.token })).body).toHaveLength(1);
  });

  it('refuses a project policy of another workspace or an unknown policy (400 at /sla_policy_id)', async () => {
    const { api } = ctx();
    const a = await createWorkspace(api);
    const b = await createWorkspace(api, a.admin);
    const policyB = await createPolicy(api, b);
    const res = await api.post(`/api/workspaces/${a.slug}/projects/`, { name: 'P', identifier: 'PX', sla_policy_id: policyB.id }, { token: a.admin.token });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([{ path: '/sla_policy_id', message: expect.any(String) }]);
    expect((await api.get(`/api/workspaces/${a.slug}/projects/`, { token: a.admin.token })).body).toEqual([]);
    const project = await createProject(api, a);
    for (const id of [policyB.id, '01900000-0000-7000-8000-000000000000']) {
      const patched = await api.patch(`/api/workspaces/${a.slug}/projects/${project.id}/`, { sla_policy_id: id }, { token: a.admin.token });
      expectProblem(patched, 400, 'validation_failed');
      expect(patched.body.errors[0].path).toBe('/sla_policy_id');
    }
    const after = await api.get(`/api/workspaces/${a.slug}/projects/${project.id}/`, { token: a.admin.token });
    expect(after.body.sla_policy_id).toBeNull();
  });
});
