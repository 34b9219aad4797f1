/**
 * Database operations (contract 27), `npm run bench -- --database-ops [--quick]` (also alone:
 * `npx tsx bench/database-ops.ts [--quick]`); the real server as a child process (bench/server.ts, jobs off):
 * 1. The issue list (`?per_page=50`, a project of 10,000 issues; quick 3,000) through PgBouncer in transaction mode
 *    (`DATABASE_POOLER=transaction`: unnamed statements) against direct (named prepared statements), on a scratch
 *    database `<db>_bench_dbops` of DATABASE_URL's server: two servers side by side, autocannon (10 connections,
 *    warm-up, then interleaved rounds), requests/s, p50/p95, CPU per request; target pooled/direct >= 0.8.
 * 2. Serving again after a database restart: a cluster of its own (test/helpers/pg-cluster.ts), the service on it, a
 *    client polling GET /api/users/me/ every 10 ms; five fast restarts and one stop of 5 s. Measured from the moment
 *    the cluster's start()/restart() resolves (it accepts connections: a real SELECT 1) to the first 2xx after the
 *    outage; target <= 2 s each.
 * 3. A read-heavy mix (issue list, an issue's history, an SLA report, a timesheet) on the same cluster, the service on
 *    the primary alone against the service with one streaming replica (DATABASE_REPLICA_URLS): reads/s of each and the
 *    replica's share of the reads (`db_reads_total` of /metrics). Both on one machine: the routing's cost and share,
 *    not scale-out.
 * Everything it starts (clusters, PgBouncer, servers, the scratch database) is stopped or dropped at the end, also
 * after a failure; the clusters and PgBouncer also by the helpers' exit hooks.
 */
import { execSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { backendsCpu, cpuMsOf, cpuSince, type ServerChild, startServer } from './bench-server.js';
import { WORKLOGS_SQL } from './time-tracking.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { makeReplica, type PgCluster, startCluster } from '../test/helpers/pg-cluster.js';
import { startPgbouncer } from '../test/helpers/pgbouncer.js';
import type { Query } from './raw.js';
import { insertTrial, insertUserWithToken, insertWorkspace, seedWorkspace } from './seed.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const log = (...a: unknown[]) => console.error(...a);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]! : NaN;
};
const round1 = (v: number) => Math.round(v * 10) / 10;
/** Ratios cut, not rounded, to two decimals (0.798 is 0.79, never a "0.80" that missed 0.8). */
const f2 = (v: number) => (Math.floor(v * 100) / 100).toFixed(2);
const n0 = (v: number) => Math.round(v).toLocaleString('en');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

// ---- CPU of the processes around the server -----------------------------------------------------------------------

/** CPU (ms) of a cluster of our own: its postmaster and every child of it (backends, walsender/receiver, startup). */
function clusterCpu(cluster: PgCluster): Map<number, number> {
  const out = new Map<number, number>();
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return out;
  }
  out.set(postmaster, cpuMsOf(postmaster));
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) out.set(Number(pid), cpuMsOf(Number(pid)));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** CPU between two snapshots (processes of the second; one that exited meanwhile loses its share). */

