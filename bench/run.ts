/**
 * `npm run bench`: throughput of the hot endpoints against their raw-SQL twins, scale curves, peak RSS.
 *
 *   DATABASE_URL=postgres://user@host:5432/db npm run bench [-- --quick] [-- --pglite | --no-pglite] [-- --keep]
 *
 * Creates a scratch database `<db>_bench` on the DATABASE_URL server (dropped at the end unless --keep), starts the
 * real server as a child process (node --import tsx bench/server.ts: src/server.ts plus the bench-only minimal routes), seeds by SQL,
 * runs autocannon from this process, times the scale curves, and writes bench/results/latest.{md,json} and scale.svg.
 * See docs/decisions/bench.md for what is measured and how to read it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { benchBaselinesScale } from './baselines-scale.js';
import { benchForecast } from './forecast.js';
import { benchSlaScale } from './sla-scale.js';
import { benchSlaSimulation } from './sla-simulation.js';
import { benchSlaReports } from './sla-reports.js';
import { benchSecurityHeaders } from './security-headers.js';
import { benchInvoicePdf } from './invoice-pdf.js';
import { benchRenewals } from './renewals.js';
import { benchTimeTracking } from './time-tracking.js';
import { benchStartup } from './startup.js';
import { benchWebhooks } from './webhooks.js';
import { benchCreateVsPgbench } from './create-vs-pgbench.js';
import { runWorkItemCore, writeResults as writeWorkItemCore } from './work-item-core.js';
import { runDatabaseOps } from './database-ops.js';
import { runSearchBench } from './search.js';
import { runAttachmentsBench } from './attachments.js';
import { runNotificationsBench } from './notifications.js';
import { runConsoleBench } from './console.js';
import { runMailBench } from './mail.js';
import { renderMixedLoad, runMixedLoad } from './mixed-load.js';
import pg from 'pg';
import { type Db, openDatabase, openPglite } from '../src/db/database.js';
import { slaRepository } from '../src/modules/sla/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { DEVIATION_SQL } from './minimal-routes.js';
import { type Query, type RawExec, rawKysely, rawPostgres } from './raw.js';
import { churn, insertBaseline, insertTrial, insertUserWithToken, insertWorkspace, seedWorkspace, type SeededProject } from './seed.js';
import { chartSvg } from './svg.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const RESULTS = join(ROOT, 'bench', 'results');

// ---- arguments ------------------------------------------------------------------------------------------------------

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
};
const list = (name: string, fallback: number[]) =>
  opt(name)
    ?.split(',')
    .map((v) => Number(v.trim().replace(/k$/i, '000').replace(/m$/i, '000000')))
    .filter((n) => Number.isFinite(n) && n > 0) ?? fallback;

if (flag('help') || flag('h')) {
  console.log(`npm run bench [-- options]
  --quick                 small sizes, short runs (under two minutes; smoke use)
  --pglite | --no-pglite  add / skip the second, smaller run on PGlite (default: on for full runs, off for --quick)
  --issues N              issues in the throughput project (default 20000, quick 3000)
  --trackers a,b,c        workspace sizes for the sla-breached curve (default 10k,100k,1M; quick 2k,10k,40k)
  --baseline-issues a,b,c project sizes for the baseline curve (default 1k,10k,100k; quick 1k,5k,20k)
  --duration S            seconds per autocannon run (default 10, quick 3)
  --connections N         autocannon connections (default 10)
  --only a,b              run only these throughput endpoints (ids as in the table)
  --no-scale              skip the scale curves
  --keep                  keep the scratch database
  --render                re-render latest.md and scale.svg from latest.json (no run)
  --side real|minimal     load only one side (with --profile, to see where the real endpoint's time goes)
  --profile               write a V8 CPU profile of the server to $TMPDIR/wis-bench-profiles/
  --work-item-core        run only the work-item core benchmark (bench/work-item-core.ts: bulk edit, label list at
                          1M issues, create with labels) and write its section of latest.md (not with --quick or
                          --wic-only); with --keep, --profile, --wic-only bulk|labels|create
  --database-ops          run only the database-operations benchmark (bench/database-ops.ts: the issue list through
                          PgBouncer against direct, serving again after restarts, reads with a replica); writes
                          bench/results/database-ops.md (not with --quick)
  --attachments           run only the attachments benchmark (bench/attachments.ts: a 1 GB upload to local storage
                          and S3 with the service's RSS, 100 concurrent uploads against 50 MiB of room, downloads
                          against a plain file server); writes bench/results/attachments.md; --no-s3 skips S3
  --notifications         run only the notifications benchmark (bench/notifications.ts: PATCH with 20 watchers against
                          the commit before, in git worktrees; unread count and inbox of 100,000 notifications);
                          writes bench/results/notifications.md
  --console               run only the console benchmark (bench/console.ts: the board of a 2,000-issue project in
                          Chromium, cold loads to the last column rendered; PATCH state moves; PGlite); writes
                          bench/results/console.md (not with --quick)
  --mail                  run only the mail benchmark (bench/mail.ts: 10,000 queued mails delivered to a local SMTP
                          server, each once, on PGlite, and on PostgreSQL with one and two instances when DATABASE_URL
                          is set); writes bench/results/mail.md
  --search                run only the search benchmark (bench/search.ts: search, fuzzy fallback, similar issues and
                          "my issues" at 1M issues and 2M comments, the raw-SQL twin, PGlite at 100k, create issue
                          and comment with the search triggers against without); writes bench/results/search.md
Requires DATABASE_URL (a PostgreSQL server on which a scratch database "<db>_bench" may be created), unless --pglite-only.`);
  process.exit(0);
}

const quick = flag('quick');
const cfg = {
  quick,
  issues: Number(opt('issues') ?? (quick ? 3000 : 20000)),
  trackers: list('trackers', quick ? [2000, 10000, 40000] : [10000, 100000, 1000000]),
  baselineIssues: list('baseline-issues', quick ? [1000, 5000, 20000] : [1000, 10000, 100000]),
  duration: Number(opt('duration') ?? (quick ? 3 : 10)),
  warmup: quick ? 1 : 2,
  rounds: quick ? 1 : 2,
  connections: Number(opt('connections') ?? 10),
  reps: quick ? 3 : 5,
  pglite: flag('pglite-only') || (flag('pglite') ? true : flag('no-pglite') ? false : !quick),
  pgliteOnly: flag('pglite-only'),
  pgliteIssues: quick ? 1000 : 5000,
  scale: !flag('no-scale'),
  keep: flag('keep'),
  profile: flag('profile'),
  side: opt('side') as 'real' | 'minimal' | undefined,
  only: opt('only')?.split(','),
};

const log = (...a: unknown[]) => console.error(...a);

// ---- the server under test --------------------------------------------------------------------------------------------

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

interface Server {
  base: string;
  child: ChildProcess;
  memory(): { rssKb: number; hwmKb: number };
  /** user + system CPU time of the server process so far, ms (from /proc/<pid>/stat; 10 ms resolution). */
  cpuMs(): number;
  stop(): Promise<void>;
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const profileDir = join(tmpdir(), 'wis-bench-profiles');
  if (cfg.profile) log(`  CPU profile of the server: ${profileDir}/ (written when it stops)`);
  const profile = cfg.profile ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'bench/server.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      JOB_INTERVAL_MS: '0',
      RATE_LIMIT_SIGNUPS: '1000',
      // Load from one token is the point here; the limit has its own bench (bench/rate-limit.ts).
      API_RATE_LIMIT: '0',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('the server did not come up within 60 s');
    await sleep(200);
  }
  const memory = () => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
    } catch {
      return { rssKb: 0, hwmKb: 0 };
    }
  };
  const cpuMs = () => {
    try {
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 1/100 s ticks
    } catch {
      return 0;
    }
  };
  return {
    base,
    child,
    memory,
    cpuMs,
    stop: () =>
      new Promise<void>((ok) => {
        if (child.exitCode !== null) return ok();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          ok();
        });
        child.kill('SIGTERM');
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function api<T = any>(base: string, method: string, path: string, token: string | null, body?: unknown): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

// ---- throughput ----------------------------------------------------------------------------------------------------

interface Endpoint {
  id: string;
  label: string;
  kind: 'read' | 'write';
  method: 'GET' | 'POST' | 'PUT';
  /** Paths of the real endpoint (rotated); the twin is the same path under /bench/min instead of /api. */
  paths: string[];
  body?: (n: number) => unknown;
  status: number;
  skipped?: string;
}

interface RunStats {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** CPU time (user + system) of the server process per request, in microseconds: insensitive to other load. */
  cpuUsPerReq: number;
}

type Sample = Omit<RunStats, 'cpuUsPerReq'> & { seconds: number; cpuMs: number };

/** Merges interleaved rounds: total requests over total time; p50/p99 the median of the rounds'. */
function merge(samples: Sample[]): RunStats {
  const requests = samples.reduce((a, x) => a + x.requests, 0);
  const seconds = samples.reduce((a, x) => a + x.seconds, 0);
  const cpuMs = samples.reduce((a, x) => a + x.cpuMs, 0);
  return {
    rps: requests / seconds,
    p50: median(samples.map((x) => x.p50)),
    p99: median(samples.map((x) => x.p99)),
    requests,
    non2xx: samples.reduce((a, x) => a + x.non2xx, 0),
    errors: samples.reduce((a, x) => a + x.errors, 0),
    cpuUsPerReq: requests ? Math.round((cpuMs * 1000) / requests) : 0,
  };
}

async function cannon(server: Server, token: string, e: Endpoint, twin: boolean, seconds: number): Promise<Sample> {
  const base = server.base;
  const cpu0 = server.cpuMs();
  let n = 0;
  const paths = twin ? e.paths.map((p) => p.replace(/^\/api\//, '/bench/min/')) : e.paths;
  const result = await autocannon({
    url: base,
    connections: cfg.connections,
    duration: seconds,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    requests: [
      {
        method: e.method,
        setupRequest: (req: any) => {
          const i = n++;
          return { ...req, method: e.method, path: paths[i % paths.length]!, ...(e.body && { body: JSON.stringify(e.body(i)) }) };
        },
      },
    ],
  });
  return {
    rps: result.requests.total / (result.duration || seconds),
    seconds: result.duration || seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuMs: server.cpuMs() - cpu0,
  };
}

/** One request of each kind first, so a broken endpoint is reported as such rather than measured. */
async function probe(base: string, token: string, e: Endpoint, twin: boolean): Promise<string | null> {
  const path = twin ? e.paths[0]!.replace(/^\/api\//, '/bench/min/') : e.paths[0]!;
  const res = await fetch(base + path, {
    method: e.method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: e.body ? JSON.stringify(e.body(0)) : undefined,
  });
  const text = await res.text();
  return res.status === e.status ? null : `${res.status} ${text.slice(0, 200)}`;
}

interface ThroughputRow {
  id: string;
  label: string;
  kind: 'read' | 'write';
  target: number;
  real?: RunStats;
  minimal?: RunStats;
  ratio?: number;
  met?: boolean;
  note?: string;
}

async function throughput(server: Server, token: string, endpoints: Endpoint[]) {
  const rows: ThroughputRow[] = [];
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, server.memory().rssKb)), 100);
  const rssBefore = server.memory().rssKb;
  for (const e of endpoints) {
    const target = e.kind === 'read' ? 0.8 : 0.7;
    const row: ThroughputRow = { id: e.id, label: e.label, kind: e.kind, target };
    rows.push(row);
    if (cfg.only && !cfg.only.includes(e.id)) {
      row.note = 'not selected (--only)';
      continue;
    }
    if (e.skipped) {
      row.note = e.skipped;
      log(`  ${e.id}: ${e.skipped}`);
      continue;
    }
    const bad = (await probe(server.base, token, e, false)) ?? (await probe(server.base, token, e, true));
    if (bad) {
      row.note = `skipped (module not ready: probe answered ${bad})`;
      log(`  ${e.id}: ${row.note}`);
      continue;
    }
    if (cfg.side !== 'minimal') await cannon(server, token, e, false, cfg.warmup);
    if (cfg.side !== 'real') await cannon(server, token, e, true, cfg.warmup);
    // Interleaved rounds (real, minimal, minimal, real, ...) so that a change of background load hits both sides.
    const real: Sample[] = [];
    const minimal: Sample[] = [];
    for (let round = 0; round < cfg.rounds; round++) {
      const order = round % 2 === 0 ? [false, true] : [true, false];
      for (const twin of order)
        if (cfg.side !== (twin ? 'real' : 'minimal')) (twin ? minimal : real).push(await cannon(server, token, e, twin, cfg.duration / cfg.rounds));
    }
    if (!real.length || !minimal.length) {
      row.note = `one side only (--side ${cfg.side}): ${f0(merge([...real, ...minimal]).rps)} req/s, CPU ${merge([...real, ...minimal]).cpuUsPerReq} µs/req`;
      log(`  ${e.id}: ${row.note}`);
      continue;
    }
    row.real = merge(real);
    row.minimal = merge(minimal);
    row.ratio = row.real.rps / row.minimal.rps;
    row.met = row.ratio >= target;
    if (row.real.non2xx || row.minimal.non2xx || row.real.errors || row.minimal.errors) {
      row.note = `non-2xx real ${row.real.non2xx}, minimal ${row.minimal.non2xx}; errors ${row.real.errors}/${row.minimal.errors}`;
    }
    log(
      `  ${e.id.padEnd(18)} real ${row.real.rps.toFixed(0).padStart(6)} req/s p50 ${row.real.p50} p99 ${row.real.p99} | ` +
        `minimal ${row.minimal.rps.toFixed(0).padStart(6)} req/s p50 ${row.minimal.p50} p99 ${row.minimal.p99} | ratio ${row.ratio.toFixed(2)} | ` +
        `server CPU/req ${row.real.cpuUsPerReq} vs ${row.minimal.cpuUsPerReq} us`,
    );
  }
  clearInterval(sampler);
  const mem = server.memory();
  return { rows, memory: { rssBeforeMb: kbToMb(rssBefore), peakRssDuringMb: kbToMb(peakRss), vmHwmMb: kbToMb(mem.hwmKb) } };
}

const kbToMb = (kb: number) => Math.round(kb / 102.4) / 10;

async function sampleIds(q: Query, project: SeededProject) {
  const withTracker = await q<{ id: string }>(
    `select i.id from issues i join sla_trackers t on t.issue_id = i.id
     where i.project_id = $1 and t.policy_id is not null order by i.sequence_id limit 200`,
    [project.id],
  );
  const any = await q<{ id: string }>(`select id from issues where project_id = $1 order by sequence_id desc limit 200`, [project.id]);
  return { tracked: withTracker.rows.map((r) => r.id), any: any.rows.map((r) => r.id) };
}

function endpointsFor(slug: string, project: SeededProject, baselineId: string, ids: { tracked: string[]; any: string[] }): Endpoint[] {
  const W = `/api/workspaces/${slug}`;
  const sev = project.properties.severity;
  return [
    { id: 'sla-tracker', label: 'GET issue SLA tracker', kind: 'read', method: 'GET', status: 200, paths: ids.tracked.map((i) => `${W}/issues/${i}/sla/`) },
    { id: 'sla-breached', label: 'GET sla-breached (first page)', kind: 'read', method: 'GET', status: 200, paths: [`${W}/sla-breached/`] },
    {
      id: 'custom-values',
      label: 'GET custom values of an issue',
      kind: 'read',
      method: 'GET',
      status: 200,
      paths: ids.any.map((i) => `${W}/projects/${project.id}/issues/${i}/custom-values/`),
    },
    { id: 'subscription', label: 'GET subscription with limits', kind: 'read', method: 'GET', status: 200, paths: [`${W}/billing/subscription/`] },
    { id: 'deviation', label: 'GET baseline deviation', kind: 'read', method: 'GET', status: 200, paths: [`${W}/baselines/${baselineId}/deviation/`] },
    {
      id: 'issues-filtered',
      label: 'GET issue list, custom filter',
      kind: 'read',
      method: 'GET',
      status: 200,
      paths: ['S1', 'S2', 'S3', 'S4'].map((v) => `${W}/projects/${project.id}/issues/?custom.${sev}=${v}`),
    },
    { id: 'issues', label: 'GET issue list (core)', kind: 'read', method: 'GET', status: 200, paths: [`${W}/projects/${project.id}/issues/`] },
    {
      id: 'create-issue',
      label: 'POST create issue',
      kind: 'write',
      method: 'POST',
      status: 201,
      paths: [`${W}/projects/${project.id}/issues/`],
      body: (n) => ({ name: `Bench issue ${n}`, priority: ['urgent', 'high', 'medium', 'low', 'none'][n % 5] }),
    },
    {
      id: 'put-custom-value',
      label: 'PUT custom value',
      kind: 'write',
      method: 'PUT',
      status: 200,
      paths: ids.any.map((i) => `${W}/issues/${i}/custom-values/${sev}/`),
      body: (n) => ({ value: `S${1 + (n % 4)}` }),
    },
  ];
}

// ---- scale curves ------------------------------------------------------------------------------------------------

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2 : NaN;
};

