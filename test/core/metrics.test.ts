import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startJobs } from '../../src/job-runner.js';
import { createMetrics } from '../../src/http/metrics.js';
import { createWorkspace, createProject, createIssue } from '../helpers/factories.js';
import { startTestApp, useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('GET /metrics', () => {
  it('serves Prometheus text without a token: requests by route pattern, method and status, latency, the database pool', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id);
    await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`, { token: ws.admin.token });
    await api.get(`/api/workspaces/${ws.slug}/nope/`, { token: ws.admin.token });
    const res = await api.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = res.text;
    expect(text).toMatch(/http_requests_total\{route="\/api\/workspaces\/:slug\/projects\/:projectId\/issues\/:issueId\/",method="GET",status="200"\} \d+/);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0.1",route="[^"]+",method="POST",status="201"\} \d+/);
    expect(text).toMatch(/http_requests_total\{route="unmatched",method="GET",status="404"\} \d+/);
    expect(text).toMatch(/db_pool_connections_total \d+/);
    expect(text).toMatch(/db_pool_requests_waiting \d+/);
    expect(text).toMatch(/process_resident_memory_bytes \d+/);
    expect(text).toMatch(/sla_trackers_breached \d+/);
    // No tenant data: no slug, no id, no e-mail.
    for (const secret of [ws.slug, project.id, issue.id, ws.admin.user.email, ws.admin.token]) expect(text).not.toContain(secret);
  });

  it('reports how long each checkout held a database connection: a whole transaction is one checkout (issue 28)', async () => {
    const { api, database } = ctx();
    const over = (text: string, le: string) => {
      const count = Number(/db_connection_hold_seconds_count (\d+)/.exec(text)?.[1]);
      const within = Number(new RegExp(`db_connection_hold_seconds_bucket\\{le="${le}"\\} (\\d+)`).exec(text)?.[1]);
      return count - within;
    };
    await createWorkspace(api);
    const before = (await api.get('/metrics')).text;
    expect(before).toMatch(/db_connection_hold_seconds_count [1-9]\d*\n/);
    await database.db.transaction().execute(async (tx) => {
      await sql`SELECT 1`.execute(tx);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await sql`SELECT 2`.execute(tx);
    });
    const after = (await api.get('/metrics')).text;
    // The transaction held its connection for over a second, across both statements: one hold over 1 s more.
    expect(over(after, '1') - over(before, '1')).toBe(1);
  });

  it('is not served when METRICS_ENABLED=false', async () => {
    const t = await startTestApp({ metricsEnabled: false });
    try {
      const res = await t.api.get('/metrics');
      expect(res.status).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe('the job runner', () => {
  it('counts runs and failures per job and reports duration and lag', async () => {
    const metrics = createMetrics();
    let ok = 0;
    const log = { error: () => undefined } as never;
    const runner = startJobs(
      [
        { name: 'fine', run: async () => void (ok += 1), intervalMs: 15 },
        { name: 'broken', run: async () => Promise.reject(new Error('boom')), intervalMs: 15 },
        { name: 'off', run: async () => undefined, intervalMs: 0 },
      ],
      60_000,
      metrics,
      log,
    );
    await new Promise((resolve) => setTimeout(resolve, 120));
    await runner.stop();
    const text = await metrics.registry.metrics();
    expect(ok).toBeGreaterThan(1);
    expect(text).toContain(`job_runs_total{job="fine",outcome="ok"} ${ok}`);
    expect(text).toMatch(/job_runs_total\{job="broken",outcome="failed"\} [1-9]/);
    expect(text).not.toContain('job="off"');
    expect(text).toMatch(/job_lag_seconds\{job="fine"\} [\d.e-]+/);
    expect(text).toMatch(/job_duration_seconds_count\{job="fine"\} [1-9]/);
  });

  it('lets a module register its own counter and scrape-time gauge (the webhook and SLA seams)', async () => {
    const metrics = createMetrics();
    const deliveries = metrics.counter('webhook_deliveries_total', 'Webhook deliveries by outcome', ['outcome']);
    deliveries.inc({ outcome: 'delivered' });
    metrics.counter('webhook_deliveries_total', 'Webhook deliveries by outcome', ['outcome']).inc({ outcome: 'delivered' });
    metrics.collect('sla_trackers_breached', 'Breached SLA trackers', async () => 7);
    const text = await metrics.registry.metrics();
    expect(text).toContain('webhook_deliveries_total{outcome="delivered"} 2');
    expect(text).toContain('sla_trackers_breached 7');
  });
});
