/**
 * The mixed load of issue 28, from outside, with every background duty on as in production: the service is started as
 * `npm start` starts it (compiled, `node dist/src/main.js`) on a fresh embedded folder (or a scratch PostgreSQL
 * database) filled by the CLI demo, then driven by 20 clients over HTTP with a mix of 11 operations:
 *
 *   list issues, get issue, create issue, patch issue, add comment, list comments, set custom value,
 *   GET issue SLA tracker, sla-breached, GET subscription, baseline deviation
 *
 * drawn in equal shares. Phase 1 (capacity): the 20 clients send back to back for `capacitySeconds`; requests per
 * second completed is the capacity. Phase 2 (soak): the 20 clients send at 80 % of that rate on a fixed schedule for
 * `soakSeconds` (three minutes in a full run); each latency is measured from the instant the request was due, so a
 * stall shows in every request that waited behind it (no coordinated omission). The server's RSS is sampled every
 * second; its growth is the last 30 s against the 30 s after the first minute (warm-up).
 *
 * A webhook endpoint on a local receiver subscribes to every event, so the webhook worker delivers during the load;
 * the SLA events duty runs at its production interval; the other duties at a 5 s interval (JOB_INTERVAL_MS), so they
 * run during the soak rather than once an hour.
 *
 * Each run also reports how long checkouts held a database connection during the soak (`db_connection_hold_seconds`),
 * the service's event-loop delay, and each operation's time alone (one request at a time) before the capacity run and
 * after the soak, which shows what the load's own writes did to each operation's cost.
 *
 * Part of `npm run bench`; by hand: `npx tsx bench/mixed-load.ts [--quick] [--postgres postgres://.../db]`
 * (`SVC_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` passes flags to the service's node, to profile it).
 *
 * Two commits side by side: `--against DIR` (repeatable) also runs the service compiled in another checkout (a
 * `git worktree` with its own `npm ci`), and `--rounds N` repeats the set, interleaved (this tree, DIR, this tree,
 * DIR, ...), so that the other work of a shared machine falls on both alike; a summary table gives each one's
 * capacities and median, and what the embedded database's upkeep (`db.upkeep`) did during the soak.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { Pool } from 'undici';
import * as thisTree from './compiled-service.js';
import { type CompiledService, startCountingReceiver } from './compiled-service.js';

const CLIENTS = 20;

export interface MixedLoadOptions {
  quick: boolean;
  /** A PostgreSQL URL: the run creates (and drops) a scratch database `<db>_mixedload` on it; PGlite in a temporary folder without it. */
  databaseUrl?: string;
  /** Extra environment of the service (such as PGLITE_SHARED_BUFFERS), and the label of its row. */
  env?: Record<string, string>;
  label?: string;
  capacitySeconds?: number;
  soakSeconds?: number;
  log?: (line: string) => void;
  /** Another checkout of the repository whose compiled service (and demo) run instead of this tree's. */
  checkout?: string;
}

export interface OperationStats {
  op: string;
  count: number;
  errors: number;
  p50: number;
  p99: number;
}

/** Connection holds during the soak (`db_connection_hold_seconds` of the service's /metrics). */
export interface HoldStats {
  count: number;
  totalMs: number;
  /** Holds longer than 10 ms and 50 ms (from the histogram's buckets). */
  over10: number;
  over50: number;
}