/** The commit, and whether the server ran with uncommitted changes of src/ (tsx runs the working tree). */
function commitOf(): string {
  const git = (args: string) =>
    execSync(`git ${args}`, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  try {
    const changed = git('status --porcelain -- src').split('\n').filter(Boolean).length;
    return `${git('rev-parse --short HEAD')}${changed ? ` (+ ${changed} uncommitted changes in src/)` : ''}`;
  } catch {
    return '';
  }
}

// ---- load ---------------------------------------------------------------------------------------------------------

interface Sample {
  requests: number;
  seconds: number;
  latencies: number[];
  bad: number;
  serverCpuMs: number;
  /** CPU of the other processes that serve the requests (PgBouncer, PostgreSQL backends), by name. */
  cpu: Record<string, number>;
}

interface Side {
  name: string;
  server: ServerChild;
  /** CPU (ms, cumulative, per process) of the processes besides the server, read before and after each run. */
  meters: Record<string, () => Map<number, number>>;
}

/** GETs rotated over `paths`, 10 connections, for `seconds`; latencies from each response (autocannon has no p95). */
async function cannon(side: Side, token: string, paths: string[], seconds: number): Promise<Sample> {
  let n = 0;
  const latencies: number[] = [];
  const cpu0 = side.server.cpuMs();
  const meters0 = Object.fromEntries(Object.entries(side.meters).map(([k, f]) => [k, f()]));
  const result = await new Promise<autocannon.Result>((ok, fail) => {
    const instance = autocannon(
      {
        url: side.server.base,
        connections: 10,
        duration: seconds,
        headers: { authorization: `Bearer ${token}` },
        requests: [{ method: 'GET', setupRequest: (req: any) => ({ ...req, method: 'GET', path: paths[n++ % paths.length]! }) }],
      },
      (error, r) => (error ? fail(error) : ok(r)),
    );
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
  return {
    requests: result.requests.total,
    seconds: result.duration || seconds,
    latencies,
    bad: result.non2xx + result.errors + result.timeouts,
    serverCpuMs: side.server.cpuMs() - cpu0,
    cpu: Object.fromEntries(Object.entries(side.meters).map(([k, f]) => [k, cpuSince(meters0[k]!, f())])),
  };
}

interface Stats {
  rps: number;
  p50: number;
  p95: number;
  requests: number;
  bad: number;
  serverCpuUs: number;
  cpuUs: Record<string, number>;
}

function merge(xs: Sample[]): Stats {
  const requests = xs.reduce((a, x) => a + x.requests, 0);
  const latencies = xs.flatMap((x) => x.latencies);
  const per = (ms: number) => (requests ? Math.round((ms * 1000) / requests) : 0);
  const keys = Object.keys(xs[0]?.cpu ?? {});
  return {
    rps: Math.round(requests / xs.reduce((a, x) => a + x.seconds, 0)),
    p50: round1(quantile(latencies, 0.5)),
    p95: round1(quantile(latencies, 0.95)),
    requests,
    bad: xs.reduce((a, x) => a + x.bad, 0),
    serverCpuUs: per(xs.reduce((a, x) => a + x.serverCpuMs, 0)),
    cpuUs: Object.fromEntries(keys.map((k) => [k, per(xs.reduce((a, x) => a + x.cpu[k]!, 0))])),
  };
}

/**
 * Warm-up of each side, then interleaved rounds (A B C, then C B A: a change of background load hits every side
 * alike); quick: one round of 3 s a side; full: two rounds of 5 s (10 s a side).
 */
async function compare(sides: Side[], token: string, paths: string[], quick: boolean): Promise<Stats[]> {
  for (const side of sides) await cannon(side, token, paths, quick ? 1 : 2);
  const order = quick ? [sides] : [sides, [...sides].reverse()];
  const runs = new Map<Side, Sample[]>(sides.map((side) => [side, []]));
  for (const round of order) for (const side of round) runs.get(side)!.push(await cannon(side, token, paths, quick ? 3 : 5));
  return sides.map((side) => merge(runs.get(side)!));
}

async function get(base: string, token: string, path: string): Promise<unknown> {
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${path} -> ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

// ---- seeding ------------------------------------------------------------------------------------------------------

const queryOf =
  (pool: pg.Pool): Query =>
  async (text, values = []) => {
    const r = await pool.query(text, [...values]);
    return { rows: r.rows, rowCount: r.rowCount ?? 0 };
  };

/** History as the SLA module writes it: `created` for every issue, a move to its state for the others. */
const HISTORY_SQL = `
  INSERT INTO issue_history (id, workspace_id, issue_id, at, actor_id, kind, "from", "to")
  SELECT gen_random_uuid(), i.workspace_id, i.id, i.created_at, NULL::uuid, 'created', NULL::jsonb,
         jsonb_build_object('state_id', b.id, 'group', 'backlog', 'pauses_sla', false, 'priority', i.priority)
  FROM issues i JOIN states b ON b.project_id = i.project_id AND b."group" = 'backlog'
  WHERE i.project_id = $1
  UNION ALL
  SELECT gen_random_uuid(), i.workspace_id, i.id, i.updated_at, NULL::uuid, 'state',
         jsonb_build_object('state_id', b.id, 'group', 'backlog', 'pauses_sla', false),
         jsonb_build_object('state_id', i.state_id, 'group', i.state_group, 'pauses_sla', false)
  FROM issues i JOIN states b ON b.project_id = i.project_id AND b."group" = 'backlog'
  WHERE i.project_id = $1 AND i.state_group <> 'backlog'`;

/** The report outcomes as the tracker writes record them (migration 1040's backfill, with the working seconds). */
const OUTCOMES_SQL = `
  UPDATE sla_trackers
  SET response_outcome = CASE WHEN response_breach_at IS NOT NULL AND response_breach_at < now() THEN 'breached'
                              WHEN responded_at IS NOT NULL THEN 'met' END,
      response_outcome_at = CASE WHEN response_breach_at IS NOT NULL AND response_breach_at < now() THEN response_due_at
                                 WHEN responded_at IS NOT NULL THEN responded_at END,
      response_outcome_seconds = CASE WHEN responded_at IS NOT NULL THEN floor(extract(epoch FROM responded_at - created_at))::bigint END,
      resolution_outcome = CASE WHEN resolution_breach_at IS NOT NULL AND resolution_breach_at < now() THEN 'breached'
                                WHEN resolved_at IS NOT NULL THEN 'met' END,
      resolution_outcome_at = CASE WHEN resolution_breach_at IS NOT NULL AND resolution_breach_at < now() THEN resolution_due_at
                                   WHEN resolved_at IS NOT NULL THEN resolved_at END,
      resolution_outcome_seconds = CASE WHEN resolved_at IS NOT NULL THEN floor(extract(epoch FROM resolved_at - created_at))::bigint END
  WHERE workspace_id = $1 AND policy_id IS NOT NULL`;

interface Seeded {
  token: string;
  slug: string;
  projectId: string;
  issueIds: string[];
}

/** A workspace with one project of `issues` issues; `reports`: trackers with outcomes, history and worklogs too. */
async function seed(q: Query, issues: number, reports: { worklogs: number } | null): Promise<Seeded> {
  const now = new Date();
  const owner = await insertUserWithToken(q, 'dbops-owner@bench.example', now);
  const slug = 'dbops';
  const ws = await insertWorkspace(q, owner.userId, slug, now);
  await insertTrial(q, ws, now);
  const [project] = await seedWorkspace(q, {
    workspaceId: ws,
    ownerId: owner.userId,
    projects: [{ identifier: 'OPS', issues }],
    comments: 0,
    trackers: reports !== null,
    customValues: false,
    members: 4,
    now,
    label: `database ops ${n0(issues)} issues`,
    labels: 10,
  });
  const projectId = project!.id;
  if (reports) {
    await q(OUTCOMES_SQL, [ws]);
    await q(HISTORY_SQL, [projectId]);
    const members = (await q(`SELECT user_id FROM workspace_members WHERE workspace_id = $1 ORDER BY user_id`, [ws])).rows.map((r) => r.user_id as string);
    const step = `${(90 * 86_400) / reports.worklogs} seconds`;
    await q(WORKLOGS_SQL, [ws, projectId, members, now, 1, reports.worklogs, step, issues]);
    await q('VACUUM (ANALYZE) sla_trackers');
    await q('VACUUM (ANALYZE) issue_history');
    await q('VACUUM (ANALYZE) worklogs');
  }
  await q('VACUUM (ANALYZE) issues');
  const issueIds = (await q(`SELECT id FROM issues WHERE project_id = $1 ORDER BY hashint4(sequence_id) LIMIT 100`, [projectId])).rows.map(
    (r) => r.id as string,
  );
  return { token: owner.token, slug, projectId, issueIds };
}

async function migrate(databaseUrl: string): Promise<void> {
  const handle = await openDatabase({ databaseUrl, dataDir: '' });
  try {
    await migrateToLatest(handle.db);
  } finally {
    await handle.close();
  }
}

// ---- results ------------------------------------------------------------------------------------------------------

interface Restart {
  how: string;
  /** Statuses of the failed polls (0: no answer). */
  seen: string;
  failed: number;
  /** From the first failed poll to the first 2xx after it, as the client saw the outage. */
  outageMs: number;
  /** From the cluster's start()/restart() resolving to the end of the first 2xx after the outage. */
  recoveryMs: number;
  /** From the postmaster's log line "ready to accept connections" (ms timestamps) to the same 2xx; null if not found. */
  fromLogMs: number | null;
  /** Failed polls after that first 2xx (it should stay up). */
  failedAfter: number;
}

interface Results {
  date: string;
  commit: string;
  quick: boolean;
  loadStart: string;
  loadEnd?: string;
  seconds?: number;
  pooler?: { issues: number; direct: Stats; pooled: Stats; unnamed: Stats; ratio: number; met: boolean; readyz: string };
  restarts?: { issues: number; runs: Restart[]; maxMs: number; maxFromLogMs: number; met: boolean };
  replica?: {
    issues: number;
    worklogs: number;
    primary: Stats;
    replica: Stats;
    share: number;
    /** Reads counted on the replica, and in all, by db_reads_total during the runs (warm-up included). */
    reads: [number, number];
    /** Rows of the first answer of each kind: list, history, SLA report, timesheet. */
    sizes: number[];
    ratio: number;
    lag: string;
  };
}

// ---- 1. PgBouncer against direct ----------------------------------------------------------------------------------

async function benchPooler(databaseUrl: string, quick: boolean, defer: (f: () => Promise<unknown>) => void): Promise<NonNullable<Results['pooler']>> {
  const url = new URL(databaseUrl);
  const name = `${url.pathname.slice(1) || 'postgres'}_bench_dbops`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  defer(() => admin.end());
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  defer(() => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  url.pathname = `/${name}`;
  const direct = url.toString();
  const issues = quick ? 3_000 : 10_000;
  log(`Database operations 1: the issue list through PgBouncer against direct (scratch database ${name})`);
  await migrate(direct);
  const pool = new pg.Pool({ connectionString: direct, max: 2 });
  let seeded: Seeded;
  try {
    seeded = await seed(queryOf(pool), issues, null);
  } finally {
    await pool.end();
  }
  const bouncer = await startPgbouncer({ host: url.hostname, port: Number(url.port || 5432), poolMode: 'transaction', poolSize: 10 });
  defer(() => bouncer.stop());
  const bouncerPid = Number(readFileSync(join(bouncer.dir, 'pgbouncer.pid'), 'utf8').trim());
  const [directServer, pooledServer, unnamedServer] = await Promise.all([
    startServer(direct),
    startServer(bouncer.url(name), false, { DATABASE_POOLER: 'transaction' }),
    // The third, for reference: direct, but with the pooler's unnamed statements (what the statements cost alone).
    startServer(direct, false, { DATABASE_POOLER: 'transaction' }),
  ]);
  const servers = [directServer, pooledServer, unnamedServer];
  for (const s of servers) defer(() => s.stop());
  const path = `/api/workspaces/${seeded.slug}/projects/${seeded.projectId}/issues/?per_page=50`;
  for (const s of servers) {
    const page = (await get(s.base, seeded.token, path)) as { results: unknown[]; total: number };
    if (page.results.length !== 50 || page.total !== issues) throw new Error(`the issue list answered ${page.results.length} of ${page.total}`);
  }
  const pgCpu = () => backendsCpu(name);
  const [d, p, u] = await compare(
    [
      { name: 'direct', server: directServer, meters: { postgres: pgCpu } },
      { name: 'pooled', server: pooledServer, meters: { postgres: pgCpu, pgbouncer: () => new Map([[bouncerPid, cpuMsOf(bouncerPid)]]) } },
      { name: 'unnamed', server: unnamedServer, meters: { postgres: pgCpu } },
    ],
    seeded.token,
    [path],
    quick,
  );
  // Misconfiguration shows as /readyz 503 (contract 27.2): all must still be ready after the load.
  const readyz = (await Promise.all(servers.map((s) => fetch(`${s.base}/readyz`).then((r) => r.status)))).join(' / ');
  const ratio = p!.rps / d!.rps;
  log(
    `  direct ${d!.rps} req/s p50 ${d!.p50} p95 ${d!.p95} | pooled ${p!.rps} req/s p50 ${p!.p50} p95 ${p!.p95} | ratio ${f2(ratio)} | ` +
      `direct unnamed ${u!.rps} req/s | /readyz ${readyz}`,
  );
  return { issues, direct: d!, pooled: p!, unnamed: u!, ratio, met: ratio >= 0.8 && !d!.bad && !p!.bad && /^200( \/ 200)*$/.test(readyz), readyz };
}

// ---- 2. restarts --------------------------------------------------------------------------------------------------

interface Poll {
  start: number;
  end: number;
  /** Date.now() at the end (the server log's clock). */
  endWall: number;
  status: number;
}

/** GET `path` every 10 ms (10 ms after each answer), each answer recorded. */
function poller(base: string, token: string, path: string) {
  const polls: Poll[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const start = performance.now();
      let status = 0;
      try {
        const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5_000) });
        status = res.status;
        await res.arrayBuffer();
      } catch {
        /* no answer: 0 */
      }
      polls.push({ start, end: performance.now(), endWall: Date.now(), status });
      await sleep(10);
    }
  })();
  return {
    polls,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

const ok = (p: Poll) => p.status >= 200 && p.status < 300;

async function measureRestart(cluster: PgCluster, polls: Poll[], how: 'fast' | 'stop5'): Promise<Restart> {
  const began = performance.now();
  const beganWall = Date.now();
  if (how === 'fast') await cluster.restart({ mode: 'fast' });
  else {
    await cluster.stop({ mode: 'fast' });
    await sleep(5_000);
    await cluster.start();
  }
  const accepting = performance.now();
  // The first 2xx of a request started after the database accepts connections comes after the outage in any case.
  const deadline = accepting + 30_000;
  while (!polls.some((p) => p.start >= accepting && ok(p))) {
    if (performance.now() > deadline) throw new Error(`no 2xx within 30 s of the database accepting connections (${how})`);
    await sleep(5);
  }
  await sleep(500); // a little more of the steady state after it, for failedAfter
  const since = polls.filter((p) => p.start >= began);
  const firstFail = since.find((p) => !ok(p));
  const recovered = since.find((p) => ok(p) && (!firstFail || p.start > firstFail.start))!;
  const failed = since.filter((p) => !ok(p) && p.start < recovered.start);
  const statuses = [...new Set(failed.map((p) => p.status))].sort((a, b) => a - b);
  // The postmaster's own instant (log_line_prefix %m, UTC): the last "ready" line since this restart began.
  const ready = [
    ...(await cluster.log()).matchAll(/^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3}) UTC \[\d+\] LOG: +database system is ready to accept connections/gm),
  ]
    .map((m) => Date.parse(`${m[1]}T${m[2]}Z`))
    .filter((t) => t >= beganWall - 5)
    .at(-1);
  return {
    how: how === 'fast' ? 'restart (fast stop, start)' : 'fast stop, 5 s down, start',
    seen: failed.length ? statuses.map((s) => (s === 0 ? 'no answer' : String(s))).join(', ') : 'no failure seen',
    failed: failed.length,
    outageMs: firstFail ? Math.round(recovered.end - firstFail.start) : 0,
    recoveryMs: Math.round(recovered.end - accepting),
    fromLogMs: ready === undefined ? null : Math.round(recovered.endWall - ready),
    failedAfter: since.filter((p) => !ok(p) && p.start > recovered.start).length,
  };
}

