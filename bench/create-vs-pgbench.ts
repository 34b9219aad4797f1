/**
 * POST create issue against what the database allows (issue 27, target 1), on PostgreSQL, side by side in one run:
 *
 * 1. `pgbench` (PostgreSQL's own client): a transaction of three single-row inserts, 10 clients, on the same server
 *    and in the same scratch database as the service, for the same time;
 * 2. the service (compiled, `node dist/src/main.js`, as `npm start` runs it, every background duty on) answering
 *    POST create issue from 10 clients back to back: its capacity. The workspace has a default SLA policy on a
 *    working-hours calendar and a webhook endpoint subscribed to every event (a receiver answering 200 in this
 *    process), so each create computes its SLA targets in its transaction and records its outbox event;
 * 3. the same at 80 % of that capacity on a fixed schedule for the soak: p50 and p99 measured from the instant each
 *    request was due, so a stall shows in every request that waited behind it.
 *
 * Targets: create issue >= 0.25x the pgbench rate; p99 <= 50 ms at 80 %. Part of `npm run bench`; by hand:
 * `DATABASE_URL=postgres://... npx tsx bench/create-vs-pgbench.ts [--quick]`. Needs `pgbench` on the PATH (the
 * postgresql-client package); without it the row says so.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { type CompiledService, startCompiledService, startCountingReceiver } from './compiled-service.js';

const CLIENTS = 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;

/** CPU time (user + system, ms) of one process, and of every `postgres` process of this machine, from /proc. */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
function postgresCpuMs(): number {
  let ms = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') ms += cpuMsOf(Number(pid));
    } catch {
      /* gone */
    }
  }
  return ms;
}