export interface MixedLoadResult {
  database: 'pglite' | 'postgres';
  label: string;
  capacity: number;
  soakRate: number;
  achievedRate: number;
  operations: OperationStats[];
  holds: HoldStats;
  /** The service's event-loop delay (prom-client's monitor at the end of the soak): p99 and max, ms. */
  eventLoop: { p99Ms: number; maxMs: number };
  /** The embedded database's upkeep during the soak: runs of `db.upkeep`, tables vacuumed and analyzed, time (0 without it). */
  upkeep: { runs: number; vacuumed: number; analyzed: number; ms: number };
  rss: { startupMb: number; afterWarmupMb: number; endMb: number; peakMb: number; growthPercent: number };
  /**
   * Each operation's mean time with one request at a time (no queueing), before the capacity run (after a warm-up
   * pass) and after the soak: what the load's own writes (issues, comments, history) did to each operation's cost.
   */
  alone: Array<{ op: string; beforeMs: number; afterMs: number }>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Nearest-rank percentile, in ms. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

async function scratchDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const url = new URL(serverUrl);
  const name = `${url.pathname.slice(1) || 'postgres'}_mixedload`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${name}"`);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

interface Target {
  slug: string;
  token: string;
  projectId: string;
  issueIds: string[];
  propertyId: string | null;
  propertyType: string | null;
  baselineId: string | null;
}

type Call = { method: 'GET' | 'POST' | 'PATCH' | 'PUT'; path: string; body?: unknown };

/** The 11 operations of the mix; `i` varies the issue and the values. */
function operations(t: Target): Array<[string, (i: number) => Call]> {
  const ws = `/api/workspaces/${t.slug}`;
  const issues = `${ws}/projects/${t.projectId}/issues/`;
  const issue = (i: number) => t.issueIds[i % t.issueIds.length]!;
  const value = (i: number) => (t.propertyType === 'number' ? i : t.propertyType === 'checkbox' ? i % 2 === 0 : `load ${i}`);
  return [
    ['list issues', () => ({ method: 'GET', path: `${issues}?per_page=50` })],
    ['get issue', (i) => ({ method: 'GET', path: `${issues}${issue(i)}/` })],
    ['create issue', (i) => ({ method: 'POST', path: issues, body: { name: `Load ${i}`, priority: i % 2 === 0 ? 'high' : 'low' } })],
    ['patch issue', (i) => ({ method: 'PATCH', path: `${issues}${issue(i)}/`, body: { priority: ['urgent', 'high', 'medium', 'low'][i % 4] } })],
    ['add comment', (i) => ({ method: 'POST', path: `${issues}${issue(i)}/comments/`, body: { body: `comment ${i}` } })],
    ['list comments', (i) => ({ method: 'GET', path: `${issues}${issue(i)}/comments/` })],
    [
      'set custom value',
      (i) =>
        t.propertyId
          ? { method: 'PUT', path: `${ws}/issues/${issue(i)}/custom-values/${t.propertyId}/`, body: { value: value(i) } }
          : { method: 'GET', path: `${issues}${issue(i)}/custom-values/` },
    ],
    ['GET SLA tracker', (i) => ({ method: 'GET', path: `${ws}/issues/${issue(i)}/sla/` })],
    ['sla-breached', () => ({ method: 'GET', path: `${ws}/sla-breached/` })],
    ['GET subscription', () => ({ method: 'GET', path: `${ws}/billing/subscription/` })],
    [
      'deviation',
      () => (t.baselineId ? { method: 'GET', path: `${ws}/baselines/${t.baselineId}/deviation/` } : { method: 'GET', path: `${ws}/projects/${t.projectId}/` }),
    ],
  ];
}

async function json<T>(pool: Pool, call: Call, token?: string): Promise<{ status: number; body: T }> {
  const res = await pool.request({
    method: call.method,
    path: call.path,
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(call.body !== undefined && { 'content-type': 'application/json' }) },
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: (text ? JSON.parse(text) : undefined) as T };
}

async function discover(pool: Pool): Promise<Target> {
  const signIn = await json<{ token: string }>(pool, {
    method: 'POST',
    path: '/api/auth/sign-in/',
    body: { email: 'demo@example.com', password: 'demo-password' },
  });
  if (signIn.status !== 200) throw new Error(`demo sign-in answered ${signIn.status}`);
  const token = signIn.body.token;
  const workspaces = await json<{ results?: Array<{ slug: string }> } | Array<{ slug: string }>>(pool, { method: 'GET', path: '/api/workspaces/' }, token);
  const list = Array.isArray(workspaces.body) ? workspaces.body : (workspaces.body.results ?? []);
  const slug = list[0]!.slug;
  const projects = await json<{ results: Array<{ id: string }> } | Array<{ id: string }>>(
    pool,
    { method: 'GET', path: `/api/workspaces/${slug}/projects/` },
    token,
  );
  const projectId = (Array.isArray(projects.body) ? projects.body : projects.body.results)[0]!.id;
  const issues = await json<{ results: Array<{ id: string }> }>(
    pool,
    { method: 'GET', path: `/api/workspaces/${slug}/projects/${projectId}/issues/?per_page=100` },
    token,
  );
  const props = await json<Array<{ id: string; type: string }> | { results: Array<{ id: string; type: string }> }>(
    pool,
    { method: 'GET', path: `/api/workspaces/${slug}/projects/${projectId}/custom-properties/` },
    token,
  );
  const property = (Array.isArray(props.body) ? props.body : (props.body.results ?? [])).find((p) => ['text', 'number', 'checkbox'].includes(p.type)) ?? null;
  const baselines = await json<{ results: Array<{ id: string }> } | Array<{ id: string }>>(
    pool,
    { method: 'GET', path: `/api/workspaces/${slug}/projects/${projectId}/baselines/` },
    token,
  );
  const baseline = (Array.isArray(baselines.body) ? baselines.body : (baselines.body.results ?? []))[0] ?? null;
  return {
    slug,
    token,
    projectId,
    issueIds: issues.body.results.map((x) => x.id),
    propertyId: property?.id ?? null,
    propertyType: property?.type ?? null,
    baselineId: baseline?.id ?? null,
  };
}

type Histo = { count: number; sum: number; buckets: Map<string, number> };

/**
 * The `db_connection_hold_seconds` histogram, two event-loop gauges and the upkeep's counters (`db.upkeep` runs,
 * `db_upkeep_total` by action, their time: `upkeep_runs`, `upkeep_vacuum`, `upkeep_analyze`, `upkeep_seconds`) out of a Prometheus
 * text answer.
 */
function scrape(text: string): { holds: Histo; gauges: Map<string, number> } {
  const holds: Histo = { count: 0, sum: 0, buckets: new Map() };
  const gauges = new Map<string, number>();
  const upkeepRuns = /^job_runs_total\{job="db\.upkeep",outcome="ok"\} (\S+)$/m.exec(text);
  if (upkeepRuns) gauges.set('upkeep_runs', Number(upkeepRuns[1]));
  const upkeepSeconds = /^job_duration_seconds_sum\{job="db\.upkeep"\} (\S+)$/m.exec(text);
  if (upkeepSeconds) gauges.set('upkeep_seconds', Number(upkeepSeconds[1]));
  for (const m of text.matchAll(/^db_upkeep_total\{action="(vacuum|analyze)"\} (\S+)$/gm)) gauges.set(`upkeep_${m[1]}`, Number(m[2]));
  for (const line of text.split('\n')) {
    const m = /^db_connection_hold_seconds_(bucket|sum|count)(?:\{le="([^"]*)"\})? (\S+)$/.exec(line);
    if (m) {
      const value = Number(m[3]);
      if (m[1] === 'sum') holds.sum = value;
      else if (m[1] === 'count') holds.count = value;
      else holds.buckets.set(m[2] ?? '', value);
      continue;
    }
    const g = /^(nodejs_eventloop_lag_p99_seconds|nodejs_eventloop_lag_max_seconds) (\S+)$/.exec(line);
    if (g) gauges.set(g[1]!, Number(g[2]));
  }
  return { holds, gauges };
}

function holdsBetween(before: Histo, after: Histo): HoldStats {
  const count = after.count - before.count;
  const within = (le: string) => (after.buckets.get(le) ?? 0) - (before.buckets.get(le) ?? 0);
  return { count, totalMs: 1000 * (after.sum - before.sum), over10: count - within('0.01'), over50: count - within('0.05') };
}

export async function runMixedLoad(o: MixedLoadOptions): Promise<MixedLoadResult> {
  const log = o.log ?? ((line: string) => console.error(line));
  const capacitySeconds = o.capacitySeconds ?? (o.quick ? 10 : 30);
  const soakSeconds = o.soakSeconds ?? (o.quick ? 40 : 180);
  const dir = o.databaseUrl ? null : mkdtempSync(join(tmpdir(), 'wis-mixed-load-'));
  const scratch = o.databaseUrl ? await scratchDatabase(o.databaseUrl) : null;
  const dbEnv: Record<string, string> = scratch ? { DATABASE_URL: scratch.url } : { DATA_DIR: dir! };
  const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...dbEnv, ...o.env };
  // Another checkout's service is started by that checkout's own helpers (its ROOT, its dist/).
  const { ensureBuilt, ROOT, startCompiledService } = (
    o.checkout ? await import(pathToFileURL(join(resolve(o.checkout), 'bench', 'compiled-service.ts')).href) : thisTree
  ) as typeof thisTree;

