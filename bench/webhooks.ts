/**
 * Webhook benchmarks (issue 11), part of `npm run bench` (also alone: `npx tsx bench/webhooks.ts [--quick]`, on
 * DATABASE_URL's server in a scratch database, or on a temporary PGlite folder without it):
 * 1. deliveries per second to a local receiver, against a raw loop POSTing the same signed bodies with the worker's
 *    concurrency (target >= 0.5x);
 * 2. commit-to-receipt latency at 100 events/s (target p99 <= 1 s);
 * 3. POST create issue with 3 subscribed endpoints against none (target >= 0.9x); deliveries are sent meanwhile, by
 *    the same process, so this counts their cost too.
 * The receiver runs in a child process (receiving is the receiver's cost, not the service's).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { type DatabaseHandle, openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createOutbox, webhooksRepository } from '../src/modules/webhooks/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;

async function scratch(databaseUrl: string | undefined): Promise<{ handle: DatabaseHandle; drop(): Promise<void> }> {
  if (!databaseUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'wis-wh-bench-'));
    const handle = await openDatabase({ databaseUrl: null, dataDir: dir });
    return { handle, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = new URL(databaseUrl);
  const name = `${url.pathname.slice(1) || 'postgres'}_whbench`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
  return {
    handle,
    drop: async () => {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A webhook receiver in a child process: counts POSTs and remembers when (Date.now()) each `data.id` arrived. */
export async function startReceiverProcess() {
  const code = `
    const http = require('node:http');
    let received = 0; let receipts = {};
    const server = http.createServer((req, res) => {
      if (req.method === 'GET') {
        const body = req.url === '/count' ? String(received) : JSON.stringify(receipts);
        if (req.url === '/reset') { received = 0; receipts = {}; }
        return res.end(body);
      }
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received++;
        try { const id = JSON.parse(body).data?.id; if (id) receipts[id] = Date.now(); } catch {}
        res.writeHead(204).end();
      });
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((ok, fail) => {
    child.once('exit', (c) => fail(new Error(`the receiver exited with ${c}`)));
    child.stdout!.once('data', (d: Buffer) => ok(Number(String(d).trim())));
  });
  const url = `http://127.0.0.1:${port}`;
  const get = async (path: string) => (await fetch(url + path)).text();
  return {
    url,
    count: async () => Number(await get('/count')),
    reset: async () => void (await get('/reset')),
    receipts: async () => new Map(Object.entries(JSON.parse(await get('/receipts')) as Record<string, number>)),
    stop: () => child.kill(),
  };
}

