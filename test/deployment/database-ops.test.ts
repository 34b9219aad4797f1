/**
 * The database as it runs in production (contract 27), on a PostgreSQL cluster of the test's own (`initdb` in a
 * temporary folder, a free port: the shared 127.0.0.1:5432 cluster is never restarted) and Debian's PgBouncer:
 * - 27.1: the real service process under a write load while its database restarts and then stops for 20 s: it
 *   never ends, answers 503 with Retry-After meanwhile, serves again within 2 s of the database's return, loses no
 *   acknowledged write, and logs each lost connection as one short line;
 * - 27.2: three instances starting at once on an empty database behind PgBouncer in transaction mode with
 *   DATABASE_POOLER=transaction, then traffic through all three with no failure; and an instance without the
 *   setting, whose first lost prepared statement names DATABASE_POOLER and turns /readyz 503.
 * Slow (a 20 s outage, five service processes): runs once in `.ci/run` (RUN_DB_OPS_TEST=1), not per database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, startProTrial, type WorkspaceFixture } from '../helpers/factories.js';
import { apiClient } from '../helpers/http.js';
import { available, freePort, makeReplica, type PgCluster, type PgReplica, startCluster } from '../helpers/pg-cluster.js';
import { type Pgbouncer, pgbouncerAvailable, startPgbouncer } from '../helpers/pgbouncer.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const enabled = process.env.RUN_DB_OPS_TEST === '1' && available() && pgbouncerAvailable();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Service {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  log: string[];
  stop(): Promise<void>;
}

const services: Service[] = [];

/** The real service (`src/main.ts`) in a child process, on `databaseUrl` (empty: the embedded database of DATA_DIR). */
async function startService(databaseUrl: string, env: Record<string, string> = {}, readyTimeoutMs = 60_000): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_URL: '',
      JOB_INTERVAL_MS: '200',
      LOG_LEVEL: 'info',
      API_RATE_LIMIT: '1000000',
      RATE_LIMIT_SIGNUPS: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  let partial = '';
  const collect = (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    log.push(...lines);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const service: Service = {
    url,
    child,
    exited,
    log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  services.push(service);
  const end = Date.now() + readyTimeoutMs;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${log.join('\n')}`);
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return service;
    await sleep(100);
  }
  throw new Error(`the service did not start:\n${log.join('\n')}`);
}

async function waitReady(service: Service, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const status = await fetch(`${service.url}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(100);
  }
  throw new Error(`not ready:\n${service.log.join('\n')}`);
}

async function createDatabase(cluster: PgCluster, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: cluster.url('postgres') });
  await client.connect();
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
  return cluster.url(name);
}

