/**
 * The work-item core at scale (contract 24), part of `npm run bench` (alone: `npm run bench -- --work-item-core`, or
 * `npx tsx bench/work-item-core.ts [--quick] [--keep] [--only=bulk|labels|create] [--profile] [--write] [--render]`), on
 * DATABASE_URL's server in a scratch database `<db>_wicbench`, through the real server as a child process
 * (bench/server.ts, as `npm run bench` starts it; jobs off):
 * 1. `bulk`: POST .../issues/bulk/ moving 500 open issues to a `started` state in a workspace with a default SLA policy
 *    (rules for urgent..low, every chosen issue has an applicable tracker): response, history, re-targeting, kept
 *    counts and one `issue.updated` each. A fresh set of 500 per request; median and p95 of the runs, target <= 1 s.
 *    Then 500 single PATCHes of the same change (another fresh set), one after the other, for comparison.
 * 2. `labels`: the issue list filtered by one label in a project of 1,000,000 issues (quick 100,000) with 29 labels
 *    drawn Zipf-like (0-3 per issue, the top label on about a quarter) and one rare label only on the oldest tenth
 *    (a reference: a label that went out of use). First page with its exact total, sequential requests in
 *    round-robin over the variants, p95 target <= 50 ms; label + state_group (counted, not kept) for reference. The
 *    statements are captured from the repository (Kysely's query log) and EXPLAIN ANALYZEd with the label's value
 *    (the custom plan) and as a prepared statement's generic plan (what a named statement may settle on after five runs).
 * 3. `create`: POST create issue with 3 labels and a parent against without, autocannon, same server, same project,
 *    interleaved rounds; target with/without >= 0.9.
 * `--profile` writes a V8 CPU profile of the server to $TMPDIR/wis-bench-profiles/; `--write` (and the runner's
 * `--work-item-core`) puts the section into bench/results/latest.md and the figures into work-item-core.json; `--render`
 * re-renders that section from the json.
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { backendsCpu, cpuSince, type ServerChild, startServer } from './bench-server.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Database } from '../src/db/schema.js';
import { slaRepository } from '../src/modules/sla/index.js';
import { workItemsRepository } from '../src/modules/work-items/index.js';
import { insertTrial, insertUserWithToken, insertWorkspace, seedWorkspace } from './seed.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const RESULTS = join(ROOT, 'bench', 'results');
const SECTION = '## Work-item core at scale';
const log = (...a: unknown[]) => console.error(...a);
const round1 = (v: number) => Math.round(v * 10) / 10;
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! : NaN;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2 : NaN;
};
/** Ratios cut, not rounded, to two decimals (0.898 is 0.89, never a "0.90" that missed 0.9). */
const f2 = (v: number) => (Math.floor(v * 100) / 100).toFixed(2);
const n0 = (v: number) => v.toLocaleString('en');

// ---- the server under test and the CPU it spends ------------------------------------------------------------------

