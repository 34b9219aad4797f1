import { describe, expect, it } from 'vitest';
import { createWorkspace, expectProblem, signUp, unique } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('workspaces', () => {
  it('creates a workspace whose creator is its admin, and lists it for members only', async () => {
    const { api } = ctx();
    const owner = await signUp(api);
    const other = await signUp(api);
    const slug = unique('acme');
    const res = await api.post('/api/workspaces/', { name: 'Acme', slug }, { token: owner.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ slug, name: 'Acme', role: 'admin', created_by: owner.user.id });
    expect((await api.get('/api/workspaces/', { token: owner.token })).body.map((w: any) => w.slug)).toContain(slug);
    expect((await api.get('/api/workspaces/', { token: other.token })).body).toEqual([]);
  });

  it('refuses a taken slug with 409 and a malformed slug with 400', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    expectProblem(await api.post('/api/workspaces/', { name: 'X', slug: ws.slug }, { token: ws.admin.token }), 409, 'conflict');
    for (const slug of ['-bad', 'UPPER', 'a', 'has space', 'x'.repeat(49)]) {
      expectProblem(await api.post('/api/workspaces/', { name: 'X', slug }, { token: ws.admin.token }), 400, 'validation_failed');
    }
  });

  it('answers 404 for a workspace the caller is not a member of, exactly as for one that does not exist', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const outsider = await signUp(api);
    const hidden = await api.get(`/api/workspaces/${ws.slug}/`, { token: outsider.token });
    const missing = await api.get(`/api/workspaces/no-such-ws-${Date.now()}/`, { token: outsider.token });
    expectProblem(hidden, 404, 'not_found');
    expect(hidden.body.detail).toBe(missing.body.detail);
    expectProblem(await api.get(`/api/workspaces/${ws.slug}/projects/`, { token: outsider.token }), 404);
  });

  it('lets an admin rename and delete the workspace, but not a member', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const member = await ws.addUser('member');
    expectProblem(await api.patch(`/api/workspaces/${ws.slug}/`, { name: 'Nope' }, { token: member.token }), 403, 'forbidden');
    expect((await api.patch(`/api/workspaces/${ws.slug}/`, { name: 'Renamed' }, { token: ws.admin.token })).body.name).toBe('Renamed');
    expectProblem(await api.delete(`/api/workspaces/${ws.slug}/`, { token: member.token }), 403);
    expect((await api.delete(`/api/workspaces/${ws.slug}/`, { token: ws.admin.token })).status).toBe(204);
    expectProblem(await api.get(`/api/workspaces/${ws.slug}/`, { token: ws.admin.token }), 404);
  });
});

describe('members', () => {
  it('adds an existing user by e-mail with a role and lists them', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const user = await signUp(api);
    const res = await api.post(`/api/workspaces/${ws.slug}/members/`, { email: user.user.email, role: 'guest' }, { token: ws.admin.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user_id: user.user.id, role: 'guest', email: user.user.email });
    const list = await api.get(`/api/workspaces/${ws.slug}/members/`, { token: user.token });
    expect(list.body.map((m: any) => m.role).sort()).toEqual(['admin', 'guest']);
  });

  it('answers 404 for an unknown e-mail, 409 for an existing member and 400 for an unknown role', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const t = { token: ws.admin.token };
    expectProblem(await api.post(`/api/workspaces/${ws.slug}/members/`, { email: 'ghost@example.com', role: 'member' }, t), 404);
    expectProblem(await api.post(`/api/workspaces/${ws.slug}/members/`, { email: ws.admin.user.email, role: 'member' }, t), 409);
    expectProblem(await api.post(`/api/workspaces/${ws.slug}/members/`, { email: ws.admin.user.email, role: 'owner' }, t), 400);
  });

  it('changes roles, and never removes or demotes the last admin', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const t = { token: ws.admin.token };
    const base = `/api/workspaces/${ws.slug}/members`;
    expectProblem(await api.patch(`${base}/${ws.admin.user.id}/`, { role: 'member' }, t), 409, 'conflict');
    expectProblem(await api.delete(`${base}/${ws.admin.user.id}/`, t), 409, 'conflict');
    const second = await ws.addUser('member');
    expect((await api.patch(`${base}/${second.user.id}/`, { role: 'admin' }, t)).body.role).toBe('admin');
    expect((await api.patch(`${base}/${ws.admin.user.id}/`, { role: 'member' }, t)).body.role).toBe('member');
  });

  it('lets members leave by themselves but not remove others', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const a = await ws.addUser('member');
    const b = await ws.addUser('guest');
    const base = `/api/workspaces/${ws.slug}/members`;
    expectProblem(await api.delete(`${base}/${b.user.id}/`, { token: a.token }), 403, 'forbidden');
    expect((await api.delete(`${base}/${a.user.id}/`, { token: a.token })).status).toBe(204);
    expectProblem(await api.get(`/api/workspaces/${ws.slug}/`, { token: a.token }), 404);
  });

  it('does not let a member or guest add members', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const member = await ws.addUser('member');
    const guest = await ws.addUser('guest');
    const user = await signUp(api);
    for (const who of [member, guest]) {
      expectProblem(await api.post(`/api/workspaces/${ws.slug}/members/`, { email: user.user.email, role: 'member' }, { token: who.token }), 403);
    }
  });
});