describe.runIf(enabled)('the database as it runs in production (contract 27)', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startCluster({ settings: { max_connections: 300 } });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await cluster?.destroy();
  }, 60_000);

  it('lives through a restart and a 20 s stop under a write load: 503 with Retry-After, back within 2 s, nothing acknowledged lost', async () => {
    const url = await createDatabase(cluster, 'failover');
    const service = await startService(url);
    await waitReady(service);
    const api = apiClient(service.url);
    const ws: WorkspaceFixture = await createWorkspace(api);
    const project = await createProject(api, ws);

    // The write load: one create every 50 ms; a 201 is an acknowledged write.
    const acknowledged: string[] = [];
    const unavailable: Response[] = [];
    const other: string[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const started = Date.now();
        const res = await api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/`, { name: `load ${i}` }, { token: ws.admin.token });
        if (res.status === 201) acknowledged.push(res.body.id);
        else if (res.status === 503) {
          expect(res.body).toMatchObject({ code: 'database_unavailable', status: 503 });
          expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
          unavailable.push(new Response());
        } else other.push(`${res.status} ${res.text}`);
        await sleep(Math.max(0, 50 - (Date.now() - started)));
      }
    })();

    await sleep(1_000);
    const beforeRestart = acknowledged.length;
    await cluster.restart({ mode: 'fast' });
    await sleep(1_500);
    expect(acknowledged.length, 'writes go on after the restart').toBeGreaterThan(beforeRestart);

    // A 20 s stop: the service answers 503 (never 500), /readyz 503, /healthz 200; duties are paused.
    await cluster.stop({ mode: 'fast' });
    await sleep(1_000);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(503);
    const during = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/`, { token: ws.admin.token });
    expect(during.status).toBe(503);
    expect(during.headers.get('retry-after')).toBe('2');
    await sleep(19_000);
    expect(service.child.exitCode).toBeNull();

    // Back: the first 2xx within 2 s of the database accepting connections.
    await cluster.start();
    const back = Date.now();
    let firstOk = 0;
    while (Date.now() - back < 10_000) {
      const res = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?per_page=1`, { token: ws.admin.token });
      if (res.status === 200) {
        firstOk = Date.now() - back;
        break;
      }
      await sleep(20);
    }
    console.log(`first 2xx ${firstOk} ms after the database accepted connections again`);
    expect(firstOk).toBeGreaterThan(0);
    expect(firstOk).toBeLessThanOrEqual(2_000);
    await sleep(1_000);
    writing = false;
    await writer;

    expect(other, 'no answer but 201 or 503').toEqual([]);
    expect(unavailable.length).toBeGreaterThan(0);
    expect(service.child.exitCode).toBeNull();
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);

    // Nothing acknowledged lost.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const stored = await db.query('SELECT id FROM issues WHERE id = ANY($1)', [acknowledged]);
    await db.end();
    expect(stored.rowCount).toBe(acknowledged.length);

    // Logs: each lost connection one short line with its code; the outage once; no client dumped, no 500.
    const lost = service.log.filter((l) => l.includes('database connection lost'));
    expect(lost.length).toBeGreaterThan(0);
    for (const line of [...lost, ...service.log.filter((l) => l.includes('database'))]) {
      expect(line.length, line.slice(0, 300)).toBeLessThan(1_000);
      expect(line).not.toMatch(/"client"|_events|prepared/);
    }
    expect(lost.every((l) => /"code":"[0-9A-Z]+"/.test(l))).toBe(true);
    expect(service.log.filter((l) => l.includes('unhandled error'))).toEqual([]);
    expect(service.log.some((l) => l.includes('database available again'))).toBe(true);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/job_runs_total\{job="[^"]+",outcome="paused"\} [1-9]/);
  }, 120_000);

  describe('behind PgBouncer in transaction mode', () => {
    let bouncer: Pgbouncer;
    beforeAll(async () => {
      bouncer = await startPgbouncer({ host: '127.0.0.1', port: cluster.port, poolMode: 'transaction', poolSize: 5 });
    });
    afterAll(async () => {
      await bouncer?.stop();
    });

    it('starts three instances at once on an empty database with DATABASE_POOLER=transaction and serves through all three', async () => {
      await createDatabase(cluster, 'pooled');
      const env = { DATABASE_POOLER: 'transaction' };
      const instances = await Promise.all([0, 1, 2].map(() => startService(bouncer.url('pooled'), env)));
      await Promise.all(instances.map((s) => waitReady(s)));
      const db = new pg.Client({ connectionString: cluster.url('pooled') });
      await db.connect();
      const applied = await db.query('SELECT name FROM kysely_migration');
      const files = readdirSync(new URL('../../src/db/migrations/', import.meta.url)).filter((f) => f.endsWith('.sql'));
      expect(applied.rowCount).toBe(files.length);

      // Traffic through all three: every request answers as it would directly.
      const apis = instances.map((s) => apiClient(s.url));
      const ws = await createWorkspace(apis[0]!);
      const project = await createProject(apis[1]!, ws);
      const statuses: number[] = [];
      await Promise.all(
        apis.map(async (api, n) => {
          for (let i = 0; i < 20; i++) {
            const created = await api.post(
              `/api/workspaces/${ws.slug}/projects/${project.id}/issues/`,
              { name: `pooled ${n}-${i}` },
              { token: ws.admin.token },
            );
            statuses.push(created.status);
            const read = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${created.body.id}/`, { token: ws.admin.token });
            statuses.push(read.status);
            const patched = await api.patch(
              `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${created.body.id}/`,
              { priority: 'high' },
              { token: ws.admin.token },
            );
            statuses.push(patched.status);
            const list = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?per_page=5`, { token: ws.admin.token });
            statuses.push(list.status);
          }
        }),
      );
      expect(statuses.filter((s) => s >= 300)).toEqual([]);
      const count = await db.query('SELECT count(*)::int AS n FROM issues WHERE project_id = $1', [project.id]);
      expect(count.rows[0].n).toBe(60);
      await db.end();
      for (const s of instances) {
        expect(s.log.filter((l) => l.includes('"level":50') || l.includes('unhandled error'))).toEqual([]);
        await fetch(`${s.url}/readyz`).then((r) => expect(r.status).toBe(200));
      }
      await Promise.all(instances.map((s) => s.stop()));
    }, 120_000);

    it('without DATABASE_POOLER, names the setting at the first lost prepared statement and turns /readyz 503', async () => {
      const service = await startService(bouncer.url('pooled'));
      await waitReady(service);
      const api = apiClient(service.url);
      const ws = await createWorkspace(api).catch(() => undefined);
      // Requests on many connections at once: a statement parsed on one server connection is run on another.
      let notReady = false;
      for (let round = 0; round < 50 && !notReady; round++) {
        await Promise.all(
          Array.from({ length: 10 }, () => (ws ? api.get(`/api/workspaces/${ws.slug}/`, { token: ws.admin.token }) : api.get('/api/auth/me/'))),
        );
        notReady = (await fetch(`${service.url}/readyz`)).status === 503;
      }
      expect(notReady).toBe(true);
      const lines = service.log.filter((l) => l.includes('DATABASE_POOLER=transaction'));
      expect(lines).toHaveLength(1);
      expect(service.child.exitCode).toBeNull();
      await service.stop();
    }, 120_000);
  });

  describe('with a streaming replica (pg_basebackup -R)', () => {
    let replica: PgReplica;
    let service: Service;
    const reads = async (target: 'primary' | 'replica') => {
      const text = await (await fetch(`${service.url}/metrics`)).text();
      return Number(new RegExp(`db_reads_total\\{target="${target}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    };
    const lag = async () => {
      const text = await (await fetch(`${service.url}/metrics`)).text();
      return Number(/db_replica_lag_seconds\{replica="[^"]+"\} (-?[\d.e+-]+)/.exec(text)?.[1] ?? NaN);
    };
    beforeAll(async () => {
      await createDatabase(cluster, 'replicated');
      replica = await makeReplica(cluster);
      service = await startService(cluster.url('replicated'), { DATABASE_REPLICA_URLS: replica.url('replicated'), REPLICA_MAX_LAG_S: '1' });
      await waitReady(service);
      // In use once the monitor has seen it (every 500 ms).
      for (let i = 0; i < 100 && !((await lag()) >= 0); i++) await sleep(100);
    }, 120_000);
    afterAll(async () => {
      await service?.stop();
      await replica?.destroy();
    }, 60_000);

    it('reads a write at once, sends a reader to the replica, and moves reads off a lagging or stopped replica', async () => {
      const api = apiClient(service.url);
      const ws = await createWorkspace(api);
      await startProTrial(api, ws);
      const project = await createProject(api, ws);
      const reader = await ws.addUser('member', 'Reader');
      const base = `/api/workspaces/${ws.slug}`;

      // Read-your-writes: a create, then at once a read of a replica route that would 404 without the write.
      for (let i = 0; i < 30; i++) {
        const issue = await createIssue(api, ws, project.id, { name: `ryw ${i}` });
        const history = await api.get(`${base}/projects/${project.id}/issues/${issue.id}/history/`, { token: ws.admin.token });
        expect(history.status, history.text).toBe(200);
        const list = await api.get(`${base}/projects/${project.id}/issues/?per_page=100`, { token: ws.admin.token });
        expect(list.body.results.map((x: { id: string }) => x.id)).toContain(issue.id);
      }
      const issue = await createIssue(api, ws, project.id, { name: 'for the routes' });
      const baseline = await api.post(`${base}/projects/${project.id}/baselines/`, { name: 'B1' }, { token: ws.admin.token });
      expect(baseline.status, baseline.text).toBe(201);
      await replica.waitForReplay();
      await sleep(1_200);

      // Every replica route answers from the replica (a replica refuses writes: none of them writes).
      const routes = [
        `${base}/projects/${project.id}/issues/`,
        `${base}/projects/${project.id}/issues/${issue.id}/history/`,
        `${base}/projects/${project.id}/issues/${issue.id}/comments/`,
        `${base}/projects/${project.id}/issues/${issue.id}/worklogs/`,
        `${base}/timesheet/?from=2026-01-01&to=2026-01-31&group_by=user`,
        `${base}/projects/${project.id}/forecast/`,
        `${base}/baselines/${baseline.body.id}/deviation/`,
        `${base}/baselines/${baseline.body.id}/changes/?kind=changed`,
        `${base}/sla-reports/?from=2026-01-01&to=2026-01-31&group_by=priority`,
      ];
      const before = await reads('replica');
      for (const path of routes) {
        const res = await api.get(path, { token: reader.token });
        expect(res.status, `${path} ${res.text}`).toBe(200);
      }
      expect(await reads('replica')).toBe(before + routes.length);

      // A read-heavy load from a client that only reads: the replica's share.
      const [r0, p0] = [await reads('replica'), await reads('primary')];
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let i = 0; i < 25; i++) await api.get(`${base}/projects/${project.id}/issues/?per_page=20`, { token: reader.token });
        }),
      );
      const [r1, p1] = [await reads('replica'), await reads('primary')];
      console.log(`replica share of 100 list reads: ${r1 - r0} replica, ${p1 - p0} primary`);
      expect(r1 - r0).toBe(100);

      // Lagging on purpose: replay paused while the primary writes. Over REPLICA_MAX_LAG_S (1 s) reads go to the primary.
      await replica.pauseReplay();
      await createIssue(api, ws, project.id, { name: 'while paused' });
      for (let i = 0; i < 50 && !((await lag()) > 1); i++) await sleep(100);
      expect(await lag()).toBeGreaterThan(1);
      const [r2, p2] = [await reads('replica'), await reads('primary')];
      for (let i = 0; i < 10; i++) expect((await api.get(`${base}/projects/${project.id}/issues/`, { token: reader.token })).status).toBe(200);
      expect(await reads('replica')).toBe(r2);
      expect(await reads('primary')).toBe(p2 + 10);
      await replica.resumeReplay();
      for (let i = 0; i < 50 && !((await lag()) === 0); i++) await sleep(100);
      const r3 = await reads('replica');
      await api.get(`${base}/projects/${project.id}/issues/`, { token: reader.token });
      expect(await reads('replica')).toBe(r3 + 1);

      // A stopped replica: reads go on from the primary, /readyz stays 200.
      await replica.stop({ mode: 'immediate' });
      for (let i = 0; i < 20; i++) {
        const res = await api.get(`${base}/projects/${project.id}/issues/`, { token: reader.token });
        expect(res.status, res.text).toBe(200);
      }
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
      await expect.poll(lag, { timeout: 5_000, interval: 100 }).toBe(-1);
      expect(service.log.filter((l) => l.includes('unhandled error'))).toEqual([]);
    }, 120_000);
  });
});