async function api<T = any>(base: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

// ---- results ------------------------------------------------------------------------------------------------------

export interface WorkItemCoreData {
  date: string;
  commit: string;
  quick: boolean;
  loadStart: string;
  loadEnd?: string;
  bulk?: {
    issues: number;
    runs: number[];
    medianMs: number;
    p95Ms: number;
    serverCpuMs: number;
    postgresCpuMs: number;
    /** Absent when profiling. */
    patch?: { total: number; totalMs: number; medianMs: number; p95Ms: number; serverCpuMs: number; postgresCpuMs: number };
    met: boolean;
  };
  labels?: {
    issues: number;
    seedSeconds: number;
    variants: { name: string; query: string; issues: number; total: number; p50Ms: number; p95Ms: number; maxMs: number; target: boolean; met?: boolean }[];
    plans: { name: string; statement: string; mode: 'custom' | 'generic'; executionMs: number; planningMs: number; text: string }[];
    /** plan_cache_mode auto: a prepared page statement run five times with one label, then EXPLAIN ANALYZEd with another. */
    auto: { warmedWith: string; then: string; plan: 'custom' | 'generic'; executionMs: number; summary: string }[];
    met: boolean;
  };
  create?: {
    plain: { rps: number; p50: number; p99: number; cpuUsPerReq: number; requests: number; bad: number };
    labelled: { rps: number; p50: number; p99: number; cpuUsPerReq: number; requests: number; bad: number };
    ratio: number;
    met: boolean;
  };
}

// ---- 1. bulk edit -------------------------------------------------------------------------------------------------

async function benchBulk(
  ctx: Ctx,
  quick: boolean,
  withPatches: boolean,
): Promise<NonNullable<WorkItemCoreData['bulk']> & { project: string; slug: string; labels: string[] }> {
  const { q, server, owner, now } = ctx;
  const issues = quick ? 20_000 : 60_000;
  const runs = quick ? 3 : 12;
  const slug = 'wic-bulk';
  const ws = await insertWorkspace(q, owner.userId, slug, now);
  await insertTrial(q, ws, now);
  const [project] = await seedWorkspace(q, {
    workspaceId: ws,
    ownerId: owner.userId,
    projects: [{ identifier: 'BULK', issues }],
    comments: 0,
    trackers: true,
    customValues: false,
    members: 4,
    now,
    label: `bulk ${n0(issues)} issues, trackers`,
    labels: 20,
  });
  await q('VACUUM (ANALYZE) issues');
  await q('VACUUM (ANALYZE) sla_trackers');
  await ctx.settle();
  const started = (await q(`SELECT id FROM states WHERE project_id = $1 AND "group" = 'started'`, [project!.id])).rows[0]!.id as string;
  // Open issues with an applicable tracker (priority urgent..low: the policy has a rule for each), in a scattered order.
  const candidates = (
    await q(
      `SELECT i.id FROM issues i JOIN sla_trackers t ON t.workspace_id = i.workspace_id AND t.issue_id = i.id
       WHERE i.workspace_id = $1 AND i.project_id = $2 AND i.state_group IN ('backlog', 'unstarted') AND t.policy_id IS NOT NULL
         AND t.responded_at IS NULL AND t.resolved_at IS NULL
       ORDER BY hashint4(i.sequence_id), i.id`,
      [ws, project!.id],
    )
  ).rows.map((r) => r.id as string);
  const sets: string[][] = [];
  for (let i = 0; i + 500 <= candidates.length; i += 500) sets.push(candidates.slice(i, i + 500));
  if (sets.length < runs + 3) throw new Error(`only ${candidates.length} open issues with trackers: ${sets.length} sets of 500, ${runs + 3} needed`);
  const path = `/api/workspaces/${slug}/projects/${project!.id}/issues/bulk/`;
  const bulk = async (ids: string[]) => {
    const res = await api<{ updated: number; issues: { state_id: string }[] }>(server.base, owner.token, 'POST', path, {
      issue_ids: ids,
      set: { state_id: started },
    });
    if (res.updated !== ids.length || res.issues.some((i) => i.state_id !== started)) throw new Error(`bulk edit answered ${res.updated} updated`);
  };
  log(`  bulk: ${runs} runs of 500 issues (of ${n0(candidates.length)} open with trackers)`);
  await bulk(sets[0]!); // warm-up: the server's statements prepared, the pages read
  const times: number[] = [];
  let serverCpu = 0;
  let pgCpu = 0;
  for (let r = 1; r <= runs; r++) {
    const [s0, p0] = [server.cpuMs(), ctx.pgCpu()];
    const t0 = performance.now();
    await bulk(sets[r]!);
    times.push(performance.now() - t0);
    serverCpu += server.cpuMs() - s0;
    pgCpu += cpuSince(p0, ctx.pgCpu());
    log(`    run ${r}: ${round1(times.at(-1)!)} ms`);
  }
  // Each issue as a PATCH would change it: history, response recorded, targets re-computed, an event each.
  const moved = sets.slice(1, runs + 1).flat();
  const check = (
    await q(
      `SELECT (SELECT count(*) FROM sla_trackers WHERE workspace_id = $1 AND issue_id = ANY($2::uuid[]) AND responded_at IS NOT NULL)::int AS responded,
              (SELECT count(*) FROM issue_history WHERE workspace_id = $1 AND issue_id = ANY($2::uuid[]) AND kind = 'state')::int AS history,
              (SELECT count(*) FROM events WHERE workspace_id = $1 AND type = 'issue.updated')::int AS events`,
      [ws, moved],
    )
  ).rows[0]!;
  const expected = moved.length + 500;
  if (check.responded !== moved.length || check.history !== moved.length || check.events !== expected) {
    throw new Error(`after the bulk edits: ${JSON.stringify(check)}, expected ${moved.length} responded and history rows, ${expected} events`);
  }

  // 500 single PATCHes of the same change, one after the other (20 of another set first, as the warm-up); left out
  // when profiling, so that the server's profile holds the bulk requests alone.
  const patch = (id: string) => api(server.base, owner.token, 'PATCH', `/api/workspaces/${slug}/projects/${project!.id}/issues/${id}/`, { state_id: started });
  let patches: NonNullable<WorkItemCoreData['bulk']>['patch'];
  if (withPatches) {
    for (const id of sets[runs + 2]!.slice(0, 20)) await patch(id);
    const single: number[] = [];
    const [s0, p0] = [server.cpuMs(), ctx.pgCpu()];
    const t0 = performance.now();
    for (const id of sets[runs + 1]!) {
      const t = performance.now();
      await patch(id);
      single.push(performance.now() - t);
    }
    patches = {
      total: single.length,
      totalMs: Math.round(performance.now() - t0),
      medianMs: round1(median(single)),
      p95Ms: round1(quantile(single, 0.95)),
      serverCpuMs: Math.round(server.cpuMs() - s0),
      postgresCpuMs: Math.round(cpuSince(p0, ctx.pgCpu())),
    };
  }
  const result = {
    slug,
    project: project!.id,
    labels: project!.labels,
    issues,
    runs: times.map(round1),
    medianMs: round1(median(times)),
    p95Ms: round1(quantile(times, 0.95)),
    serverCpuMs: Math.round(serverCpu / runs),
    postgresCpuMs: Math.round(pgCpu / runs),
    ...(patches && { patch: patches }),
    met: quantile(times, 0.95) <= 1000,
  };
  log(`  bulk: median ${result.medianMs} ms, p95 ${result.p95Ms} ms${patches ? `; 500 PATCHes ${patches.totalMs} ms` : ''}`);
  return result;
}

// ---- 2. the list filtered by a label ----------------------------------------------------------------------------

/** A SQL literal of a captured parameter (for EXECUTE of a prepared statement). */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof Date) return `'${v.toISOString()}'`;
  if (Array.isArray(v)) return `'{${v.map((x) => `"${String(x)}"`).join(',')}}'`;
  return `'${String(v).replaceAll("'", "''")}'`;
}