/**
 * Median of `reps` timed calls after `warmups` untimed ones. The server's named statements run custom plans for their
 * first five executions on each connection (PostgreSQL's plan_cache_mode auto), and a new workspace's pages are cold:
 * those first requests cost 15-40 ms at any size (measured in process), so the first-page curves warm up enough to time
 * the steady service.
 */
async function timed(reps: number, fn: () => Promise<unknown>, warmups = 1): Promise<number> {
  for (let i = 0; i < warmups; i++) await fn();
  const xs: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return Math.round(median(xs) * 100) / 100;
}

/** The first-page curves: each page warmed up on the server's connections, then the median of 15. */
const PAGE_WARMUPS = 12;
const PAGE_REPS = 15;

interface BreachedPoint {
  trackers: number;
  breached: number;
  httpMs: number;
  /** Since 2026-11-27 (absent from older latest.json): trackers at risk; sla-at-risk and the project's issue list (its
   * `trackers` issues), first page with the total; the `sla.totals` job bringing the counts up once after the seed. */
  atRisk?: number;
  atRiskHttpMs?: number;
  issuesHttpMs?: number;
  firstFoldMs?: number;
  rawPageMs: number;
  rawCountMs: number;
  rawBothMs: number;
}
interface BaselinePoint {
  issues: number;
  createHttpMs: number;
  rawAggregateMs: number;
  rawSnapshotMs: number;
  deviationHttpMs: number;
  rawDeviationMs: number;
  ratioToAggregate: number;
  ratioToSnapshot: number;
}