/** The pgbench rate of a three-insert transaction, or why there is none. */
function pgbench(url: string, seconds: number): { tps: number } | { error: string } {
  const dir = mkdtempSync(join(tmpdir(), 'wis-pgbench-'));
  try {
    const script = join(dir, 'three-inserts.sql');
    writeFileSync(
      script,
      [
        'BEGIN;',
        "INSERT INTO pgbench_three_a (v, at) VALUES ('a', now());",
        "INSERT INTO pgbench_three_b (v, at) VALUES ('b', now());",
        "INSERT INTO pgbench_three_c (v, at) VALUES ('c', now());",
        'END;',
        '',
      ].join('\n'),
    );
    const run = spawnSync('pgbench', ['-n', '-c', String(CLIENTS), '-j', '2', '-T', String(seconds), '-f', script, url], { encoding: 'utf8' });
    if (run.error) return { error: `pgbench not run (${(run.error as NodeJS.ErrnoException).code ?? run.error.message})` };
    const tps = /tps = ([\d.]+)/.exec(run.stdout)?.[1];
    if (run.status !== 0 || !tps) return { error: `pgbench failed: ${(run.stderr || run.stdout).slice(0, 200)}` };
    return { tps: Number(tps) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `projects`: the creates rotate over this many projects of the workspace (1: all in one project). */
export async function benchCreateVsPgbench({ databaseUrl, quick, projects = 1 }: { databaseUrl: string; quick: boolean; projects?: number }): Promise<string> {
  const seconds = quick ? 5 : 15;
  const soakSeconds = quick ? 10 : 30;
  const url = new URL(databaseUrl);
  const name = `${url.pathname.slice(1) || 'postgres'}_createbench`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  url.pathname = `/${name}`;
  const scratchUrl = url.toString();
  const scratch = new pg.Client({ connectionString: scratchUrl });
  await scratch.connect();
  for (const t of ['a', 'b', 'c']) await scratch.query(`CREATE TABLE pgbench_three_${t} (id bigserial PRIMARY KEY, v text NOT NULL, at timestamptz NOT NULL)`);
  await scratch.end();

  const receiver = await startCountingReceiver();
  let service: CompiledService | undefined;
  let openPool: Pool | undefined;
  try {
    service = await startCompiledService({ LOG_LEVEL: 'warn', DATABASE_URL: scratchUrl, API_RATE_LIMIT: '0', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    const { child } = service;
    const pool = (openPool = new Pool(service.base, { connections: CLIENTS + 2, pipelining: 1 }));
    const call = async (method: string, path: string, token: string | null, body?: unknown) => {
      const res = await pool.request({
        method: method as 'GET',
        path,
        headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      if (res.statusCode >= 400) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
      return (text ? JSON.parse(text) : null) as any;
    };
    const { token } = await call('POST', '/api/auth/sign-up/', null, {
      email: 'create-bench@example.com',
      password: 'benchmark-password',
      display_name: 'Bench',
    });
    const slug = 'create-bench';
    await call('POST', '/api/workspaces/', token, { name: 'Create bench', slug });
    const calendar = await call('POST', `/api/workspaces/${slug}/sla-calendars/`, token, {
      name: 'Office',
      time_zone: 'Europe/Istanbul',
      working_hours: (['mon', 'tue', 'wed', 'thu', 'fri'] as const).map((day) => ({ day, start: '09:00', end: '17:00' })),
    });
    await call('POST', `/api/workspaces/${slug}/sla-policies/`, token, {
      name: 'Desk',
      is_default: true,
      calendar_id: calendar.id,
      rules: (['urgent', 'high', 'medium', 'low'] as const).map((priority, i) => ({ priority, response_time_h: 2 ** i, resolution_time_h: 4 * 2 ** i })),
    });
    await call('POST', `/api/workspaces/${slug}/webhooks/`, token, { url: receiver.url, event_types: ['*'] });
    const paths: string[] = [];
    for (let i = 0; i < projects; i++) {
      const project = await call('POST', `/api/workspaces/${slug}/projects/`, token, { name: `Desk ${i}`, identifier: `DESK${i}` });
      paths.push(`/api/workspaces/${slug}/projects/${project.id}/issues/`);
    }
    const priorities = ['urgent', 'high', 'medium', 'low'];
    const create = async (i: number, dueAt: number, out: number[]) => {
      const res = await pool.request({
        method: 'POST',
        path: paths[i % paths.length]!,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Printer ${i} on fire`, priority: priorities[i % 4] }),
      });
      await res.body.dump();
      if (res.statusCode !== 201) throw new Error(`create issue answered ${res.statusCode}`);
      out.push(performance.now() - dueAt);
    };

    // Warm-up, then the capacity: 10 clients back to back.
    let n = 0;
    const closedLoop = async (s: number) => {
      const until = performance.now() + s * 1000;
      const lat: number[] = [];
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (performance.now() < until) await create(n++, performance.now(), lat);
        }),
      );
      return lat;
    };
    await closedLoop(2);
    const t0 = performance.now();
    const [svc0, pg0] = [cpuMsOf(child.pid!), postgresCpuMs()];
    const capacityLat = await closedLoop(seconds);
    const capacity = capacityLat.length / ((performance.now() - t0) / 1000);
    // Where the CPU of a create goes (the machine's cores are shared by the service, PostgreSQL and this client).
    const svcMs = (cpuMsOf(child.pid!) - svc0) / capacityLat.length;
    const pgMs = (postgresCpuMs() - pg0) / capacityLat.length;

    // 80 % of it on a fixed schedule.
    const rate = capacity * 0.8;
    const soakLat: number[] = [];
    const started = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < Math.floor(rate * soakSeconds); i++) {
      const dueAt = started + (i * 1000) / rate;
      const wait = dueAt - performance.now();
      if (wait > 0) await sleep(wait);
      inFlight.push(create(n++, dueAt, soakLat));
    }
    await Promise.all(inFlight);
    const achieved = soakLat.length / ((performance.now() - started) / 1000);

    // pgbench last, on the same server and database, while the service idles.
    const bench = pgbench(scratchUrl, seconds);
    const tps = 'tps' in bench ? bench.tps : null;
    const ratio = tps ? capacity / tps : null;
    const p99 = pct(soakLat, 99);
    const yes = (ok: boolean) => (ok ? 'yes' : 'no');
    return [
      `### POST create issue against pgbench (PostgreSQL${quick ? ', quick' : ''}; ${projects === 1 ? 'one project' : `creates spread over ${projects} projects`})`,
      '',
      `${CLIENTS} clients each; the workspace has a default SLA policy on a working-hours calendar and a webhook endpoint on every event (${receiver.received()} deliveries received).`,
      '',
      '| measure | value | reference | ratio | target | met |',
      '|---|---:|---:|---:|---|---|',
      `| POST create issue capacity (${seconds} s) | ${capacity.toFixed(0)} req/s (p50 ${pct(capacityLat, 50).toFixed(1)} ms, p99 ${pct(capacityLat, 99).toFixed(1)} ms) | ${tps ? `pgbench three-insert transaction ${tps.toFixed(0)} tps` : 'error' in bench ? bench.error : ''} | ${ratio ? ratio.toFixed(2) : ''} | >= 0.25 | ${ratio ? yes(ratio >= 0.25) : 'n/a'} |`,
      `| CPU per create during the capacity run: the service / PostgreSQL (all its processes) | ${svcMs.toFixed(2)} ms / ${pgMs.toFixed(2)} ms | | | (info) | |`,
      `| at 80 % of it for ${soakSeconds} s: ${rate.toFixed(0)} req/s (achieved ${achieved.toFixed(0)}) | p50 ${pct(soakLat, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms | | | p99 <= 50 ms | ${yes(p99 <= 50)} |`,
    ].join('\n');
  } finally {
    await openPool?.close();
    await service?.stop();
    await receiver.close();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error('needs DATABASE_URL (a PostgreSQL server where it may create and drop "<db>_createbench")');
    process.exit(2);
  }
  const at = process.argv.indexOf('--projects');
  benchCreateVsPgbench({ databaseUrl, quick: process.argv.includes('--quick'), projects: at > 0 ? Number(process.argv[at + 1]) : 1 }).then(
    (md) => console.log(md),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