  ensureBuilt();
  log(`  mixed load: demo data on ${o.databaseUrl ? 'PostgreSQL' : 'PGlite'}`);
  const demo = spawnSync(process.execPath, ['dist/src/cli/main.js', 'demo'], { cwd: ROOT, env: baseEnv, encoding: 'utf8' });
  if (demo.status !== 0) throw new Error(`the demo failed: ${demo.stderr || demo.stdout}`);

  // A receiver for the webhook worker: answers 200 at once.
  const receiver = await startCountingReceiver();
  const receiverUrl = receiver.url;
  let service: CompiledService | undefined;
  let openPool: Pool | undefined;
  try {
    service = await startCompiledService({ ...baseEnv, API_RATE_LIMIT: '0', JOB_INTERVAL_MS: '5000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    const { child } = service;
    const pool = (openPool = new Pool(service.base, { connections: CLIENTS + 2, pipelining: 1 }));
    const startupMb = rssMb(child.pid!);
    const target = await discover(pool);
    const hook = await json(
      pool,
      { method: 'POST', path: `/api/workspaces/${target.slug}/webhooks/`, body: { url: receiverUrl, event_types: ['*'], description: 'mixed load' } },
      target.token,
    );
    if (hook.status !== 201) log(`  mixed load: no webhook endpoint (${hook.status} ${JSON.stringify(hook.body).slice(0, 160)}); the worker idles`);
    const ops = operations(target);

    type Sample = { op: number; ms: number; ok: boolean };
    const firstError = new Map<number, string>();
    const send = async (i: number, samples: Sample[], dueAt: number) => {
      const opIndex = i % ops.length;
      const call = ops[opIndex]![1](Math.floor(i / ops.length));
      let ok = false;
      try {
        const res = await pool.request({
          method: call.method,
          path: call.path,
          headers: { authorization: `Bearer ${target.token}`, ...(call.body !== undefined && { 'content-type': 'application/json' }) },
          body: call.body === undefined ? undefined : JSON.stringify(call.body),
        });
        // An issue whose priority has no rule answers 404 sla_not_applicable: an answer, not a failure.
        ok = res.statusCode < 400 || (res.statusCode === 404 && ops[opIndex]![0] === 'GET SLA tracker');
        if (!ok && !firstError.has(opIndex)) firstError.set(opIndex, `${res.statusCode} ${(await res.body.text()).slice(0, 200)}`);
        else await res.body.dump();
      } catch (error) {
        ok = false;
        if (!firstError.has(opIndex)) firstError.set(opIndex, String(error));
      }
      samples.push({ op: opIndex, ms: performance.now() - dueAt, ok });
    };

    // Each operation alone, one request at a time: its cost without queueing (again after the soak).
    const alone = async (): Promise<number[]> => {
      const means: number[] = [];
      for (let op = 0; op < ops.length; op++) {
        const xs: Sample[] = [];
        for (let k = 0; k < 30; k++) await send(op + ops.length * (1_000_000 + k), xs, performance.now());
        means.push(xs.reduce((a, b) => a + b.ms, 0) / xs.length);
      }
      return means;
    };
    await alone(); // a first pass warms the service (JIT, caches), so that "before" is not a cold start
    const aloneBefore = await alone();

    // Phase 1: capacity, closed loop.
    log(`  mixed load: capacity run, ${CLIENTS} clients, ${capacitySeconds} s`);
    let counter = 0;
    const capacitySamples: Sample[] = [];
    const capEnd = performance.now() + capacitySeconds * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < capEnd) await send(counter++, capacitySamples, performance.now());
      }),
    );
    const capacity = capacitySamples.length / capacitySeconds;

    // Phase 2: soak at 80 % of capacity, open loop (a fixed schedule per client).
    const rate = 0.8 * capacity;
    const interval = (1000 * CLIENTS) / rate;
    log(`  mixed load: capacity ${capacity.toFixed(0)} req/s; soak at ${rate.toFixed(0)} req/s for ${soakSeconds} s`);
    const metricsText = async () => (await pool.request({ method: 'GET', path: '/metrics' })).body.text();
    const beforeSoak = scrape(await metricsText());
    const samples: Sample[] = [];
    const rss: Array<{ t: number; mb: number }> = [];
    const start = performance.now();
    const sampler = setInterval(() => rss.push({ t: (performance.now() - start) / 1000, mb: rssMb(child.pid!) }), 1000);
    const soakEnd = start + soakSeconds * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let k = 0; ; k++) {
          const due = start + (c * interval) / CLIENTS + k * interval;
          if (due >= soakEnd) break;
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
          await send(counter++, samples, due);
        }
      }),
    );
    clearInterval(sampler);
    const elapsed = (performance.now() - start) / 1000;
    const aloneAfter = await alone();
    const afterSoak = scrape(await metricsText());
    const holds = holdsBetween(beforeSoak.holds, afterSoak.holds);
    log(`  mixed load: ${holds.count} connection checkouts held ${holds.totalMs.toFixed(0)} ms in all, ${holds.over10} over 10 ms, ${holds.over50} over 50 ms`);

    const operationsStats = ops.map(([name], index) => {
      const mine = samples.filter((s) => s.op === index);
      const ms = mine.map((s) => s.ms).sort((a, b) => a - b);
      return { op: name, count: mine.length, errors: mine.filter((s) => !s.ok).length, p50: percentile(ms, 50), p99: percentile(ms, 99) };
    });
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
    const warm = Math.min(60, soakSeconds / 3);
    const afterWarmup = mean(rss.filter((r) => r.t >= warm && r.t < warm + 30).map((r) => r.mb));
    const end = mean(rss.filter((r) => r.t >= soakSeconds - 30).map((r) => r.mb));
    for (const [index, error] of firstError) log(`  mixed load: ${ops[index]![0]} failed: ${error}`);
    log(`  mixed load: ${samples.length} requests in ${elapsed.toFixed(0)} s; ${receiver.received()} webhook deliveries received`);
    return {
      database: o.databaseUrl ? 'postgres' : 'pglite',
      label: o.label ?? (o.databaseUrl ? 'postgres' : 'pglite'),
      capacity,
      soakRate: rate,
      achievedRate: samples.length / elapsed,
      operations: operationsStats,
      holds,
      eventLoop: {
        p99Ms: 1000 * (afterSoak.gauges.get('nodejs_eventloop_lag_p99_seconds') ?? 0),
        maxMs: 1000 * (afterSoak.gauges.get('nodejs_eventloop_lag_max_seconds') ?? 0),
      },
      upkeep: {
        runs: (afterSoak.gauges.get('upkeep_runs') ?? 0) - (beforeSoak.gauges.get('upkeep_runs') ?? 0),
        vacuumed: (afterSoak.gauges.get('upkeep_vacuum') ?? 0) - (beforeSoak.gauges.get('upkeep_vacuum') ?? 0),
        analyzed: (afterSoak.gauges.get('upkeep_analyze') ?? 0) - (beforeSoak.gauges.get('upkeep_analyze') ?? 0),
        ms: 1000 * ((afterSoak.gauges.get('upkeep_seconds') ?? 0) - (beforeSoak.gauges.get('upkeep_seconds') ?? 0)),
      },
      rss: {
        startupMb,
        afterWarmupMb: afterWarmup,
        endMb: end,
        peakMb: Math.max(0, ...rss.map((r) => r.mb)),
        growthPercent: afterWarmup ? (100 * (end - afterWarmup)) / afterWarmup : 0,
      },
      alone: ops.map(([op], i) => ({ op, beforeMs: aloneBefore[i]!, afterMs: aloneAfter[i]! })),
    };
  } finally {
    await openPool?.close().catch(() => undefined);
    await service?.stop();
    await receiver.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  }
}