async function scaleCurves(server: Server, token: string, owner: string, raw: RawExec, now: Date, bringCountsUp: () => Promise<void>) {
  const q = raw.query;
  const breached: BreachedPoint[] = [];
  for (const [n, size] of cfg.trackers.entries()) {
    const slug = `bench-breached-${n}`;
    const ws = await insertWorkspace(q, owner, slug, now);
    const [project] = await seedWorkspace(q, {
      workspaceId: ws,
      ownerId: owner,
      projects: [{ identifier: 'SCALE', issues: size }],
      comments: 0,
      trackers: true,
      customValues: false,
      members: 2,
      now,
      label: `breached ${size.toLocaleString('en')} trackers`,
    });
    // As autovacuum would have left a settled table: statistics and the visibility map (index-only scans).
    await q('VACUUM (ANALYZE) sla_trackers');
    await q('VACUUM (ANALYZE) issues');
    // The seed wrote past the counts (kept at -infinity); the job brings them up once, as after an upgrade.
    const foldStart = performance.now();
    await bringCountsUp();
    const firstFoldMs = Math.round(performance.now() - foldStart);
    const at = new Date();
    const page = () =>
      q(
        `select t.id, t.issue_id, t.policy_id, t.priority, t.response_due_at, t.resolution_due_at, t.responded_at, t.resolved_at,
           i.name, i.project_id, i.sequence_id, i.priority, i.state_group
         from sla_trackers t join issues i on i.id = t.issue_id where t.workspace_id = $1 and t.breach_at < $2
         order by t.breach_at, t.id offset 0 limit 20`,
        [ws, at],
      );
    const count = () => q(`select count(*) as n from sla_trackers where workspace_id = $1 and breach_at < $2`, [ws, at]);
    const total = Number((await count()).rows[0]!.n);
    const atRisk = (await api<{ total: number }>(server.base, 'GET', `/api/workspaces/${slug}/sla-at-risk/`, token)).total;
    const issuesPath = `/api/workspaces/${slug}/projects/${project!.id}/issues/`;
    const listed = (await api<{ total: number }>(server.base, 'GET', issuesPath, token)).total;
    if (listed !== size) throw new Error(`the issue list's total is ${listed}, not ${size}`);
    const point: BreachedPoint = {
      trackers: size,
      breached: total,
      atRisk,
      firstFoldMs,
      atRiskHttpMs: await timed(PAGE_REPS, () => api(server.base, 'GET', `/api/workspaces/${slug}/sla-at-risk/`, token), PAGE_WARMUPS),
      issuesHttpMs: await timed(PAGE_REPS, () => api(server.base, 'GET', issuesPath, token), PAGE_WARMUPS),
      httpMs: await timed(PAGE_REPS, () => api(server.base, 'GET', `/api/workspaces/${slug}/sla-breached/`, token), PAGE_WARMUPS),
      rawPageMs: await timed(cfg.reps, page),
      rawCountMs: await timed(cfg.reps, count),
      rawBothMs: await timed(cfg.reps, () => Promise.all([page(), count()])),
    };
    breached.push(point);
    const httpTotal = (await api<{ total: number }>(server.base, 'GET', `/api/workspaces/${slug}/sla-breached/`, token)).total;
    if (httpTotal !== total) throw new Error(`sla-breached answers a total of ${httpTotal}, the count is ${total}`);
    log(
      `  breached ${size}: ${total} breached, ${atRisk} at risk (first fold ${firstFoldMs} ms); http breached ${point.httpMs} ms, at-risk ${point.atRiskHttpMs} ms, ` +
        `issues ${point.issuesHttpMs} ms; raw page ${point.rawPageMs} ms, raw count ${point.rawCountMs} ms`,
    );
  }

  const baselines: BaselinePoint[] = [];
  const slug = 'bench-baselines';
  const ws = await insertWorkspace(q, owner, slug, now);
  const projects = await seedWorkspace(q, {
    workspaceId: ws,
    ownerId: owner,
    projects: cfg.baselineIssues.map((n, i) => ({ identifier: `B${i}`, issues: n })),
    comments: 0,
    trackers: false,
    customValues: false,
    members: 2,
    now,
    label: `baselines ${cfg.baselineIssues.map((n) => n.toLocaleString('en')).join('/')}`,
  });
  await q('VACUUM (ANALYZE) issues');
  for (const p of projects) {
    // Interleaved: the endpoint, then the same statements (baseline row, items + counts) through the raw pool, each
    // committed and deleted again untimed, so both always write into the same table state. Round 0 is the warm-up.
    const httpTimes: number[] = [];
    const snapshots: number[] = [];
    for (let i = 0; i <= cfg.reps; i++) {
      let t = performance.now();
      const created = await api<{ id: string }>(server.base, 'POST', `/api/workspaces/${slug}/projects/${p.id}/baselines/`, token, { name: 'Scale' });
      if (i > 0) httpTimes.push(performance.now() - t);
      await q('delete from baselines where id = $1', [created.id]);
      t = performance.now();
      const id = await raw.tx((tq) => insertBaseline(tq, ws, p.id, owner, now), 'isolation level repeatable read');
      if (i > 0) snapshots.push(performance.now() - t);
      await q('delete from baselines where id = $1', [id]);
    }
    const createHttpMs = Math.round(median(httpTimes) * 100) / 100;
    const rawSnapshotMs = Math.round(median(snapshots) * 100) / 100;
    const rawAggregateMs = await timed(cfg.reps, () =>
      q(`select state_group, priority, count(*) from issues where workspace_id = $1 and project_id = $2 group by state_group, priority`, [ws, p.id]),
    );
    const keep = (await api<{ id: string }>(server.base, 'POST', `/api/workspaces/${slug}/projects/${p.id}/baselines/`, token, { name: 'Kept' })).id;
    // Keep one baseline, change the project, then time the deviation.
    await churn(q, p.id);
    await q('ANALYZE baseline_items');
    const deviationHttpMs = await timed(cfg.reps, () => api(server.base, 'GET', `/api/workspaces/${slug}/baselines/${keep}/deviation/`, token));
    const rawDeviationMs = await timed(cfg.reps, () =>
      raw.tx(async (tq) => {
        await tq(`select state_group, priority, count(*) as n from issues where workspace_id = $1 and project_id = $2 group by state_group, priority`, [
          ws,
          p.id,
        ]);
        await tq(DEVIATION_SQL, [ws, p.id, keep, 100]);
      }, 'isolation level repeatable read read only'),
    );
    const point: BaselinePoint = {
      issues: p.issues,
      createHttpMs,
      rawAggregateMs,
      rawSnapshotMs,
      deviationHttpMs,
      rawDeviationMs,
      ratioToAggregate: Math.round((createHttpMs / rawAggregateMs) * 100) / 100,
      ratioToSnapshot: Math.round((createHttpMs / rawSnapshotMs) * 100) / 100,
    };
    baselines.push(point);
    log(
      `  baseline ${p.issues}: create ${createHttpMs} ms (raw aggregate ${rawAggregateMs} ms, raw snapshot ${rawSnapshotMs} ms); ` +
        `deviation ${deviationHttpMs} ms (raw ${rawDeviationMs} ms)`,
    );
  }
  return { breached, baselines };
}