// ---- 3. replica -----------------------------------------------------------------------------------------------------

async function metricsOf(base: string): Promise<string> {
  return (await fetch(`${base}/metrics`)).text();
}
const readsOf = (text: string, target: 'primary' | 'replica') =>
  Number(new RegExp(`^db_reads_total\\{target="${target}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);

// ---- the run --------------------------------------------------------------------------------------------------------

export async function runDatabaseOps({ databaseUrl, quick }: { databaseUrl: string; quick: boolean }): Promise<string> {
  const started = Date.now();
  const data: Results = { date: new Date().toISOString(), commit: commitOf(), quick, loadStart: load() };
  const cleanups: (() => Promise<unknown>)[] = [];
  const defer = (f: () => Promise<unknown>) => cleanups.push(f);
  try {
    data.pooler = await benchPooler(databaseUrl, quick, defer);
    // Part 1's servers, PgBouncer and scratch database go before the cluster of parts 2 and 3 starts.
    while (cleanups.length) await cleanups.pop()!().catch((error: unknown) => log('  cleanup:', error));

    const issues = quick ? 3_000 : 10_000;
    const worklogs = quick ? 10_000 : 50_000;
    log(`Database operations 2: serving again after a restart (a cluster of its own, ${n0(issues)} issues)`);
    const cluster = await startCluster({ settings: { log_timezone: 'UTC', log_line_prefix: '%m [%p] ' } });
    defer(() => cluster.destroy());
    const db = 'wis_dbops';
    await cluster.query(`CREATE DATABASE ${db}`);
    await migrate(cluster.url(db));
    const pool = new pg.Pool({ connectionString: cluster.url(db), max: 2 });
    let seeded: Seeded;
    try {
      seeded = await seed(queryOf(pool), issues, { worklogs });
    } finally {
      await pool.end();
    }
    // LOG_LEVEL fatal: each restart's "database unavailable" line (an error) would go into the markdown on stdout.
    const primaryServer = await startServer(cluster.url(db), false, { LOG_LEVEL: 'fatal' });
    defer(() => primaryServer.stop());
    await get(primaryServer.base, seeded.token, '/api/users/me/');
    const poll = poller(primaryServer.base, seeded.token, '/api/users/me/');
    defer(() => poll.stop());
    await sleep(300);
    const runs: Restart[] = [];
    for (const how of ['fast', 'fast', 'fast', 'fast', 'fast', 'stop5'] as const) {
      const r = await measureRestart(cluster, poll.polls, how);
      runs.push(r);
      log(
        `  ${r.how}: ${r.failed} failed polls (${r.seen}), outage ${r.outageMs} ms, accepting -> 2xx ${r.recoveryMs} ms (from the log's ready line ${r.fromLogMs} ms), failed after ${r.failedAfter}`,
      );
      await sleep(500);
    }
    await poll.stop();
    const maxMs = Math.max(...runs.map((r) => r.recoveryMs));
    const maxFromLogMs = Math.max(...runs.map((r) => r.fromLogMs ?? Number.NaN));
    data.restarts = { issues, runs, maxMs, maxFromLogMs, met: maxMs <= 2_000 && !(maxFromLogMs > 2_000) && runs.every((r) => r.failedAfter === 0) };

    log('Database operations 3: a read-heavy mix, primary alone against one streaming replica (same cluster, same machine)');
    const replica = await makeReplica(cluster);
    defer(() => replica.destroy());
    const replicaServer = await startServer(cluster.url(db), false, { DATABASE_REPLICA_URLS: replica.url(db), REPLICA_MAX_LAG_S: '5' });
    defer(() => replicaServer.stop());
    // The replica is used once the monitor has seen it caught up (every 500 ms).
    const healthyBy = Date.now() + 20_000;
    let lag = '';
    for (;;) {
      lag = /^db_replica_lag_seconds\{replica="[^"]+"\} (\S+)$/m.exec(await metricsOf(replicaServer.base))?.[1] ?? '';
      if (lag === '0') break;
      if (Date.now() > healthyBy) throw new Error(`the replica did not turn healthy within 20 s (db_replica_lag_seconds ${lag || 'absent'})`);
      await sleep(200);
    }
    const today = new Date();
    const from = new Date(today.getTime() - 29 * 86_400_000).toISOString().slice(0, 10);
    const to = today.toISOString().slice(0, 10);
    const W = `/api/workspaces/${seeded.slug}`;
    let mixSizes: number[] = [];
    const paths: string[] = [];
    for (let i = 0; i < seeded.issueIds.length; i++) {
      paths.push(
        `${W}/projects/${seeded.projectId}/issues/?per_page=50`,
        `${W}/projects/${seeded.projectId}/issues/${seeded.issueIds[i]}/history/`,
        `${W}/sla-reports/?from=${from}&to=${to}&group_by=priority`,
        `${W}/timesheet/?from=${from}&to=${to}&group_by=user`,
      );
    }
    // Each kind answers, and with content (an empty report or timesheet would measure nothing).
    for (const s of [primaryServer, replicaServer]) {
      const answers = (await Promise.all(paths.slice(0, 4).map((p) => get(s.base, seeded.token, p)))) as { results?: unknown[]; rows?: unknown[] }[];
      const sizes = answers.map((x) => (x.results ?? x.rows ?? []).length);
      if (sizes.some((n) => n === 0)) throw new Error(`the mix's reads answered ${sizes.join(', ')} rows (list, history, SLA report, timesheet)`);
      if (s === primaryServer) mixSizes = sizes;
    }
    const primarySide: Side = { name: 'primary', server: primaryServer, meters: { primary: () => clusterCpu(cluster) } };
    const replicaSide: Side = {
      name: 'replica',
      server: replicaServer,
      meters: { primary: () => clusterCpu(cluster), replica: () => clusterCpu(replica) },
    };
    const m0 = await metricsOf(replicaServer.base);
    const [p, r] = (await compare([primarySide, replicaSide], seeded.token, paths, quick)) as [Stats, Stats];
    const m1 = await metricsOf(replicaServer.base);
    // The warm-up of the replica side is inside the window too: the share counts every read of the run.
    const toReplica = readsOf(m1, 'replica') - readsOf(m0, 'replica');
    const toPrimary = readsOf(m1, 'primary') - readsOf(m0, 'primary');
    const share = toReplica / Math.max(1, toReplica + toPrimary);
    data.replica = { issues, worklogs, primary: p, replica: r, share, reads: [toReplica, toReplica + toPrimary], sizes: mixSizes, ratio: r.rps / p.rps, lag };
    log(
      `  primary alone ${p.rps} reads/s p50 ${p.p50} p95 ${p.p95} | with a replica ${r.rps} reads/s p50 ${r.p50} p95 ${r.p95} | replica share ${(100 * share).toFixed(1)} %`,
    );
  } finally {
    while (cleanups.length) await cleanups.pop()!().catch((error: unknown) => log('  cleanup:', error));
  }
  data.loadEnd = load();
  data.seconds = Math.round((Date.now() - started) / 1000);
  return render(data);
}

