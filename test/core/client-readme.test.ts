import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError, createClient, unwrap } from '../../client/src/index.js';
import { useTestApp } from '../helpers/test-app.js';

// The snippets of client/README.md, run against a live test app: if the client's types change under them, this file
// stops type-checking; if the service answers differently, it fails. Keep the calls below and the README in step (the
// last test checks that the README still shows each call as it is written here).
const ctx = useTestApp();
const HOUR = 3_600_000;

describe('client/README.md', () => {
  it('signs in, lists breached SLAs, takes a baseline, starts a checkout, and reads errors as ApiError', async () => {
    const t = ctx();
    const baseUrl = t.url;

    // A user with a workspace, a project, a default SLA policy and an urgent issue whose response is late.
    const anonymous = createClient({ baseUrl });
    await unwrap(anonymous.POST('/api/auth/sign-up/', { body: { email: 'ada@example.com', password: 'correct horse', display_name: 'Ada' } }));
    const setup = createClient({
      baseUrl,
      token: (await unwrap(anonymous.POST('/api/auth/sign-in/', { body: { email: 'ada@example.com', password: 'correct horse' } }))).token,
    });
    await unwrap(setup.POST('/api/workspaces/', { body: { name: 'Acme', slug: 'acme' } }));
    const project = await unwrap(
      setup.POST('/api/workspaces/{slug}/projects/', { params: { path: { slug: 'acme' } }, body: { name: 'Web', identifier: 'WEB' } }),
    );
    await unwrap(
      setup.POST('/api/workspaces/{slug}/sla-policies/', {
        params: { path: { slug: 'acme' } },
        body: { name: 'Standard', is_default: true, rules: [{ priority: 'urgent', response_time_h: 1, resolution_time_h: 4 }] },
      }),
    );
    const late = await unwrap(
      setup.POST('/api/workspaces/{slug}/projects/{projectId}/issues/', {
        params: { path: { slug: 'acme', projectId: project.id } },
        body: { name: 'Checkout is down', priority: 'urgent' },
      }),
    );
    t.clock.advance(2 * HOUR);
    const projectId = project.id;

    // --- the README, as written there ---

    // Sign in
    const { token } = await unwrap(createClient({ baseUrl }).POST('/api/auth/sign-in/', { body: { email: 'ada@example.com', password: 'correct horse' } }));
    const api = createClient({ baseUrl, token });

    // Breached SLAs of a workspace, first page
    const breached = await unwrap(api.GET('/api/workspaces/{slug}/sla-breached/', { params: { path: { slug: 'acme' }, query: { per_page: 50 } } }));
    const lines: string[] = [];
    for (const b of breached.results) lines.push(`${b.issue.sequence_id} ${b.response_due_at}`);

    // Take a baseline of a project
    const baseline = await unwrap(
      api.POST('/api/workspaces/{slug}/projects/{projectId}/baselines/', {
        params: { path: { slug: 'acme', projectId } },
        body: { name: 'Sprint 12 start' },
      }),
    );

    // Start a checkout; show `iframe_url` in an iframe
    const session = await unwrap(
      api.POST('/api/workspaces/{slug}/billing/checkout/', {
        params: { path: { slug: 'acme' } },
        body: { plan_slug: 'pro', billing_interval: 'month' },
      }),
    );

    // Errors are the API's problem+json
    let caught: unknown;
    try {
      await unwrap(api.GET('/api/workspaces/{slug}/', { params: { path: { slug: 'not-mine' } } }));
    } catch (e) {
      caught = e;
    }

    // --- what those calls answered ---
    expect(breached).toMatchObject({ total: 1, offset: 0, per_page: 50 });
    expect(breached.results[0]).toMatchObject({ issue_id: late.id, response_breached: true, issue: { sequence_id: late.sequence_id } });
    expect(lines).toEqual([`${late.sequence_id} ${breached.results[0]!.response_due_at}`]);
    expect(baseline).toMatchObject({ name: 'Sprint 12 start', project_id: projectId });
    expect(session).toMatchObject({ amount: 29900, currency: 'TRY', merchant_oid: expect.any(String) });
    expect(session.iframe_url).toMatch(/^http/);
    expect(caught).toBeInstanceOf(ApiError);
    const error = caught as ApiError;
    expect([error.status, error.code]).toEqual([404, 'not_found']);
    expect(error.problem.detail).toEqual(expect.any(String));
    // Without unwrap: { data, error, response }, error the typed problem body.
    const raw = await api.GET('/api/workspaces/{slug}/', { params: { path: { slug: 'not-mine' } } });
    expect(raw.data).toBeUndefined();
    expect(raw.error).toMatchObject({ status: 404, code: 'not_found' });
    expect(raw.response.status).toBe(404);
  });

  it('shows each of those calls as this test runs it', () => {
    const readme = readFileSync(new URL('../../client/README.md', import.meta.url), 'utf8');
    for (const line of [
      "import { createClient, unwrap, ApiError } from './client/src/index.js';",
      "createClient({ baseUrl }).POST('/api/auth/sign-in/', { body: { email: 'ada@example.com', password: 'correct horse' } }),",
      'const api = createClient({ baseUrl, token });',
      "api.GET('/api/workspaces/{slug}/sla-breached/', { params: { path: { slug: 'acme' }, query: { per_page: 50 } } }),",
      "api.POST('/api/workspaces/{slug}/projects/{projectId}/baselines/', {",
      "params: { path: { slug: 'acme', projectId } },",
      "body: { name: 'Sprint 12 start' },",
      "api.POST('/api/workspaces/{slug}/billing/checkout/', {",
      "body: { plan_slug: 'pro', billing_interval: 'month' },",
      "await unwrap(api.GET('/api/workspaces/{slug}/', { params: { path: { slug: 'not-mine' } } }));",
      'if (e instanceof ApiError) console.log(e.status, e.code, e.problem.detail, e.problem.errors);',
      'for (const t of breached.results) console.log(t.issue.sequence_id, t.response_due_at);',
    ]) {
      expect(readme).toContain(line);
    }
  });
});