// ---- one database run ----------------------------------------------------------------------------------------------

interface DbRun {
  database: 'postgres' | 'pglite';
  issues: number;
  seedSeconds: number;
  throughput: ThroughputRow[];
  memory: { rssBeforeMb: number; peakRssDuringMb: number; vmHwmMb: number };
  scale?: Awaited<ReturnType<typeof scaleCurves>>;
}

/**
 * The service's jobs are off in the bench (JOB_INTERVAL_MS=0, for steady throughput), so after a seed (which writes
 * past the kept SLA counts) the `sla.totals` job's own code runs from here: the state the job keeps a workspace in.
 */
async function bringCountsUp(db: Db) {
  const at = new Date();
  await db.transaction().execute((tx) => slaRepository().advanceCounts(tx, at, at, 1000));
}

async function seedThroughputWorkspace(q: Query, owner: string, ws: string, issues: number, now: Date) {
  const [project] = await seedWorkspace(q, {
    workspaceId: ws,
    ownerId: owner,
    projects: [{ identifier: 'BENCH', issues }],
    comments: 2,
    trackers: true,
    customValues: true,
    members: 4,
    now,
    label: `workspace ${issues.toLocaleString('en')} issues`,
  });
  const baselineId = await insertBaseline(q, ws, project!.id, owner, now);
  await churn(q, project!.id);
  await q('VACUUM (ANALYZE)');
  return { project: project!, baselineId };
}

