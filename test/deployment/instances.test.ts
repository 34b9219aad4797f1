/**
 * Several instances (contract section 15): two real service processes on one PostgreSQL database and one Redis,
 * traffic through both, one stopped with SIGTERM and the other killed with SIGKILL mid-work. Checks that the
 * background duty (the billing lifecycle) ran exactly once per due subscription and that no acknowledged write was
 * lost. Runs once in `.ci/run` (RUN_INSTANCES_TEST=1 with DATABASE_URL and REDIS_URL), not per database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createProject, createWorkspace, startProTrial } from '../helpers/factories.js';
import { apiClient } from '../helpers/http.js';

const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const enabled = process.env.RUN_INSTANCES_TEST === '1' && !!DATABASE_URL && !!REDIS_URL;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Instance {
  name: string;
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  log: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(enabled)('several instances on one PostgreSQL and Redis', () => {
  const dbName = `wis_instances_${randomBytes(4).toString('hex')}`;
  const admin = new URL(DATABASE_URL ?? 'postgres://localhost/postgres');
  admin.pathname = '/postgres';
  const dbUrl = new URL(admin);
  dbUrl.pathname = `/${dbName}`;
  const running: Instance[] = [];
  const redisPrefix = `wis-instances:${randomBytes(4).toString('hex')}:`;

  async function start(name: string): Promise<Instance> {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: dbUrl.toString(),
        REDIS_URL,
        REDIS_PREFIX: redisPrefix,
        JOB_INTERVAL_MS: '150',
        // A renewal charge whose answer died with its instance is asked about at once (contract 13, 19.2).
        PAYMENT_RECONCILE_AFTER_S: '1',
        LOG_LEVEL: 'warn',
        API_RATE_LIMIT: '1000000',
        RATE_LIMIT_SIGNUPS: '1000000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log: string[] = [];
    child.stdout!.on('data', (d: Buffer) => log.push(d.toString()));
    child.stderr!.on('data', (d: Buffer) => log.push(d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = `http://127.0.0.1:${port}`;
    const instance = { name, url, child, exited, log };
    running.push(instance);
    for (let i = 0; i < 300; i++) {
      const ready = await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) return instance;
      if (child.exitCode !== null) break;
      await sleep(100);
    }
    throw new Error(`${name} did not become ready:\n${log.join('')}`);
  }

  afterAll(async () => {
    for (const i of running) if (i.child.exitCode === null) i.child.kill('SIGKILL');
    await Promise.all(running.map((i) => i.exited));
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await client.end();
  });

  it('runs the lifecycle once per due subscription and loses no acknowledged write through SIGTERM and kill -9', async () => {
    const setup = new pg.Client({ connectionString: admin.toString() });
    await setup.connect();
    await setup.query(`CREATE DATABASE "${dbName}"`);
    await setup.end();

    // Two instances start at once on the empty database: the migrations must not collide either.
    const [a, b] = await Promise.all([start('a'), start('b')]);
    const apiA = apiClient(a.url);
    const apiB = apiClient(b.url);

    // Fixtures through both instances.
    const ws = await createWorkspace(apiA);
    await startProTrial(apiB, ws);
    const project = await createProject(apiB, ws);
    const due = [];
    for (let i = 0; i < 12; i++) {
      const w = await createWorkspace(i % 2 ? apiA : apiB, ws.admin);
      await startProTrial(i % 2 ? apiB : apiA, w);
      due.push(w);
    }

    // Paid subscriptions with a stored card (contract 19.1), each bought through one instance's sandbox page.
    const paid = [];
    for (let i = 0; i < 16; i++) {
      const api = i % 2 ? apiA : apiB;
      const w = await createWorkspace(api, ws.admin);
      const session = await api.post(`/api/workspaces/${w.slug}/billing/checkout/`, { plan_slug: 'pro', billing_interval: 'month' }, { token: w.admin.token });
      expect(session.status, session.text).toBe(201);
      const pay = await fetch(`${session.body.iframe_url}/pay`, { method: 'POST', redirect: 'manual' });
      expect(pay.status).toBe(303);
      paid.push(w);
    }

    // Writers: issues created alternately through every live instance; a 201 is an acknowledged write.
    const acknowledged: string[] = [];
    let live = [apiA, apiB];
    let stop = false;
    let failed = 0;
    const writer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const api = live[(i + n) % live.length]!;
        try {
          const res = await api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/`, { name: `w${n}-${i}` }, { token: ws.admin.token });
          if (res.status === 201) acknowledged.push(res.body.id);
          else failed += 1;
        } catch {
          failed += 1; // connection refused or reset by a stopping or killed instance: not acknowledged
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);

    const db = new pg.Client({ connectionString: dbUrl.toString() });
    await db.connect();
    try {
      await sleep(500);
      // Every due subscription's trial ends now: both instances' lifecycle jobs race for them.
      const ids = due.map((w) => w.workspaceId);
      await db.query(
        `UPDATE subscriptions SET current_period_start = now() - interval '15 days', current_period_end = now() - interval '1 minute' WHERE workspace_id = ANY($1)`,
        [ids],
      );
      // ... and every paid period ends now: both instances' collection jobs race to charge the stored cards.
      const paidIds = paid.map((w) => w.workspaceId);
      await db.query(
        `UPDATE subscriptions SET current_period_start = date_trunc('second', now()) - interval '1 month', current_period_end = date_trunc('second', now()) - interval '1 minute' WHERE workspace_id = ANY($1)`,
        [paidIds],
      );
      const ends = await db.query<{ workspace_id: string; end: Date }>(
        'SELECT workspace_id, current_period_end AS end FROM subscriptions WHERE workspace_id = ANY($1)',
        [paidIds],
      );
      await sleep(200);

      // A stops gracefully (SIGTERM) while the writers keep going; a fresh instance C takes its place.
      live = [apiB];
      const t0 = Date.now();
      a.child.kill('SIGTERM');
      expect(await a.exited).toBe(0);
      const t1 = Date.now();
      const c = await start('c');
      console.log(`sigterm ${t1 - t0} ms, start ${Date.now() - t1} ms`);
      const apiC = apiClient(c.url);
      live = [apiB, apiC];
      await sleep(400);

      // B dies mid-work (SIGKILL) with requests and jobs in flight.
      b.child.kill('SIGKILL');
      live = [apiC];
      await b.exited;
      await sleep(600);
      stop = true;
      await Promise.all(writers);

      // No acknowledged write lost.
      expect(acknowledged.length).toBeGreaterThan(20);
      const stored = await db.query<{ id: string }>('SELECT id FROM issues WHERE id = ANY($1)', [acknowledged]);
      expect(stored.rowCount).toBe(acknowledged.length);

      // Every due subscription transitioned exactly once, with exactly one event.
      const events = await db.query<{ workspace_id: string; n: number }>(
        `SELECT workspace_id, count(*)::int AS n FROM billing_events
          WHERE type = 'subscription.transition' AND workspace_id = ANY($1) GROUP BY workspace_id`,
        [ids],
      );
      expect(Object.fromEntries(events.rows.map((r) => [r.workspace_id, r.n]))).toEqual(Object.fromEntries(ids.map((id) => [id, 1])));
      const statuses = await db.query<{ status: string }>('SELECT status FROM subscriptions WHERE workspace_id = ANY($1)', [ids]);
      expect(statuses.rows.every((r) => r.status !== 'trialing')).toBe(true);
      // The workspace that was not due kept its trial.
      const kept = await db.query<{ status: string }>('SELECT status FROM subscriptions WHERE workspace_id = $1', [ws.workspaceId]);
      expect(kept.rows[0]?.status).toBe('trialing');
      // The survivor still serves, with every acknowledged issue.
      const list = await apiC.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?per_page=1`, { token: ws.admin.token });
      expect(list.status).toBe(200);
      // Every acknowledged issue, plus at most the writes cut off in flight (committed, but the answer never came back).
      expect(list.body.total).toBeGreaterThanOrEqual(acknowledged.length);
      expect(list.body.total).toBeLessThanOrEqual(acknowledged.length + failed);

      // Every due renewal charged exactly once at the provider, whatever died mid-charge: a charge whose answer was
      // lost with B is settled by reconciliation on C (the provider's status query), never charged again.
      let renewals: { workspace_id: string; status: string; charges: number }[] = [];
      for (let i = 0; i < 150; i++) {
        renewals = (
          await db.query<{ workspace_id: string; status: string; charges: number }>(
            `SELECT p.workspace_id, p.status, (SELECT count(*)::int FROM sandbox_charges c WHERE c.merchant_oid = p.merchant_oid) AS charges
               FROM payments p WHERE p.kind = 'renewal' AND p.workspace_id = ANY($1)`,
            [paidIds],
          )
        ).rows;
        if (renewals.length === paidIds.length && renewals.every((r) => r.status !== 'pending')) break;
        await sleep(200);
      }
      expect(renewals.map((r) => r.workspace_id).sort()).toEqual([...paidIds].sort());
      // A charge recorded but never sent (B died between the commit and the provider call) stays pending until the
      // order timeout; every other one succeeded, each with exactly one charge at the provider.
      for (const r of renewals) expect(r.status === 'success' ? r.charges : r.status === 'pending' ? r.charges : -1).toBe(r.status === 'success' ? 1 : 0);
      const perCard = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM sandbox_charges c JOIN payment_customers pc ON pc.utoken = c.utoken WHERE pc.workspace_id = ANY($1) GROUP BY pc.workspace_id`,
        [paidIds],
      );
      expect(perCard.rows.every((r) => r.n === 1)).toBe(true);
      const renewed = await db.query<{ workspace_id: string; start: Date; status: string }>(
        'SELECT workspace_id, current_period_start AS start, status FROM subscriptions WHERE workspace_id = ANY($1)',
        [paidIds],
      );
      const endOf = new Map(ends.rows.map((r) => [r.workspace_id, r.end.getTime()]));
      for (const r of renewed.rows) {
        const settled = renewals.find((x) => x.workspace_id === r.workspace_id)!;
        if (settled.status === 'success')
          expect({ status: r.status, start: r.start.getTime() }).toEqual({ status: 'active', start: endOf.get(r.workspace_id) });
      }
      const pendingLeft = renewals.filter((r) => r.status === 'pending').length;
      console.log(
        `instances: ${acknowledged.length} acknowledged writes, ${failed} refused or cut off, ${ids.length} lifecycle transitions, ${paidIds.length - pendingLeft} renewals charged once (${pendingLeft} cut off before the provider call)`,
      );
    } finally {
      stop = true;
      await db.end();
    }
  }, 120_000);
});