const CAPACITY_TARGET = 225;
const P99_TARGET_MS = 50;
const RSS_GROWTH_TARGET = 3;

/** The result as markdown tables, with `met` columns for the PGlite targets of issue 28. */
export function renderMixedLoad(results: MixedLoadResult[]): string {
  const lines = [
    `### Mixed load (11 operations, ${CLIENTS} clients, background duties on): capacity, then 80 % of it`,
    '',
    '| database | capacity | target | met | soak rate (achieved) | RSS at start-up | RSS after warm-up | RSS at end | peak | growth | target | met |',
    '|---|---:|---|---|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const r of results) {
    const pglite = r.database === 'pglite';
    lines.push(
      `| ${r.label} | ${r.capacity.toFixed(0)} req/s | ${pglite ? `>= ${CAPACITY_TARGET}` : 'reported'} | ${pglite ? (r.capacity >= CAPACITY_TARGET ? 'met' : 'not met') : ''} | ${r.soakRate.toFixed(0)} (${r.achievedRate.toFixed(0)}) req/s | ${r.rss.startupMb.toFixed(0)} MB | ${r.rss.afterWarmupMb.toFixed(0)} MB | ${r.rss.endMb.toFixed(0)} MB | ${r.rss.peakMb.toFixed(0)} MB | ${r.rss.growthPercent.toFixed(1)} % | ${pglite ? `<= ${RSS_GROWTH_TARGET} %` : 'reported'} | ${pglite ? (r.rss.growthPercent <= RSS_GROWTH_TARGET ? 'met' : 'not met') : ''} |`,
    );
  }
  lines.push('', '| operation | ' + results.map((r) => `${r.label} p50 | ${r.label} p99 | errors`).join(' | ') + ' | target (PGlite p99) | met |');
  lines.push('|---|' + results.map(() => '---:|---:|---:').join('|') + '|---|---|');
  const names = results[0]?.operations.map((o) => o.op) ?? [];
  for (const name of names) {
    const cells = results.map((r) => {
      const s = r.operations.find((o) => o.op === name)!;
      return `${s.p50.toFixed(1)} ms | ${s.p99.toFixed(1)} ms | ${s.errors}/${s.count}`;
    });
    const p = results.find((r) => r.database === 'pglite')?.operations.find((o) => o.op === name);
    lines.push(`| ${name} | ${cells.join(' | ')} | <= ${P99_TARGET_MS} ms | ${p ? (p.p99 <= P99_TARGET_MS ? 'met' : 'not met') : ''} |`);
  }
  // Each operation alone (one request at a time) before the capacity run and after the soak: how the load's writes grew
  // the cost of the operations that read them.
  lines.push('', 'Each operation alone (one request at a time, mean of 30), before the capacity run (after a warm-up pass) and after the soak:', '');
  lines.push('| operation | ' + results.map((r) => `${r.label} before | ${r.label} after`).join(' | ') + ' |');
  lines.push('|---|' + results.map(() => '---:|---:').join('|') + '|');
  for (const name of names) {
    const cells = results.map((r) => {
      const a = r.alone.find((x) => x.op === name)!;
      return `${a.beforeMs.toFixed(2)} ms | ${a.afterMs.toFixed(2)} ms`;
    });
    lines.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  // How long checkouts held the database connection during the soak (db_connection_hold_seconds), and the event loop's delay.
  for (const r of results) {
    lines.push(
      '',
      `Connection holds during the soak (${r.label}); event-loop delay p99 ${r.eventLoop.p99Ms.toFixed(1)} ms, max ${r.eventLoop.maxMs.toFixed(1)} ms:`,
      '',
      '| checkouts | held in all | mean | over 10 ms | over 50 ms |',
      '|---:|---:|---:|---:|---:|',
      `| ${r.holds.count} | ${r.holds.totalMs.toFixed(0)} ms | ${(r.holds.totalMs / Math.max(1, r.holds.count)).toFixed(2)} ms | ${r.holds.over10} | ${r.holds.over50} |`,
    );
  }
  if (new Set(results.map((r) => r.label.replace(/ #\d+$/, ''))).size > 1) lines.push('', renderSideBySide(results));
  return lines.join('\n');
}

/** Each service's runs (labels `<name> #<round>`) in one row: capacities, their median, the deviation alone, the upkeep. */
export function renderSideBySide(results: MixedLoadResult[]): string {
  const groups = new Map<string, MixedLoadResult[]>();
  for (const r of results) {
    const name = r.label.replace(/ #\d+$/, '');
    groups.set(name, [...(groups.get(name) ?? []), r]);
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const deviation = (r: MixedLoadResult) => r.alone.find((a) => a.op === 'deviation');
  const lines = [
    'Side by side (runs interleaved; the deviation alone: median of the runs, before the capacity run and after the soak):',
    '',
    '| service | capacity of each run | median | deviation alone before | after | upkeep during the soak (runs, vacuums, analyzes, ms) |',
    '|---|---|---:|---:|---:|---|',
  ];
  for (const [name, rs] of groups) {
    const upkeep = rs.map((r) => `${r.upkeep.runs}, ${r.upkeep.vacuumed}, ${r.upkeep.analyzed}, ${r.upkeep.ms.toFixed(0)}`).join('; ');
    lines.push(
      `| ${name} | ${rs.map((r) => r.capacity.toFixed(0)).join(', ')} req/s | ${median(rs.map((r) => r.capacity)).toFixed(0)} req/s | ` +
        `${median(rs.map((r) => deviation(r)?.beforeMs ?? 0)).toFixed(2)} ms | ${median(rs.map((r) => deviation(r)?.afterMs ?? 0)).toFixed(2)} ms | ${upkeep} |`,
    );
  }
  return lines.join('\n');
}

/** A checkout's commit (short), `+` when it has changes not committed. */
function checkoutName(dir: string): string {
  const git = (...args: string[]) => spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).stdout.trim();
  return `${git('log', '-1', '--format=%h') || dir}${git('status', '--porcelain', '--untracked-files=no') ? '+' : ''}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const pgAt = argv.indexOf('--postgres');
  const quick = argv.includes('--quick');
  const valuesOf = (flag: string) => argv.flatMap((a, i) => (a === flag && argv[i + 1] ? [argv[i + 1]!] : []));
  const against = valuesOf('--against');
  const rounds = Math.max(1, Number(valuesOf('--rounds')[0] ?? 1));
  const results: MixedLoadResult[] = [];
  if (against.length === 0 && rounds === 1) results.push(await runMixedLoad({ quick }));
  else {
    const here = `pglite ${checkoutName(thisTree.ROOT)}`;
    for (let round = 1; round <= rounds; round++) {
      results.push(await runMixedLoad({ quick, label: `${here} #${round}` }));
      for (const dir of against) results.push(await runMixedLoad({ quick, checkout: dir, label: `pglite ${checkoutName(dir)} #${round}` }));
      console.error(
        `  mixed load: round ${round}: ${results
          .slice(-1 - against.length)
          .map((r) => `${r.label} ${r.capacity.toFixed(0)} req/s`)
          .join(', ')}`,
      );
    }
  }
  const sb = argv.indexOf('--shared-buffers');
  if (sb >= 0) {
    const size = argv[sb + 1]!;
    results.push(await runMixedLoad({ quick, env: { PGLITE_SHARED_BUFFERS: size }, label: `pglite, shared_buffers ${size}` }));
  }
  if (pgAt >= 0) results.push(await runMixedLoad({ quick, databaseUrl: argv[pgAt + 1] }));
  console.log(renderMixedLoad(results));
}