async function runPostgres(url: string): Promise<DbRun> {
  const parsed = new URL(url);
  const dbName = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres';
  const scratch = `${dbName}_bench`.replace(/[^a-zA-Z0-9_]/g, '_');
  const scratchUrl = new URL(url);
  scratchUrl.pathname = `/${scratch}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${scratch}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${scratch}"`);
  await admin.end();
  log(`PostgreSQL: scratch database ${scratch}`);

  const server = await startServer({ DATABASE_URL: scratchUrl.toString() });
  const raw = rawPostgres(scratchUrl.toString(), 4);
  const handle = await openDatabase({ databaseUrl: scratchUrl.toString(), dataDir: '' });
  try {
    const auth = await api<{ user: { id: string }; token: string }>(server.base, 'POST', '/api/auth/sign-up/', null, {
      email: 'bench-admin@bench.example',
      password: 'bench-password-1',
      display_name: 'Bench admin',
    });
    const slug = 'bench';
    const ws = await api<{ id: string }>(server.base, 'POST', '/api/workspaces/', auth.token, { name: 'Bench', slug });
    try {
      await api(server.base, 'POST', `/api/workspaces/${slug}/billing/trial/`, auth.token, { plan_slug: 'pro' });
    } catch (e) {
      log(`  (trial not started: ${(e as Error).message}; the subscription endpoint reads the free plan)`);
    }
    const now = new Date();
    const t0 = performance.now();
    const { project, baselineId } = await seedThroughputWorkspace(raw.query, auth.user.id, ws.id, cfg.issues, now);
    await bringCountsUp(handle.db);
    const seedSeconds = Math.round((performance.now() - t0) / 100) / 10;
    const ids = await sampleIds(raw.query, project);
    log(`Throughput (PostgreSQL, ${cfg.connections} connections, ${cfg.duration} s per run):`);
    const tp = await throughput(server, auth.token, endpointsFor(slug, project, baselineId, ids));
    let scale;
    if (cfg.scale) {
      log('Scale curves (PostgreSQL):');
      scale = await scaleCurves(server, auth.token, auth.user.id, raw, now, () => bringCountsUp(handle.db));
    }
    return { database: 'postgres', issues: cfg.issues, seedSeconds, throughput: tp.rows, memory: tp.memory, scale };
  } finally {
    await handle.close();
    await raw.close();
    await server.stop();
    if (!cfg.keep) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${scratch}" WITH (FORCE)`);
      await c.end();
    } else log(`  kept ${scratchUrl.toString()}`);
  }
}