async function benchLabels(ctx: Ctx, quick: boolean): Promise<NonNullable<WorkItemCoreData['labels']>> {
  const { q, server, owner, now } = ctx;
  const issues = quick ? 100_000 : 1_000_000;
  const reps = quick ? 40 : 200;
  const slug = 'wic-labels';
  const ws = await insertWorkspace(q, owner.userId, slug, now);
  await insertTrial(q, ws, now);
  const t0 = performance.now();
  const [project] = await seedWorkspace(q, {
    workspaceId: ws,
    ownerId: owner.userId,
    projects: [{ identifier: 'LBL', issues }],
    comments: 0,
    trackers: false,
    customValues: false,
    members: 4,
    now,
    label: `labels ${n0(issues)} issues`,
    labels: 29,
  });
  const projectId = project!.id;
  // One more label, on 1 % of the oldest tenth only (0.1 % of the project): a label that went out of use. Added by
  // UPDATE, so the row trigger keeps its count as a PATCH would.
  const retired = (
    await q(
      `INSERT INTO labels (id, workspace_id, project_id, name, name_key, color, description, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, 'imported-2024', 'imported-2024', '#808080', '', $3, $3) RETURNING id`,
      [ws, projectId, now],
    )
  ).rows[0]!.id as string;
  await q(
    `UPDATE issues SET label_ids = ARRAY(SELECT DISTINCT l FROM unnest(label_ids || $3::uuid) l ORDER BY 1)
     WHERE workspace_id = $1 AND project_id = $2 AND sequence_id <= $4 AND sequence_id % 100 = 0`,
    [ws, projectId, retired, Math.floor(issues / 10)],
  );
  await ctx.settle();
  await q('VACUUM (ANALYZE) issues');
  await q('ANALYZE labels');
  await q('VACUUM (ANALYZE) label_issue_counts');
  const seedSeconds = round1((performance.now() - t0) / 1000);
  const counted = async (labelId: string) =>
    Number(
      (await q(`SELECT count(*) AS n FROM issues WHERE workspace_id = $1 AND project_id = $2 AND label_ids @> ARRAY[$3::uuid]`, [ws, projectId, labelId]))
        .rows[0]!.n,
    );
  const kept = (await q(`SELECT count(*)::int AS n FROM label_issue_counts`)).rows[0]!.n as number;
  const labels = project!.labels;
  const picks: [string, string][] = [
    ['common label', labels[0]!],
    ['mid label', labels[5]!],
    ['rare label', labels[labels.length - 1]!],
    ['rare label, oldest tenth only', retired],
  ];
  const W = `/api/workspaces/${slug}/projects/${projectId}/issues/`;
  const variants: { name: string; query: string; issues: number; target: boolean }[] = [];
  for (const [name, id] of picks) variants.push({ name, query: `?label_id=${id}`, issues: await counted(id), target: true });
  variants[3]!.target = false;
  variants.push({ name: 'common label + state_group=started', query: `?label_id=${labels[0]}&state_group=started`, issues: 0, target: false });
  variants.push({ name: 'rare label + state_group=started', query: `?label_id=${labels[labels.length - 1]}&state_group=started`, issues: 0, target: false });
  variants.push({ name: 'no filter (the kept project count)', query: '', issues, target: false });
  for (const v of variants.slice(4, 6)) {
    const [labelId] = /label_id=([0-9a-f-]+)/.exec(v.query)!.slice(1);
    v.issues = Number(
      (
        await q(`SELECT count(*) AS n FROM issues WHERE workspace_id = $1 AND project_id = $2 AND label_ids @> ARRAY[$3::uuid] AND state_group = 'started'`, [
          ws,
          projectId,
          labelId,
        ])
      ).rows[0]!.n,
    );
  }
  log(`  labels: ${n0(issues)} issues seeded in ${seedSeconds} s; ${kept} kept count rows; ${variants.map((v) => `${v.name} ${n0(v.issues)}`).join(', ')}`);
  // The exact total first (the kept count for a label alone), then warm-up, then round-robin timing.
  const get = async (v: (typeof variants)[number]) => {
    const res = await fetch(server.base + W + v.query, { headers: { authorization: `Bearer ${owner.token}` } });
    const body = (await res.json()) as { total: number; results: unknown[] };
    if (res.status !== 200) throw new Error(`GET ${W}${v.query}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    return body;
  };
  for (const v of variants) {
    const body = await get(v);
    if (body.total !== v.issues) throw new Error(`${v.name}: the list's total is ${body.total}, the issues carrying it ${v.issues}`);
    if (body.results.length !== Math.min(20, v.issues)) throw new Error(`${v.name}: ${body.results.length} results`);
  }
  for (let i = 0; i < 12; i++) for (const v of variants) await get(v);
  const samples = variants.map(() => [] as number[]);
  for (let i = 0; i < reps; i++) {
    for (const [k, v] of variants.entries()) {
      const t = performance.now();
      await get(v);
      samples[k]!.push(performance.now() - t);
    }
  }
  const measured = variants.map((v, k) => ({
    ...v,
    total: v.issues,
    p50Ms: round1(median(samples[k]!)),
    p95Ms: round1(quantile(samples[k]!, 0.95)),
    maxMs: round1(Math.max(...samples[k]!)),
    ...(v.target && { met: quantile(samples[k]!, 0.95) <= 50 }),
  }));
  for (const m of measured) log(`    ${m.name} (${n0(m.issues)}): p50 ${m.p50Ms} ms, p95 ${m.p95Ms} ms, max ${m.maxMs} ms`);

  // The statements of the list, as the repository writes them, EXPLAIN ANALYZEd: with the value (custom plan) and
  // as a prepared statement's generic plan.
  const pool = new pg.Pool({ connectionString: ctx.url, max: 1 });
  let captured: { sql: string; parameters: readonly unknown[] }[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query') captured.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  const plans: NonNullable<WorkItemCoreData['labels']>['plans'] = [];
  const auto: NonNullable<WorkItemCoreData['labels']>['auto'] = [];
  try {
    const repo = workItemsRepository();
    for (const [name, labelId] of [picks[0]!, picks[2]!, picks[3]!]) {
      captured = [];
      await repo.listIssues(db, ws, projectId, { conditions: [], labelIds: [labelId] }, { offset: 0, per_page: 20 });
      const statements = captured.map((c) => ({ ...c, kind: /order by/i.test(c.sql) ? 'page' : 'total' }));
      for (const st of statements) {
        const client = await pool.connect();
        try {
          const custom = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${st.sql}`, [...st.parameters]);
          const text = custom.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
          plans.push({ name, statement: st.kind, mode: 'custom', ...timesOf(text), text });
          await client.query('SET plan_cache_mode = force_generic_plan');
          await client.query(`PREPARE wic_plan AS ${st.sql}`);
          const generic = await client.query(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE wic_plan(${st.parameters.map(literal).join(', ')})`);
          const gtext = generic.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
          plans.push({ name, statement: st.kind, mode: 'generic', ...timesOf(gtext), text: gtext });
        } finally {
          await client.query('DEALLOCATE ALL').catch(() => undefined);
          await client.query('RESET plan_cache_mode').catch(() => undefined);
          client.release();
        }
      }
    }
    // What a named statement of the server does under plan_cache_mode auto: five custom plans with one label, then
    // PostgreSQL compares the generic plan's cost with their average and may keep the generic one for every label.
    captured = [];
    const page = (labelId: string) => {
      captured = [];
      return repo
        .listIssues(db, ws, projectId, { conditions: [], labelIds: [labelId] }, { offset: 0, per_page: 20 })
        .then(() => captured.find((c) => /order by/i.test(c.sql))!);
    };
    for (const [warmName, warmId] of [picks[0]!, picks[2]!, picks[3]!]) {
      for (const [thenName, thenId] of [picks[0]!, picks[2]!]) {
        const warm = await page(warmId);
        const then = await page(thenId);
        const client = await pool.connect();
        try {
          await client.query(`PREPARE wic_auto AS ${warm.sql}`);
          for (let i = 0; i < 5; i++) await client.query(`EXECUTE wic_auto(${warm.parameters.map(literal).join(', ')})`);
          const r = await client.query(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE wic_auto(${then.parameters.map(literal).join(', ')})`);
          const text = r.rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n');
          auto.push({
            warmedWith: warmName,
            then: thenName,
            plan: /\$\d/.test(text) ? 'generic' : 'custom',
            executionMs: timesOf(text).executionMs,
            summary: planSummary(text),
          });
        } finally {
          await client.query('DEALLOCATE ALL').catch(() => undefined);
          client.release();
        }
      }
    }
  } finally {
    await db.destroy();
  }
  for (const a of auto) log(`    auto: 5 x ${a.warmedWith}, then ${a.then}: ${a.plan} plan, ${a.executionMs} ms`);
  for (const p of plans) log(`    plan ${p.name} ${p.statement} (${p.mode}): execution ${p.executionMs} ms, planning ${p.planningMs} ms`);
  return { issues, seedSeconds, variants: measured, plans, auto, met: measured.every((m) => m.met !== false) };
}

function timesOf(plan: string) {
  const ms = (re: RegExp) => Number(re.exec(plan)?.[1] ?? NaN);
  return { executionMs: ms(/Execution Time: ([\d.]+) ms/), planningMs: ms(/Planning Time: ([\d.]+) ms/) };
}

// ---- 3. create with labels and a parent -------------------------------------------------------------------------

async function benchCreate(
  ctx: Ctx,
  quick: boolean,
  target: { slug: string; project: string; labels: string[] },
): Promise<NonNullable<WorkItemCoreData['create']>> {
  const { q, server, owner } = ctx;
  const seconds = quick ? 3 : 20;
  const path = `/api/workspaces/${target.slug}/projects/${target.project}/issues/`;
  const parents = (await q(`SELECT id FROM issues WHERE project_id = $1 ORDER BY hashint4(sequence_id) LIMIT 50`, [target.project])).rows.map(
    (r) => r.id as string,
  );
  const L = target.labels;
  if (L.length < 20) throw new Error('the project needs 20 labels');
  const priority = (n: number) => ['urgent', 'high', 'medium', 'low', 'none'][n % 5];
  const bodies = {
    plain: (n: number) => ({ name: `Bench issue ${n}`, priority: priority(n) }),
    labelled: (n: number) => ({
      name: `Bench issue ${n}`,
      priority: priority(n),
      label_ids: [L[n % 20]!, L[(n + 7) % 20]!, L[(n + 13) % 20]!],
      parent_id: parents[n % parents.length]!,
    }),
  };
  const cannon = async (side: keyof typeof bodies, secs: number) => {
    let n = 0;
    const cpu0 = server.cpuMs();
    const result = await autocannon({
      url: server.base,
      connections: 10,
      duration: secs,
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      requests: [{ method: 'POST', setupRequest: (req: any) => ({ ...req, method: 'POST', path, body: JSON.stringify(bodies[side](n++)) }) }],
    });
    return {
      requests: result.requests.total,
      seconds: result.duration || secs,
      p50: result.latency.p50,
      p99: result.latency.p99,
      bad: result.non2xx + result.errors + result.timeouts,
      cpuMs: server.cpuMs() - cpu0,
    };
  };
  const probe = await api<{ label_ids: string[]; parent_id: string }>(server.base, owner.token, 'POST', path, bodies.labelled(0));
  if (probe.label_ids.length !== 3 || probe.parent_id !== parents[0]) throw new Error(`create with labels answered ${JSON.stringify(probe).slice(0, 200)}`);
  await cannon('plain', quick ? 1 : 2);
  await cannon('labelled', quick ? 1 : 2);
  const runs = { plain: [] as Awaited<ReturnType<typeof cannon>>[], labelled: [] as Awaited<ReturnType<typeof cannon>>[] };
  // Interleaved rounds (ABBA BAAB): a change of background load hits both sides alike.
  const rounds: (keyof typeof bodies)[][] = quick
    ? [['plain', 'labelled']]
    : [
        ['plain', 'labelled'],
        ['labelled', 'plain'],
        ['labelled', 'plain'],
        ['plain', 'labelled'],
      ];
  for (const order of rounds) for (const side of order) runs[side].push(await cannon(side, seconds / rounds.length));
  const merge = (xs: Awaited<ReturnType<typeof cannon>>[]) => {
    const requests = xs.reduce((a, x) => a + x.requests, 0);
    return {
      rps: Math.round(requests / xs.reduce((a, x) => a + x.seconds, 0)),
      p50: median(xs.map((x) => x.p50)),
      p99: median(xs.map((x) => x.p99)),
      cpuUsPerReq: Math.round((xs.reduce((a, x) => a + x.cpuMs, 0) * 1000) / requests),
      requests,
      bad: xs.reduce((a, x) => a + x.bad, 0),
    };
  };
  const plain = merge(runs.plain);
  const labelled = merge(runs.labelled);
  const ratio = labelled.rps / plain.rps;
  const wrong = (
    await q(
      `SELECT count(*)::int AS n FROM issues WHERE project_id = $1 AND name LIKE 'Bench issue %' AND parent_id IS NOT NULL AND cardinality(label_ids) <> 3`,
      [target.project],
    )
  ).rows[0]!.n as number;
  if (wrong) throw new Error(`${wrong} created issues with a parent do not have 3 labels`);
  log(`  create: with 3 labels and a parent ${labelled.rps}/s, without ${plain.rps}/s: ${f2(ratio)}`);
  return { plain, labelled, ratio, met: ratio >= 0.9 && !plain.bad && !labelled.bad };
}

// ---- the run ------------------------------------------------------------------------------------------------------

interface Ctx {
  url: string;
  q: (text: string, values?: readonly unknown[]) => Promise<{ rows: any[]; rowCount: number }>;
  server: ServerChild;
  owner: { userId: string; token: string };
  now: Date;
  /** CPU time of the scratch database's backends, per process. */
  pgCpu(): Map<number, number>;
  /** What the jobs would have done after the seed: the SLA counts brought up, the label counts folded. */
  settle(): Promise<void>;
}

export async function runWorkItemCore({
  databaseUrl,
  quick,
  keep = false,
  only,
  profile = false,
}: {
  databaseUrl: string;
  quick: boolean;
  keep?: boolean;
  /** one part alone: bulk | labels | create (create needs the bulk workspace, so it seeds it too) */
  only?: string;
  profile?: boolean;
}): Promise<{ data: WorkItemCoreData; markdown: string }> {
  const url = new URL(databaseUrl);
  const name = `${url.pathname.slice(1) || 'postgres'}_wicbench`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
  const raw = new pg.Pool({ connectionString: url.toString(), max: 2 });
  const data: WorkItemCoreData = {
    date: new Date().toISOString(),
    commit: commitOf(),
    quick,
    loadStart: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
  let server: ServerChild | undefined;
  try {
    await migrateToLatest(handle.db);
    server = await startServer(url.toString(), profile);
    const q: Ctx['q'] = async (text, values = []) => {
      const r = await raw.query(text, [...values]);
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    };
    const now = new Date();
    const ctx: Ctx = {
      url: url.toString(),
      q,
      server,
      owner: await insertUserWithToken(q, 'wic-owner@bench.example', now),
      now,
      pgCpu: () => backendsCpu(name),
      async settle() {
        const at = new Date();
        await handle.db.transaction().execute((tx) => slaRepository().advanceCounts(tx, at, at, 1000));
        while ((await handle.db.transaction().execute((tx) => workItemsRepository().foldLabelCounts(tx, 1000))) > 0) {
          /* until every label has one row */
        }
      },
    };
    log(`Work-item core (PostgreSQL, scratch database ${name}):`);
    if (!only || only === 'bulk' || only === 'create') {
      const bulk = await benchBulk(ctx, quick, !profile);
      if (only !== 'create') data.bulk = bulk;
      if (!only || only === 'create') data.create = await benchCreate(ctx, quick, bulk);
    }
    if (!only || only === 'labels') data.labels = await benchLabels(ctx, quick);
  } finally {
    await server?.stop();
    await raw.end();
    await handle.close();
    if (!keep) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    else log(`  kept ${url.toString()}`);
    await admin.end();
  }
  data.loadEnd = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return { data, markdown: render(data, only) };
}

function commitOf(): string {
  try {
    return execSync('git rev-parse --short HEAD', { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return '';
  }
}

export function render(d: WorkItemCoreData, only?: string): string {
  const yes = (met: boolean) => (met ? 'yes' : 'no');
  const out = [
    `${SECTION} (PostgreSQL; contract 24)`,
    '',
    `${d.date} · ${d.quick ? 'quick' : 'full'} · commit ${d.commit} · load average at start ${d.loadStart}, at end ${d.loadEnd ?? ''} · ` +
      `\`npm run bench -- --work-item-core${d.quick ? ' --quick' : ''}\`${only ? ` (\`--only=${only}\`)` : ''}; the real server as a child process (bench/server.ts), jobs off.`,
    '',
  ];
  if (d.bulk) {
    const b = d.bulk;
    out.push(
      `### Bulk edit of 500 issues: a state change that re-targets their SLA trackers`,
      '',
      `A project of ${n0(b.issues)} issues with a tracker each, the workspace's default policy with rules for urgent..low; each request moves 500 other open issues (priority urgent..low, tracker applicable, not responded) to \`In Progress\`: history, response recorded, targets re-computed, one \`issue.updated\` each (checked after the runs). ${b.runs.length} runs after one warm-up, one request at a time.`,
      '',
      '| measure | value | target | met |',
      '|---|---|---|---|',
      `| POST .../issues/bulk/, 500 issues | median ${b.medianMs} ms, p95 ${b.p95Ms} ms (runs: ${b.runs.join(', ')}) | p95 <= 1000 ms | ${yes(b.met)} |`,
      `| CPU per bulk request: the server / the PostgreSQL backends of the scratch database | ${b.serverCpuMs} ms / ${b.postgresCpuMs} ms | (info) | |`,
      ...(b.patch
        ? [
            `| 500 single PATCHes of the same change, one after the other | ${n0(b.patch.totalMs)} ms in all (per PATCH median ${b.patch.medianMs} ms, p95 ${b.patch.p95Ms} ms); CPU ${n0(b.patch.serverCpuMs)} / ${n0(b.patch.postgresCpuMs)} ms | (comparison) | |`,
            `| bulk against the PATCHes | ${f2(b.patch.totalMs / b.medianMs)}x faster | (info) | |`,
          ]
        : []),
      '',
    );
  }
  if (d.labels) {
    const l = d.labels;
    out.push(
      `### The issue list filtered by one label: ${n0(l.issues)} issues in the project`,
      '',
      `29 labels drawn Zipf-like (s = 1; 0-3 per issue: 35/35/20/10 %), plus \`imported-2024\` on 1 % of the oldest tenth only; seeded by SQL in ${l.seedSeconds} s (label counts kept by the triggers, folded, then VACUUM ANALYZE). First page (20) with its exact total over HTTP, one request at a time, the variants in turn, ${l.variants.length} x 12 warm-up requests and then the timed ones.`,
      '',
      '| query | issues matching (= total) | share | p50 ms | p95 ms | max ms | target | met |',
      '|---|---:|---:|---:|---:|---:|---|---|',
    );
    for (const v of l.variants) {
      out.push(
        `| ${v.name} | ${n0(v.total)} | ${((100 * v.total) / l.issues).toFixed(2)} % | ${v.p50Ms} | ${v.p95Ms} | ${v.maxMs} | ${v.target ? 'p95 <= 50 ms' : '(reference)'} | ${v.met === undefined ? '' : yes(v.met)} |`,
      );
    }
    out.push(
      '',
      'EXPLAIN (ANALYZE, BUFFERS) of the statements the repository runs for `label_id` alone (captured from its query log), with the value (custom plan) and as a prepared statement with a generic plan (`plan_cache_mode = force_generic_plan`: what a named statement may settle on after five runs):',
      '',
      '| label | statement | plan | execution ms | planning ms | top of the plan |',
      '|---|---|---|---:|---:|---|',
    );
    for (const p of l.plans) out.push(`| ${p.name} | ${p.statement} | ${p.mode} | ${p.executionMs} | ${p.planningMs} | ${planSummary(p.text)} |`);
    if (l.auto.length) {
      out.push(
        '',
        "Under `plan_cache_mode` auto (the server's setting): the page statement prepared, run five times with one label, then EXPLAIN ANALYZEd with another:",
        '',
        '| five runs with | then | plan kept | execution ms | top of the plan |',
        '|---|---|---|---:|---|',
      );
      for (const a of l.auto) out.push(`| ${a.warmedWith} | ${a.then} | ${a.plan} | ${a.executionMs} | ${a.summary} |`);
    }
    out.push('');
    for (const p of l.plans.filter((x) => x.statement === 'page' && /^(common|rare) label$/.test(x.name))) {
      out.push(`<details><summary>${p.name}, page, ${p.mode} plan (${p.executionMs} ms)</summary>`, '', '```', p.text, '```', '', '</details>', '');
    }
  }
  if (d.create) {
    const c = d.create;
    out.push(
      '### POST create issue with 3 labels and a parent against without',
      '',
      `The bulk project (default SLA policy, 20 labels), 10 connections, ${d.quick ? 'one round' : 'four interleaved rounds (ABBA BAAB) of 5 s a side'} on the same server after 2 s of warm-up each; with: 3 of the 20 labels in turn and one of 50 parents in turn.`,
      '',
      '| body | req/s | p50 ms | p99 ms | server CPU µs/req | non-2xx / errors |',
      '|---|---:|---:|---:|---:|---:|',
      `| without labels and parent | ${c.plain.rps} | ${c.plain.p50} | ${c.plain.p99} | ${c.plain.cpuUsPerReq} | ${c.plain.bad} |`,
      `| with 3 labels and a parent | ${c.labelled.rps} | ${c.labelled.p50} | ${c.labelled.p99} | ${c.labelled.cpuUsPerReq} | ${c.labelled.bad} |`,
      '',
      `Ratio with / without: ${f2(c.ratio)} (target >= 0.9): ${c.met ? 'met' : 'not met'}. Server CPU per request without / with (the steadier of the two on a busy machine): ${f2(c.plain.cpuUsPerReq / c.labelled.cpuUsPerReq)}.`,
      '',
    );
  }
  return out.join('\n');
}

/** The plan's nodes in one line: "Limit > Index Scan Backward using issues_sequence_key (rows removed by filter 123)". */
function planSummary(text: string): string {
  const nodes: string[] = [];
  for (const line of text.split('\n')) {
    if (/SubPlan|InitPlan/.test(line)) break; // the derived columns' probes, per row of the page
    const m = /^\s*(?:->\s*)?([A-Z][A-Za-z ]+?(?: using \w+)?(?: on \w+(?: \w+)?)?)\s+\(cost/.exec(line);
    if (m) nodes.push(m[1]!.replace(/ on issues i$| on issues$/, ''));
    if (nodes.length >= 4) break;
  }
  const removed = /Rows Removed by Filter: (\d+)/.exec(text)?.[1];
  const heap = /Heap Blocks: exact=(\d+)/.exec(text)?.[1];
  return `${nodes.join(' > ')}${removed ? ` (rows removed by filter ${n0(Number(removed))})` : ''}${heap ? ` (heap blocks ${n0(Number(heap))})` : ''}`;
}

/**
 * Puts the figures into bench/results/work-item-core.json and, with `section`, the section into latest.md (replacing
 * the previous one: the runner's `--work-item-core` and `--write` of a run alone; a full run of the runner writes
 * latest.md whole).
 */
export function writeResults(result: { data: WorkItemCoreData; markdown: string }, section = true): void {
  writeFileSync(join(RESULTS, 'work-item-core.json'), `${JSON.stringify(result.data, null, 2)}\n`);
  if (!section) return;
  const md = join(RESULTS, 'latest.md');
  const current = existsSync(md) ? readFileSync(md, 'utf8') : '# Benchmark results\n';
  const lines = current.split('\n');
  const start = lines.findIndex((l) => l.startsWith(SECTION));
  let next: string;
  if (start < 0) next = `${current.trimEnd()}\n\n${result.markdown.trimEnd()}\n`;
  else {
    const after = lines.findIndex((l, i) => i > start && /^## /.test(l));
    const tail = after < 0 ? [] : lines.slice(after);
    next = `${[...lines.slice(0, start), ...result.markdown.trimEnd().split('\n'), ...(tail.length ? ['', ...tail] : [])].join('\n').trimEnd()}\n`;
  }
  writeFileSync(md, next);
  log('  wrote bench/results/latest.md (its work-item core section) and bench/results/work-item-core.json');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const databaseUrl = process.env.DATABASE_URL;
  if (process.argv.includes('--render')) {
    // Re-renders the section of latest.md from work-item-core.json (after a change of the report's format).
    const data = JSON.parse(readFileSync(join(RESULTS, 'work-item-core.json'), 'utf8')) as WorkItemCoreData;
    const markdown = render(data);
    writeResults({ data, markdown });
    console.log(markdown);
    process.exit(0);
  }
  if (!databaseUrl) {
    console.error('DATABASE_URL is required (a PostgreSQL server on which a scratch database may be created)');
    process.exit(2);
  }
  runWorkItemCore({
    databaseUrl,
    quick: process.argv.includes('--quick'),
    keep: process.argv.includes('--keep'),
    profile: process.argv.includes('--profile'),
    only: process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length),
  }).then(
    (result) => {
      // A smoke run or one part alone never overwrites the figures of a whole run.
      if (process.argv.includes('--write') && !result.data.quick && !process.argv.some((a) => a.startsWith('--only='))) writeResults(result);
      console.log(result.markdown);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