export function render(d: Results): string {
  const yes = (met: boolean) => (met ? 'met' : 'not met');
  const out = [
    '## Database operations (PostgreSQL; contract 27)',
    '',
    `${d.date} · ${d.quick ? 'quick' : 'full'} · commit ${d.commit} · ${d.seconds ?? '?'} s · load average at start ${d.loadStart}, at end ${d.loadEnd ?? ''} (2 CPUs) · ` +
      `\`npm run bench -- --database-ops${d.quick ? ' --quick' : ''}\`; the real server as a child process (bench/server.ts), jobs off; ` +
      `autocannon with 10 connections, a warm-up of ${d.quick ? 1 : 2} s a side, then ${d.quick ? 'one run of 3 s a side' : 'interleaved runs of 5 s, A B (C) then (C) B A, 10 s a side'}; p50/p95 over every response.`,
    '',
  ];
  if (d.pooler) {
    const x = d.pooler;
    const row = (name: string, s: Stats) =>
      `| ${name} | ${n0(s.rps)} | ${s.p50} | ${s.p95} | ${s.serverCpuUs} | ${s.cpuUs.pgbouncer ?? '-'} | ${s.cpuUs.postgres} | ${s.bad} |`;
    out.push(
      `### The issue list through PgBouncer (transaction mode) against direct`,
      '',
      `\`GET .../projects/{id}/issues/?per_page=50\` in a project of ${n0(x.issues)} issues, a scratch database of DATABASE_URL's server; three servers side by side: direct (named prepared statements, \`DATABASE_POOLER\` unset), through Debian's PgBouncer in transaction mode (default_pool_size 10, the service's pool size) with \`DATABASE_POOLER=transaction\` (every statement unnamed), and for reference direct with \`DATABASE_POOLER=transaction\` (unnamed statements without PgBouncer). PgBouncer runs on the same 2 CPUs as the server, PostgreSQL and autocannon.`,
      '',
      '| path | req/s | p50 ms | p95 ms | server CPU µs/req | PgBouncer CPU µs/req | PostgreSQL CPU µs/req | non-2xx / errors |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      row('direct, named statements', x.direct),
      row('PgBouncer, unnamed statements', x.pooled),
      row('(reference) direct, unnamed statements', x.unnamed),
      '',
      `Pooled / direct: ${f2(x.ratio)} (target >= 0.8): ${yes(x.met)}. Direct with unnamed statements / direct with named: ${f2(x.unnamed.rps / x.direct.rps)}; ` +
        `pooled / direct with unnamed: ${f2(x.pooled.rps / x.unnamed.rps)} (what PgBouncer's hop costs alone). /readyz after the load (direct / pooled / reference): ${x.readyz}.`,
      '',
    );
  }
  if (d.restarts) {
    const x = d.restarts;
    out.push(
      '### Serving again after a database restart',
      '',
      `A cluster of its own (initdb in a temporary folder, ${n0(x.issues)} issues), the service on it; a client polls \`GET /api/users/me/\` (authenticated: the token is looked up in the database) every 10 ms. "Accepting" is the moment the harness's start()/restart() resolves (the measure of the target): \`pg_ctl start -w\` returned (it looks every 100 ms) and a new TCP connection answered SELECT 1, so it comes a little after the postmaster is ready, and a figure below 0 means the service answered before the harness's own check returned. The next column measures from the postmaster's own log line "database system is ready to accept connections" (millisecond timestamps, same clock). Polls: one at a time, 10 ms apart; the outage column runs from the first failed poll to the first 2xx.`,
      '',
      '| # | what | failed polls (answers) | outage seen by the client ms | accepting (start() resolved) -> first 2xx ms | "ready to accept connections" in the server log -> first 2xx ms | failed polls after it |',
      '|---:|---|---|---:|---:|---:|---:|',
      ...x.runs.map(
        (r, i) => `| ${i + 1} | ${r.how} | ${r.failed} (${r.seen}) | ${n0(r.outageMs)} | ${r.recoveryMs} | ${r.fromLogMs ?? 'n/a'} | ${r.failedAfter} |`,
      ),
      '',
      `Max accepting -> first 2xx: ${x.maxMs} ms; from the log's ready line: ${Number.isNaN(x.maxFromLogMs) ? 'n/a' : `${x.maxFromLogMs} ms`} (target <= 2000 ms, and no failure after the first 2xx): ${yes(x.met)}.`,
      '',
    );
  }
  if (d.replica) {
    const x = d.replica;
    const row = (name: string, s: Stats, share: string) =>
      `| ${name} | ${n0(s.rps)} | ${s.p50} | ${s.p95} | ${s.serverCpuUs} | ${s.cpuUs.primary} | ${s.cpuUs.replica ?? '-'} | ${share} | ${s.bad} |`;
    out.push(
      '### A read-heavy mix: the primary alone against one streaming replica',
      '',
      `The same cluster after the restarts (${n0(x.issues)} issues with SLA trackers and outcomes, history, ${n0(x.worklogs)} worklogs over 90 days), two servers side by side: one on the primary alone, one with \`DATABASE_REPLICA_URLS\` naming a hot standby of it made by pg_basebackup (\`REPLICA_MAX_LAG_S=5\`; it waited for \`db_replica_lag_seconds\` ${x.lag}). The mix, in turn: the issue list (\`?per_page=50\`), an issue's history (100 issues in turn), the SLA report by priority and the timesheet by user, both over the last 30 days (rows of the first answers: ${x.sizes.join(', ')}). Only reads: no write sends a client back to the primary.`,
      '',
      '| setup | reads/s | p50 ms | p95 ms | server CPU µs/read | primary cluster CPU µs/read | replica cluster CPU µs/read | reads on the replica (db_reads_total) | non-2xx / errors |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      row('primary alone', x.primary, '-'),
      row('primary + 1 replica', x.replica, `${(100 * x.share).toFixed(1)} % (${n0(x.reads[0])} of ${n0(x.reads[1])})`),
      '',
      `With the replica / alone: ${f2(x.ratio)}. On one 2-core machine a replica cannot add CPU (the primary, the replica, the servers and autocannon share the same two cores), so this measures the routing's overhead and the replica's share of the reads, not scale-out; the authentication of each request (the token lookup) stays on the primary, which is why the primary still works with the replica in use.`,
      '',
    );
  }
  return out.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error('DATABASE_URL is required (a PostgreSQL server on which a scratch database may be created)');
    process.exit(2);
  }
  runDatabaseOps({ databaseUrl, quick: process.argv.includes('--quick') }).then(
    (markdown) => console.log(markdown),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