async function runPglite(): Promise<DbRun> {
  const dir = mkdtempSync(join(tmpdir(), 'wis-bench-pglite-'));
  try {
    log(`PGlite: ${dir}`);
    const handle = await openPglite(dir);
    await migrateToLatest(handle.db);
    const raw = rawKysely(handle.db);
    const q = raw.query;
    const now = new Date();
    const owner = await insertUserWithToken(q, 'bench-admin@bench.example', now);
    const slug = 'bench';
    const ws = await insertWorkspace(q, owner.userId, slug, now);
    await insertTrial(q, ws, now);
    const t0 = performance.now();
    const { project, baselineId } = await seedThroughputWorkspace(q, owner.userId, ws, cfg.pgliteIssues, now);
    await bringCountsUp(handle.db);
    const seedSeconds = Math.round((performance.now() - t0) / 100) / 10;
    const ids = await sampleIds(q, project);
    await handle.close();
    const server = await startServer({ DATA_DIR: dir });
    try {
      log(`Throughput (PGlite, ${cfg.connections} connections, ${cfg.duration} s per run):`);
      const tp = await throughput(server, owner.token, endpointsFor(slug, project, baselineId, ids));
      return { database: 'pglite', issues: cfg.pgliteIssues, seedSeconds, throughput: tp.rows, memory: tp.memory };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- report ----------------------------------------------------------------------------------------------------------

const f0 = (v: number | undefined) => (v === undefined ? '' : v.toFixed(0));
/** Ratios are cut, not rounded, to two decimals: 0.798 shows as 0.79, never as a "0.80" that missed 0.8. */
const f2 = (v: number | undefined) => (v === undefined ? '' : (Math.floor(v * 100) / 100).toFixed(2));

function markdown(runs: DbRun[], meta: Record<string, unknown>): string {
  const out: string[] = [];
  out.push(`# Benchmark results`, '');
  out.push(`${meta.date} · ${meta.mode} · node ${meta.node} · ${meta.cpus} CPUs · load average at start ${meta.loadStart}, at end ${meta.loadEnd}`, '');
  for (const r of runs) {
    out.push(`## Throughput: ${r.database} (${r.issues.toLocaleString('en')} issues in the project; seeded in ${r.seedSeconds} s)`, '');
    out.push(
      '| endpoint | kind | real req/s | real p50 ms | real p99 ms | minimal req/s | minimal p50 ms | minimal p99 ms | real/minimal | target | met | server CPU µs/req real / minimal |',
    );
    out.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---:|');
    for (const t of r.throughput) {
      if (!t.real || !t.minimal) {
        out.push(`| ${t.label} | ${t.kind} | | | | | | | | ${t.target} | ${t.note ?? ''} | |`);
        continue;
      }
      out.push(
        `| ${t.label} | ${t.kind} | ${f0(t.real.rps)} | ${t.real.p50} | ${t.real.p99} | ${f0(t.minimal.rps)} | ${t.minimal.p50} | ${t.minimal.p99} | ${f2(t.ratio)} | ${t.target} | ${t.met ? 'yes' : 'no'}${t.note ? ` (${t.note})` : ''} | ${t.real.cpuUsPerReq} / ${t.minimal.cpuUsPerReq} |`,
      );
    }
    out.push(
      '',
      `Server RSS: ${r.memory.rssBeforeMb} MB before the throughput runs, peak ${r.memory.peakRssDuringMb} MB during them (VmHWM ${r.memory.vmHwmMb} MB).`,
      '',
    );
    if (r.scale) {
      out.push(`## Scale: first pages with their exact total (${r.database})`, '');
      out.push(
        'One workspace per size, one project with that many issues, a tracker each. HTTP: median ms of the first page with its `total`; raw: the page and the full count as plain SQL.',
        '',
      );
      out.push(
        '| trackers (and issues) | breached | at risk | sla-breached HTTP ms | sla-at-risk HTTP ms | issue list HTTP ms | raw breached page SQL ms | raw breached count SQL ms | raw page+count ms | first fold of the counts ms |',
      );
      out.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
      for (const b of r.scale.breached) {
        out.push(
          `| ${b.trackers.toLocaleString('en')} | ${b.breached.toLocaleString('en')} | ${b.atRisk?.toLocaleString('en') ?? ''} | ${b.httpMs} | ${b.atRiskHttpMs ?? ''} | ${b.issuesHttpMs ?? ''} | ${b.rawPageMs} | ${b.rawCountMs} | ${b.rawBothMs} | ${b.firstFoldMs ?? ''} |`,
        );
      }
      out.push('', `## Scale: baselines (${r.database})`, '');
      out.push(
        '| issues in project | create HTTP ms | raw aggregate ms | raw snapshot SQL ms | create / aggregate | create / snapshot | deviation HTTP ms | raw deviation ms |',
      );
      out.push('|---:|---:|---:|---:|---:|---:|---:|---:|');
      for (const b of r.scale.baselines) {
        out.push(
          `| ${b.issues.toLocaleString('en')} | ${b.createHttpMs} | ${b.rawAggregateMs} | ${b.rawSnapshotMs} | ${b.ratioToAggregate} | ${b.ratioToSnapshot} | ${b.deviationHttpMs} | ${b.rawDeviationMs} |`,
        );
      }
      out.push('', 'Chart: scale.svg', '');
    }
  }
  out.push('## Targets', '', '| target | met | measured |', '|---|:---:|---|');
  for (const v of verdicts(runs)) out.push(`| ${v.target} | ${v.met === null ? 'n/a' : v.met ? 'yes' : 'no'} | ${v.detail} |`);
  out.push('');
  return out.join('\n');
}

interface Verdict {
  target: string;
  met: boolean | null;
  detail: string;
}

function verdicts(runs: DbRun[]): Verdict[] {
  const out: Verdict[] = [];
  for (const r of runs) {
    for (const t of r.throughput) {
      out.push({
        target: `${r.database}: ${t.label} real/minimal >= ${t.target}`,
        met: t.ratio === undefined ? null : t.ratio >= t.target,
        detail: t.ratio === undefined ? (t.note ?? 'not measured') : f2(t.ratio),
      });
    }
    if (!r.scale) continue;
    const b = r.scale.breached;
    if (b.length >= 2) {
      const first = b[0]!;
      const last = b[b.length - 1]!;
      const sizes = `at ${last.trackers.toLocaleString('en')} rows <= 2x the time at ${first.trackers.toLocaleString('en')}`;
      const factor = `for ${(last.trackers / first.trackers).toFixed(0)}x the rows`;
      const growth = last.httpMs / first.httpMs;
      out.push({
        target: `${r.database}: sla-breached first page with its total flat (HTTP time ${sizes})`,
        met: growth <= 2,
        detail: `${growth.toFixed(2)}x ${factor} (${first.httpMs} -> ${last.httpMs} ms; raw page SQL ${(last.rawPageMs / first.rawPageMs).toFixed(2)}x, raw count SQL ${(last.rawCountMs / first.rawCountMs).toFixed(2)}x)`,
      });
      for (const [label, key] of [
        ['sla-at-risk', 'atRiskHttpMs'],
        ['issue list', 'issuesHttpMs'],
      ] as const) {
        const [a, z] = [first[key], last[key]];
        if (a === undefined || z === undefined) continue;
        const g = z / a;
        out.push({
          target: `${r.database}: ${label} first page with its total flat (HTTP time ${sizes})`,
          met: g <= 2,
          detail: `${g.toFixed(2)}x ${factor} (${a} -> ${z} ms)`,
        });
      }
    }
    const big = r.scale.baselines[r.scale.baselines.length - 1];
    if (big) {
      out.push({
        target: `${r.database}: baseline of ${big.issues.toLocaleString('en')} issues <= 3x the raw aggregate SQL`,
        met: big.ratioToAggregate <= 3,
        detail: `${big.ratioToAggregate}x the aggregate (${big.createHttpMs} vs ${big.rawAggregateMs} ms); ${big.ratioToSnapshot}x the raw snapshot SQL the endpoint runs (${big.rawSnapshotMs} ms)`,
      });
    }
  }
  return out;
}

function scaleChart(run: DbRun): string | null {
  if (!run.scale) return null;
  const { breached, baselines } = run.scale;
  return chartSvg(`Scale curves (${run.database}, median ms; log-log)`, [
    {
      title: 'sla-breached, first page',
      xLabel: 'trackers in the workspace',
      yLabel: 'ms',
      series: [
        { name: 'HTTP endpoint', points: breached.map((b) => ({ x: b.trackers, y: b.httpMs })) },
        { name: 'raw page SQL', points: breached.map((b) => ({ x: b.trackers, y: b.rawPageMs })) },
        { name: 'raw count SQL', points: breached.map((b) => ({ x: b.trackers, y: b.rawCountMs })) },
      ],
    },
    {
      title: 'baselines',
      xLabel: 'issues in the project',
      yLabel: 'ms',
      series: [
        { name: 'create (HTTP)', points: baselines.map((b) => ({ x: b.issues, y: b.createHttpMs })) },
        { name: 'raw aggregate SQL', points: baselines.map((b) => ({ x: b.issues, y: b.rawAggregateMs })) },
        { name: 'raw snapshot SQL', points: baselines.map((b) => ({ x: b.issues, y: b.rawSnapshotMs })) },
        { name: 'deviation (HTTP)', points: baselines.map((b) => ({ x: b.issues, y: b.deviationHttpMs })) },
        { name: 'raw deviation SQL', points: baselines.map((b) => ({ x: b.issues, y: b.rawDeviationMs })) },
      ],
    },
  ]);
}

// ---- main ----------------------------------------------------------------------------------------------------------

async function main() {
  if (flag('render')) {
    // Re-renders latest.md and scale.svg from latest.json (after a change of the report's format).
    const { meta, runs } = JSON.parse(readFileSync(join(RESULTS, 'latest.json'), 'utf8')) as { meta: Record<string, unknown>; runs: DbRun[] };
    const md = markdown(runs, meta);
    writeFileSync(join(RESULTS, 'latest.md'), `${md}\n`);
    writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify({ meta, runs, targets: verdicts(runs) }, null, 2)}\n`);
    const svg = runs.map(scaleChart).find((x) => x !== null);
    if (svg) writeFileSync(join(RESULTS, 'scale.svg'), svg);
    console.log(md);
    return;
  }
  if (flag('attachments')) {
    // Attachments alone (contract 25.6): the compiled service on embedded databases of its own (no DATABASE_URL needed).
    const md = await runAttachmentsBench({ quick, s3: !flag('no-s3') });
    if (!quick) writeFileSync(join(RESULTS, 'attachments.md'), `${md.trimEnd()}\n`);
    console.log(md);
    return;
  }
  if (flag('mail')) {
    // Mail alone (contract 26.3): an embedded database of its own, and a scratch PostgreSQL database with DATABASE_URL.
    const md = await runMailBench({ databaseUrl: process.env.DATABASE_URL ?? null, quick });
    if (!quick) writeFileSync(join(RESULTS, 'mail.md'), `${md.trimEnd()}\n`);
    console.log(md);
    return;
  }
  const url = process.env.DATABASE_URL;
  if (!url && !cfg.pgliteOnly) {
    console.error(
      'npm run bench needs DATABASE_URL: a PostgreSQL server where it may create (and drop) a scratch database "<db>_bench".\n' +
        'Example: DATABASE_URL=postgres://postgres@127.0.0.1:5432/wis npm run bench -- --quick\n' +
        '(Or `npm run bench -- --pglite-only` for the small embedded run alone.)',
    );
    process.exit(2);
  }
  if (flag('work-item-core') && url) {
    // The work-item core alone (contract 24): its own scratch database and server; its section of latest.md.
    const only = opt('wic-only');
    const result = await runWorkItemCore({ databaseUrl: url, quick, keep: cfg.keep, profile: cfg.profile, ...(only && { only }) });
    // A smoke run or one part alone never overwrites the figures of a whole run.
    if (!quick && !only) writeWorkItemCore(result);
    console.log(result.markdown);
    return;
  }
  if (flag('database-ops') && url) {
    // Database operations alone (contract 27): a scratch database, clusters of its own, PgBouncer; its own file.
    const md = await runDatabaseOps({ databaseUrl: url, quick });
    if (!quick) writeFileSync(join(RESULTS, 'database-ops.md'), `${md.trimEnd()}\n`);
    console.log(md);
    return;
  }
  if (flag('console')) {
    // The console's board alone (issue 41): PGlite, the built console in Chromium; its own file.
    const md = await runConsoleBench({ quick });
    if (!quick) writeFileSync(join(RESULTS, 'console.md'), `${md.trimEnd()}\n`);
    console.log(md);
    return;
  }
  if (flag('notifications')) {
    // Notifications alone (contract 26.1, 26.2): against the commit before them, in worktrees; its own file.
    const md = await runNotificationsBench({ databaseUrl: url ?? null, quick, pglite: !flag('no-pglite'), postgres: Boolean(url) });
    if (!quick) writeFileSync(join(RESULTS, 'notifications.md'), `${md.trimEnd()}\n`);
    console.log(md);
    return;
  }
  if (flag('search')) {
    // Search alone (contract 23): a scratch database of its own and a PGlite folder; its own file.
    const md = await runSearchBench({ databaseUrl: url ?? null, quick, keep: cfg.keep, pglite: !flag('no-pglite'), postgres: Boolean(url) });
    if (!quick) writeFileSync(join(RESULTS, 'search.md'), `${md.trimEnd()}\n`);
    console.log(md);
    return;
  }
  const started = Date.now();
  const loadStart = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  log(`bench: ${quick ? 'quick' : 'full'} run; load average ${loadStart} on ${cpus().length} CPUs`);
  const runs: DbRun[] = [];
  if (url && !cfg.pgliteOnly) runs.push(await runPostgres(url));
  if (cfg.pglite) runs.push(await runPglite());
  const meta = {
    date: new Date().toISOString(),
    mode: quick ? 'quick' : 'full',
    node: process.versions.node,
    cpus: cpus().length,
    loadStart,
    loadEnd: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    seconds: Math.round((Date.now() - started) / 1000),
    config: cfg,
  };
  mkdirSync(RESULTS, { recursive: true });
  // A smoke run never overwrites the results of a full one.
  const partial = cfg.only !== undefined || cfg.side !== undefined || !cfg.scale;
  const name = quick ? 'latest-quick' : partial ? 'latest-partial' : 'latest';
  // Webhook delivery benchmarks (bench/webhooks.ts): in-process, on a scratch database of their own.
  const webhooks: string[] = [];
  if (!cfg.only) {
    if (url && !cfg.pgliteOnly) webhooks.push(await benchWebhooks({ databaseUrl: url, quick }));
    if (cfg.pglite) webhooks.push(await benchWebhooks({ quick }));
    // SLA on working time at scale (bench/sla-scale.ts): at-risk pages, a calendar edit re-targeting open trackers.
    if (url && !cfg.pgliteOnly && cfg.scale) webhooks.push(await benchSlaScale({ databaseUrl: url, quick }));
    // Baseline create with the per-issue planning fields against the snapshot of 9dc1ca3, side by side (bench/baselines-scale.ts).
    if (url && !cfg.pgliteOnly && cfg.scale) webhooks.push(await benchBaselinesScale({ databaseUrl: url, quick }));
    // SLA policy simulation of 10,000 issues (bench/sla-simulation.ts): <= 2 s on PostgreSQL.
    if (url && !cfg.pgliteOnly) webhooks.push(await benchSlaSimulation({ databaseUrl: url, quick, pglite: cfg.pglite }));
    // Forecast of a project with 52 weeks of history (bench/forecast.ts): target <= 200 ms.
    if (url && !cfg.pgliteOnly && cfg.scale) webhooks.push(await benchForecast({ databaseUrl: url, quick }));
    if (cfg.pglite && cfg.scale) webhooks.push(await benchForecast({ quick: true }));
    // SLA reports (bench/sla-reports.ts): a 12-week report by week over 100k and 1M trackers.
    if (url && !cfg.pgliteOnly && cfg.scale) webhooks.push(await benchSlaReports({ databaseUrl: url, quick }));
    // Planning and time tracking (bench/time-tracking.ts): a month's timesheet over 1M worklogs, the target_date sort.
    if (url && !cfg.pgliteOnly && cfg.scale) webhooks.push(await benchTimeTracking({ databaseUrl: url, quick }));
    // Start-up to /readyz, cold and warm (bench/startup.ts): always on the embedded database, the contract's case.
    webhooks.push(await benchStartup({ quick }));
    // Security headers and CORS against the GET tracker (bench/security-headers.ts).
    webhooks.push(await benchSecurityHeaders({ quick }));
    // POST create issue against pgbench's three-insert transaction on the same database (bench/create-vs-pgbench.ts).
    if (url && !cfg.pgliteOnly) webhooks.push(await benchCreateVsPgbench({ databaseUrl: url, quick }));
    // The mixed load of 11 operations with the background duties on (bench/mixed-load.ts): PGlite, and PostgreSQL beside it.
    const mixed = [await runMixedLoad({ quick, log })];
    if (url && !cfg.pgliteOnly) mixed.push(await runMixedLoad({ quick, log, databaseUrl: url }));
    webhooks.push(renderMixedLoad(mixed));
    // The work-item core (bench/work-item-core.ts): bulk edit of 500, the label list at 1M issues, create with labels.
    if (url && !cfg.pgliteOnly && cfg.scale) {
      const wic = await runWorkItemCore({ databaseUrl: url, quick });
      if (name === 'latest') writeWorkItemCore(wic, false);
      webhooks.push(wic.markdown);
    }
    // Invoice PDFs through the service (bench/invoice-pdf.ts).
    webhooks.push(await benchInvoicePdf({ quick }));
    // Automatic renewal: 10,000 subscriptions due at once, two compiled instances on PostgreSQL (bench/renewals.ts).
    if (url && !cfg.pgliteOnly) webhooks.push(await benchRenewals({ databaseUrl: url, quick }));
  }
  const md = [markdown(runs, meta), ...webhooks].join('\n\n');
  writeFileSync(join(RESULTS, `${name}.md`), `${md}\n`);
  writeFileSync(join(RESULTS, `${name}.json`), `${JSON.stringify({ meta, runs, targets: verdicts(runs) }, null, 2)}\n`);
  const svg = runs.map(scaleChart).find((s) => s !== null);
  const svgName = name === 'latest' ? 'scale.svg' : `scale-${name.slice('latest-'.length)}.svg`;
  if (svg) writeFileSync(join(RESULTS, svgName), svg);
  console.log(md);
  log(`bench: done in ${meta.seconds} s; wrote bench/results/${name}.md, ${name}.json${svg ? `, ${svgName}` : ''}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
