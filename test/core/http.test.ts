import { describe, expect, it } from 'vitest';
import { createWorkspace, expectProblem, signUp } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('HTTP plumbing', () => {
  it('answers /healthz and /readyz', async () => {
    const { api } = ctx();
    expect((await api.get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await api.get('/readyz')).body).toEqual({ status: 'ok' });
  });

  it('serves an OpenAPI 3.1 document with every route and the problem responses', async () => {
    const { api } = ctx();
    const res = await api.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const paths = Object.keys(res.body.paths);
    expect(paths).toContain('/api/workspaces/{slug}/projects/{projectId}/issues/');
    const post = res.body.paths['/api/workspaces/{slug}/projects/']['post'];
    expect(post.responses['400'].content['application/json'].schema.properties.code).toBeDefined();
  });

  it('serves the interactive reference at /docs', async () => {
    const res = await ctx().api.get('/docs');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/<html/i);
  });

  it('answers an unknown route with a problem+json 404', async () => {
    expectProblem(await ctx().api.get('/api/nothing-here/'), 404, 'not_found');
  });

  it('answers 401 unauthenticated without a token and with an unknown one', async () => {
    const { api } = ctx();
    expectProblem(await api.get('/api/workspaces/'), 401, 'unauthenticated');
    expectProblem(await api.get('/api/workspaces/', { token: 'wis_nope' }), 401, 'unauthenticated');
    expectProblem(await api.get('/api/workspaces/', { headers: { 'x-api-key': 'garbage' } }), 401, 'unauthenticated');
  });

  it('answers invalid JSON with 400 invalid_json', async () => {
    const { api } = ctx();
    const { token } = await signUp(api);
    const res = await api.request('POST', '/api/workspaces/', {
      token,
      raw: '{"name": "x", ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400, 'invalid_json');
  });

  it('answers another content type with 415', async () => {
    const { api } = ctx();
    const { token } = await signUp(api);
    const res = await api.request('POST', '/api/workspaces/', { token, raw: 'name=x', headers: { 'content-type': 'text/plain' } });
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('answers a body over 1 MiB with 413', async () => {
    const { api } = ctx();
    const { token } = await signUp(api);
    const res = await api.post('/api/workspaces/', { name: 'x'.repeat(1024 * 1024 + 10), slug: 'big-one' }, { token });
    expectProblem(res, 413, 'payload_too_large');
  });

  it('answers schema failures with 400 validation_failed and a list of field errors', async () => {
    const { api } = ctx();
    const { token } = await signUp(api);
    const res = await api.post('/api/workspaces/', { name: 12, slug: 'Bad Slug' }, { token });
    expectProblem(res, 400, 'validation_failed');
    const paths = (res.body.errors as { path: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['/name', '/slug']);
  });

  it('answers a path id that is not a UUID with 400', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    expectProblem(await api.get(`/api/workspaces/${ws.slug}/projects/not-a-uuid/`, { token: ws.admin.token }), 400, 'validation_failed');
  });

  it('works with and without the trailing slash', async () => {
    const { api } = ctx();
    const { token } = await signUp(api);
    expect((await api.get('/api/workspaces/', { token })).status).toBe(200);
    expect((await api.get('/api/workspaces', { token })).status).toBe(200);
  });

  it('puts a request id on every answer', async () => {
    const res = await ctx().api.get('/healthz');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('accepts an empty body with a JSON content type on DELETE', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const res = await api.request('DELETE', `/api/workspaces/${ws.slug}/`, {
      token: ws.admin.token,
      headers: { 'content-type': 'application/json' },
      raw: '',
    });
    expect(res.status).toBe(204);
  });
});
