import { describe, expect, it } from 'vitest';
import { unwrap } from '../../client/src/index.js';
import { clientFor, expectFailure } from '../helpers/client.js';
import { createWorkspace, signUp, unique } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

// This module's tests go through the generated typed client (client/), so it is exercised on every run.
const ctx = useTestApp();
const as = (token: string) => clientFor(ctx().url, token);

describe('workspaces', () => {
  it('creates a workspace whose creator is its admin, and lists it for members only', async () => {
    const { api } = ctx();
    const owner = await signUp(api);
    const other = await signUp(api);
    const slug = unique('acme');
    const created = await as(owner.token).POST('/api/workspaces/', { body: { name: 'Acme', slug } });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ slug, name: 'Acme', role: 'admin', created_by: owner.user.id });
    expect((await unwrap(as(owner.token).GET('/api/workspaces/'))).map((w) => w.slug)).toContain(slug);
    expect(await unwrap(as(other.token).GET('/api/workspaces/'))).toEqual([]);
  });

  it('refuses a taken slug with 409 and a malformed slug with 400', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const admin = as(ws.admin.token);
    expectFailure(await admin.POST('/api/workspaces/', { body: { name: 'X', slug: ws.slug } }), 409, 'conflict');
    for (const slug of ['-bad', 'UPPER', 'a', 'has space', 'x'.repeat(49)]) {
      const problem = expectFailure(await admin.POST('/api/workspaces/', { body: { name: 'X', slug } }), 400, 'validation_failed');
      expect(problem.errors?.[0]?.path).toBe('/slug');
    }
  });

  it('answers 404 for a workspace the caller is not a member of, exactly as for one that does not exist', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const outsider = as((await signUp(api)).token);
    const hidden = expectFailure(await outsider.GET('/api/workspaces/{slug}/', { params: { path: { slug: ws.slug } } }), 404, 'not_found');
    const missing = expectFailure(await outsider.GET('/api/workspaces/{slug}/', { params: { path: { slug: `no-such-ws-${Date.now()}` } } }), 404);
    expect(hidden.detail).toBe(missing.detail);
    expectFailure(await outsider.GET('/api/workspaces/{slug}/projects/', { params: { path: { slug: ws.slug } } }), 404);
  });

  it('lets an admin rename and delete the workspace, but not a member', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const member = as((await ws.addUser('member')).token);
    const admin = as(ws.admin.token);
    const path = { slug: ws.slug };
    expectFailure(await member.PATCH('/api/workspaces/{slug}/', { params: { path }, body: { name: 'Nope' } }), 403, 'forbidden');
    expect((await unwrap(admin.PATCH('/api/workspaces/{slug}/', { params: { path }, body: { name: 'Renamed' } }))).name).toBe('Renamed');
    expectFailure(await member.DELETE('/api/workspaces/{slug}/', { params: { path } }), 403);
    expect((await admin.DELETE('/api/workspaces/{slug}/', { params: { path } })).response.status).toBe(204);
    expectFailure(await admin.GET('/api/workspaces/{slug}/', { params: { path } }), 404);
  });
});

describe('members', () => {
  it('adds an existing user by e-mail with a role and lists them', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const user = await signUp(api);
    const path = { slug: ws.slug };
    const added = await as(ws.admin.token).POST('/api/workspaces/{slug}/members/', {
      params: { path },
      body: { email: user.user.email, role: 'guest' },
    });
    expect(added.response.status).toBe(201);
    expect(added.data).toMatchObject({ user_id: user.user.id, role: 'guest', email: user.user.email });
    const list = await unwrap(as(user.token).GET('/api/workspaces/{slug}/members/', { params: { path } }));
    expect(list.map((m) => m.role).sort()).toEqual(['admin', 'guest']);
  });

  it('answers 404 for an unknown e-mail, 409 for an existing member and 400 for an unknown role', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const admin = as(ws.admin.token);
    const params = { path: { slug: ws.slug } };
    expectFailure(await admin.POST('/api/workspaces/{slug}/members/', { params, body: { email: 'ghost@example.com', role: 'member' } }), 404);
    expectFailure(await admin.POST('/api/workspaces/{slug}/members/', { params, body: { email: ws.admin.user.email, role: 'member' } }), 409);
    expectFailure(await admin.POST('/api/workspaces/{slug}/members/', { params, body: { email: ws.admin.user.email, role: 'owner' as 'member' } }), 400);
  });

  it('changes roles, and never removes or demotes the last admin', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const admin = as(ws.admin.token);
    const member = (userId: string) => ({ params: { path: { slug: ws.slug, userId } } });
    const route = '/api/workspaces/{slug}/members/{userId}/' as const;
    expectFailure(await admin.PATCH(route, { ...member(ws.admin.user.id), body: { role: 'member' } }), 409, 'conflict');
    expectFailure(await admin.DELETE(route, member(ws.admin.user.id)), 409, 'conflict');
    const second = await ws.addUser('member');
    expect((await unwrap(admin.PATCH(route, { ...member(second.user.id), body: { role: 'admin' } }))).role).toBe('admin');
    expect((await unwrap(admin.PATCH(route, { ...member(ws.admin.user.id), body: { role: 'member' } }))).role).toBe('member');
  });

  it('lets members leave by themselves but not remove others', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const a = await ws.addUser('member');
    const b = await ws.addUser('guest');
    const route = '/api/workspaces/{slug}/members/{userId}/' as const;
    expectFailure(await as(a.token).DELETE(route, { params: { path: { slug: ws.slug, userId: b.user.id } } }), 403, 'forbidden');
    expect((await as(a.token).DELETE(route, { params: { path: { slug: ws.slug, userId: a.user.id } } })).response.status).toBe(204);
    expectFailure(await as(a.token).GET('/api/workspaces/{slug}/', { params: { path: { slug: ws.slug } } }), 404);
  });

  it('does not let a member or guest add members', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const member = await ws.addUser('member');
    const guest = await ws.addUser('guest');
    const user = await signUp(api);
    for (const who of [member, guest]) {
      expectFailure(
        await as(who.token).POST('/api/workspaces/{slug}/members/', {
          params: { path: { slug: ws.slug } },
          body: { email: user.user.email, role: 'member' },
        }),
        403,
      );
    }
  });
});

describe('the typed client', () => {
  it('turns an error answer into an ApiError carrying the problem', async () => {
    const { api } = ctx();
    const user = await signUp(api);
    await expect(unwrap(as(user.token).GET('/api/workspaces/{slug}/', { params: { path: { slug: 'nope-nope' } } }))).rejects.toMatchObject({
      name: 'ApiError',
      status: 404,
      code: 'not_found',
    });
  });
});