describe.runIf(process.env.RUN_DB_OPS_TEST === '1')('the embedded database when its process is killed (27.1, section 15)', () => {
  it('keeps every acknowledged write through kill -9 under a write load, and the next start serves on the same folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wis-pglite-kill-'));
    try {
      const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
      const first = await startService('', env);
      await waitReady(first);
      const api = apiClient(first.url);
      const ws = await createWorkspace(api);
      const project = await createProject(api, ws);
      const acknowledged: string[] = [];
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing; i++) {
          const res = await api
            .post(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/`, { name: `kill ${i}` }, { token: ws.admin.token })
            .catch(() => undefined);
          if (res?.status === 201) acknowledged.push(res.body.id);
          await sleep(20);
        }
      })();
      // Killed while writing, once more than 10 writes were acknowledged (a fixed 1.5 s saw exactly 10 on a loaded CI
      // machine, where the first creates after a start are slow).
      await expect.poll(() => acknowledged.length, { timeout: 30_000, interval: 20 }).toBeGreaterThan(10);
      first.child.kill('SIGKILL');
      await first.exited;
      writing = false;
      await writer;
      expect(acknowledged.length).toBeGreaterThan(10);

      const second = await startService('', env);
      await waitReady(second);
      const api2 = apiClient(second.url);
      const seen = new Set<string>();
      for (let page = 1; ; page++) {
        const list = await api2.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?per_page=100&page=${page}`, { token: ws.admin.token });
        expect(list.status, list.text).toBe(200);
        for (const issue of list.body.results as { id: string }[]) seen.add(issue.id);
        if (list.body.results.length < 100) break;
      }
      expect(acknowledged.filter((id) => !seen.has(id))).toEqual([]);
      await second.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