export async function benchWebhooks({ databaseUrl, quick }: { databaseUrl?: string; quick: boolean }): Promise<string> {
  const { handle, drop } = await scratch(databaseUrl);
  // The receiver is a process of its own, as a real one is: receiving is not the service's cost (it shared this
  // process's thread before, which charged the service's create-issue rate with three receipts per issue).
  const receiver = await startReceiverProcess();
  const hookUrl = `${receiver.url}/hook`;

  await migrateToLatest(handle.db);
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', RATE_LIMIT_SIGNUPS: '100000', API_RATE_LIMIT: '0' });
  const app = await buildApp({ config, database: handle });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const call = async (method: string, path: string, token: string | null, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? null : await res.json()) as any;
  };
  const rows: string[] = [];
  try {
    const { token } = await call('POST', '/api/auth/sign-up/', null, {
      email: `wh-${Date.now()}@example.com`,
      password: 'benchmark-password',
      display_name: 'Bench',
    });
    const workspace = async (slug: string) => {
      const ws = await call('POST', '/api/workspaces/', token, { name: slug, slug });
      const project = await call('POST', `/api/workspaces/${slug}/projects/`, token, { name: 'P', identifier: 'P' });
      return { slug, id: ws.id as string, project: project.id as string };
    };
    const hook = async (slug: string) => call('POST', `/api/workspaces/${slug}/webhooks/`, token, { url: hookUrl, event_types: ['issue.created'] });

    // 1. Deliveries per second: N committed events, then the worker drains them.
    const n = quick ? 500 : 3000;
    const a = await workspace(`whb-a-${Date.now()}`);
    const { secret } = await hook(a.slug);
    const silent = createOutbox({ repo: webhooksRepository(), clock: { now: () => new Date() } });
    for (let i = 0; i < n; i += 500) {
      await handle.db.transaction().execute(async (tx) => {
        for (let j = i; j < Math.min(n, i + 500); j++)
          await silent.record(tx, { workspaceId: a.id, type: 'issue.created', data: { id: `i${j}`, name: 'x'.repeat(200) } });
      });
    }
    await receiver.reset();
    let t0 = performance.now();
    const deliver = app.jobs.find((j) => j.name === 'webhooks.deliver')!;
    while ((await receiver.count()) < n) {
      await deliver.run();
    }
    const workerRate = n / ((performance.now() - t0) / 1000);
    // The raw loop: the same signed bodies, 20 at a time (the worker's concurrency), on one keep-alive agent, with
    // undici's request API as the worker uses it (fetch's WHATWG layer costs more than the rest of an attempt).
    const wh = new Webhook(secret);
    const agent = new Agent({ keepAliveTimeout: 4_000 });
    const bodies = Array.from({ length: n }, (_, i) =>
      JSON.stringify({
        id: `e${i}`,
        type: 'issue.created',
        timestamp: new Date().toISOString(),
        workspace_id: a.id,
        data: { id: `r${i}`, name: 'x'.repeat(200) },
      }),
    );
    await receiver.reset();
    t0 = performance.now();
    for (let i = 0; i < n; i += 20) {
      await Promise.all(
        bodies.slice(i, i + 20).map((body, k) => {
          const at = new Date();
          return request(hookUrl, {
            method: 'POST',
            dispatcher: agent,
            headers: {
              'content-type': 'application/json',
              'webhook-id': `e${i + k}`,
              'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
              'webhook-signature': wh.sign(`e${i + k}`, at, body),
            },
            body,
          }).then((r) => r.body.dump());
        }),
      );
    }
    while ((await receiver.count()) < n) await sleep(1);
    const rawRate = n / ((performance.now() - t0) / 1000);
    await agent.close();
    rows.push(
      `| deliveries/s (${n} events, 1 endpoint) | ${workerRate.toFixed(0)} | raw loop ${rawRate.toFixed(0)} | ${(workerRate / rawRate).toFixed(2)} | >= 0.5 |`,
    );

    // 2. Commit-to-receipt latency at 100 events/s (issues created over HTTP; the worker is woken by each commit).
    const b = await workspace(`whb-b-${Date.now()}`);
    await hook(b.slug);
    const seconds = quick ? 3 : 10;
    const started = new Map<string, number>();
    const creations: Promise<void>[] = [];
    for (let i = 0; i < seconds * 100; i++) {
      const at = Date.now();
      creations.push(
        call('POST', `/api/workspaces/${b.slug}/projects/${b.project}/issues/`, token, { name: `latency ${i}` }).then(
          (issue) => void started.set(issue.id, at),
        ),
      );
      await sleep(10);
    }
    await Promise.all(creations);
    const deadline = Date.now() + 30_000;
    let receipts = await receiver.receipts();
    while ([...started.keys()].some((id) => !receipts.has(id)) && Date.now() < deadline) {
      await sleep(50);
      receipts = await receiver.receipts();
    }
    const latencies = [...started].filter(([id]) => receipts.has(id)).map(([id, at]) => receipts.get(id)! - at);
    rows.push(
      `| commit-to-receipt at ~100 events/s (${latencies.length} of ${started.size}) | p50 ${pct(latencies, 50).toFixed(0)} ms | p99 ${pct(latencies, 99).toFixed(0)} ms | | p99 <= 1000 ms |`,
    );

    // 3. POST create issue: no endpoints vs three subscribed ones.
    const duration = quick ? 3 : 8;
    const rate = async (slug: string, project: string) => {
      const result = await autocannon({
        url: `${base}/api/workspaces/${slug}/projects/${project}/issues/`,
        method: 'POST',
        connections: 10,
        duration,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'load', priority: 'high' }),
      });
      return result.requests.average;
    };
    const c = await workspace(`whb-c-${Date.now()}`);
    const d = await workspace(`whb-d-${Date.now()}`);
    for (let i = 0; i < 3; i++) await hook(d.slug);
    const without = await rate(c.slug, c.project);
    const withHooks = await rate(d.slug, d.project);
    rows.push(
      `| POST create issue, 3 endpoints vs none | ${withHooks.toFixed(0)} req/s | ${without.toFixed(0)} req/s | ${(withHooks / without).toFixed(2)} | >= 0.9 |`,
    );
  } finally {
    await app.close();
    await handle.close();
    receiver.stop();
    await drop();
  }
  return [
    `### Webhooks (${databaseUrl ? 'PostgreSQL' : 'PGlite'}${quick ? ', quick' : ''})`,
    '',
    '| measure | service | reference | ratio | target |',
    '|---|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchWebhooks({ databaseUrl: process.env.DATABASE_URL, quick: process.argv.includes('--quick') }).then(
    (md) => console.log(md),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
