/**
 * The forecast (contract 18.5) on a project with 52 weeks of history, part of `npm run bench` (also alone:
 * `npx tsx bench/forecast.ts [--quick] [--pglite]`, on DATABASE_URL's server in a scratch database `<db>_fcbench`, or
 * on a fresh embedded database with --pglite or without DATABASE_URL).
 *
 * The workspace holds three projects of `issues` issues each (quick: 3,000; full: 20,000), every one with a history
 * like the service writes it: its creation, a start, a priority change, and for the completed ones (about 60 %) the
 * move into Done at an instant spread over the last 52 weeks, some of them after a reopening. Measured in-process
 * (`inject`, the whole request), median of 9 after a warm-up: GET forecast with weeks=52 (target <= 200 ms) and
 * weeks=12; the throughput query's plan (it must use the completions index of migration 1020); and the Monte-Carlo
 * rules alone at their worst (runs as long as the 260-week horizon).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { type DatabaseHandle, openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { forecastOf, throughputWindow } from '../src/modules/forecast/forecast.logic.js';
import { forecastRepository } from '../src/modules/forecast/index.js';
import type { Query } from './raw.js';
import { insertUserWithToken, insertWorkspace, seedWorkspace } from './seed.js';

const TARGET_MS = 200;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function scratch(databaseUrl: string | undefined): Promise<{ handle: DatabaseHandle; drop(): Promise<void> }> {
  if (!databaseUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'wis-fc-bench-'));
    const handle = await openDatabase({ databaseUrl: null, dataDir: dir });
    return { handle, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = new URL(databaseUrl);
  const name = `${url.pathname.slice(1) || 'postgres'}_fcbench`;
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

/**
 * History of the workspace's issues as the SLA module writes it: `created` (backlog), a `state` move to started a day
 * later, a `priority` change; for completed issues the move into Done at an instant of the last 364 days (one in ten
 * completed, reopened and completed again before that).
 */
const HISTORY_SQL = `
  WITH s AS (SELECT project_id, "group", id FROM states WHERE workspace_id = $1),
  i AS (
    SELECT i.id, i.project_id, i.sequence_id AS seq, i.state_group,
           $2::timestamptz - (abs(hashint4(i.sequence_id * 7 + 1)) % (364 * 24)) * interval '1 hour' AS done_at
    FROM issues i WHERE i.workspace_id = $1
  )
  INSERT INTO issue_history (id, workspace_id, issue_id, at, actor_id, kind, "from", "to")
  SELECT gen_random_uuid(), $1, e.issue_id, e.at, NULL, e.kind, e."from", e."to"
  FROM (
    SELECT i.id AS issue_id, i.done_at - interval '30 days' AS at, 'created' AS kind, NULL::jsonb AS "from",
           jsonb_build_object('state_id', b.id, 'group', 'backlog', 'pauses_sla', false, 'priority', 'none') AS "to"
    FROM i JOIN s b ON b.project_id = i.project_id AND b."group" = 'backlog'
    UNION ALL
    SELECT i.id, i.done_at - interval '29 days', 'state', jsonb_build_object('state_id', b.id, 'group', 'backlog', 'pauses_sla', false),
           jsonb_build_object('state_id', st.id, 'group', 'started', 'pauses_sla', false)
    FROM i JOIN s b ON b.project_id = i.project_id AND b."group" = 'backlog' JOIN s st ON st.project_id = i.project_id AND st."group" = 'started'
    UNION ALL
    SELECT i.id, i.done_at - interval '28 days', 'priority', to_jsonb('none'::text), to_jsonb('high'::text) FROM i
    UNION ALL
    SELECT i.id, i.done_at - k * interval '5 days', 'state', jsonb_build_object('state_id', st.id, 'group', 'started', 'pauses_sla', false),
           jsonb_build_object('state_id', d.id, 'group', 'completed', 'pauses_sla', false)
    FROM i JOIN s st ON st.project_id = i.project_id AND st."group" = 'started' JOIN s d ON d.project_id = i.project_id AND d."group" = 'completed'
    CROSS JOIN LATERAL (SELECT 0 AS k UNION ALL SELECT 2 WHERE i.seq % 10 = 0) r
    WHERE i.state_group = 'completed'
    UNION ALL
    SELECT i.id, i.done_at - interval '8 days', 'state', jsonb_build_object('state_id', d.id, 'group', 'completed', 'pauses_sla', false),
           jsonb_build_object('state_id', st.id, 'group', 'started', 'pauses_sla', false)
    FROM i JOIN s st ON st.project_id = i.project_id AND st."group" = 'started' JOIN s d ON d.project_id = i.project_id AND d."group" = 'completed'
    WHERE i.state_group = 'completed' AND i.seq % 10 = 0
  ) e`;

export async function benchForecast({ databaseUrl, quick }: { databaseUrl?: string; quick: boolean }): Promise<string> {
  const issues = quick ? 3000 : 20_000;
  const { handle, drop } = await scratch(databaseUrl);
  const label = databaseUrl ? 'PostgreSQL' : 'PGlite';
  try {
    await migrateToLatest(handle.db);
    const q: Query = async (text, params = []) => {
      const r = await handle.db.executeQuery(CompiledQuery.raw(text, [...params]));
      return { rows: r.rows as never[], rowCount: Number(r.numAffectedRows ?? r.rows.length) };
    };
    const now = new Date();
    const owner = await insertUserWithToken(q, `owner.${Date.now()}@bench.example`, now);
    const ws = await insertWorkspace(q, owner.userId, 'forecast-bench', now);
    const projects = await seedWorkspace(q, {
      workspaceId: ws,
      ownerId: owner.userId,
      projects: [
        { identifier: 'FC', issues },
        { identifier: 'OTHA', issues },
        { identifier: 'OTHB', issues },
      ],
      comments: 0,
      trackers: false,
      customValues: false,
      members: 0,
      now,
      label: `forecast seed (${label})`,
    });
    const project = projects[0]!;
    await q(`UPDATE issues SET target_date = ($2::timestamptz + (sequence_id % 120) * interval '1 day')::date WHERE workspace_id = $1 AND project_id = $3`, [
      ws,
      now,
      project.id,
    ]);
    await q(HISTORY_SQL, [ws, now]);
    // as autovacuum would leave it: statistics, and a visibility map for index-only scans
    await q('VACUUM ANALYZE');
    const historyRows = (await q<{ n: number }>('SELECT count(*)::int AS n FROM issue_history WHERE workspace_id = $1', [ws])).rows[0]!.n;

    const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), apiRateLimit: 0 };
    const app = await buildApp({ config, database: handle });
    const headers = { authorization: `Bearer ${owner.token}` };
    const timed = async (path: string, reps = 9) => {
      let body: Record<string, unknown> = {};
      const get = async () => {
        const res = await app.inject({ method: 'GET', url: path, headers });
        if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${res.body}`);
        body = res.json();
      };
      await get();
      const xs: number[] = [];
      for (let i = 0; i < reps; i++) {
        const t0 = performance.now();
        await get();
        xs.push(performance.now() - t0);
      }
      return { ms: Math.round(median(xs) * 10) / 10, body };
    };
    const path = (weeks: number) => `/api/workspaces/forecast-bench/projects/${project.id}/forecast/?weeks=${weeks}`;
    const w52 = await timed(path(52));
    const w12 = await timed(path(12));

    const window = throughputWindow(now, 'UTC', 52);
    const plan = await forecastRepository().explainWeeklyCompletions(
      handle.db,
      { workspaceId: ws, projectId: project.id, from: window.from, to: window.to, timeZone: 'UTC' },
      true,
    );
    if (process.env.FC_PLAN) console.error(plan);
    const usesIndex = plan.includes('issue_history_completions_idx');
    const execMs = /Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? '?';
    await app.close();

    // The rules alone at their worst: every week completes something but the mean is low against what is left, so runs
    // last about as long as the 260-week horizon (and no run can be cut short: one week of 100 could still finish it).
    const sparse = window.weekStarts.map((week_start, i) => ({ week_start, completed: i === 0 ? 100 : 1 }));
    const worst: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      forecastOf({ projectId: `p${i}`, today: '2026-01-07', currentWeekStart: '2026-01-05', remaining: 750, throughput: sparse, plannedFinish: null });
      worst.push(performance.now() - t0);
    }
    const worstMs = Math.round(median(worst) * 10) / 10;

    const b = w52.body as { remaining_issues: number; throughput: { completed: number }[]; finish_p50: string | null; finish_p95: string | null };
    const completed52 = b.throughput.reduce((s, w) => s + w.completed, 0);
    const row = (what: string, ms: number, target: string, met: boolean) => `| ${what} | ${ms} ms | ${target} | ${met ? 'met' : 'not met'} |`;
    return [
      `### Forecast (${label}): a project of ${issues.toLocaleString('en')} issues in a workspace of ${(3 * issues).toLocaleString('en')}, ${historyRows.toLocaleString('en')} history rows over 52 weeks`,
      '',
      `Load average at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}.`,
      '',
      `weeks=52: ${completed52.toLocaleString('en')} completions counted, ${b.remaining_issues.toLocaleString('en')} open issues, p50 ${b.finish_p50}, p95 ${b.finish_p95}. ` +
        `Throughput query: ${usesIndex ? 'a range scan of issue_history_completions_idx' : 'NOT using issue_history_completions_idx'}, ${execMs} ms (EXPLAIN ANALYZE).`,
      '',
      '| case | median | target | met |',
      '|---|---:|---|---|',
      row('GET forecast ?weeks=52 (inject, median of 9)', w52.ms, `<= ${TARGET_MS} ms`, w52.ms <= TARGET_MS),
      row('GET forecast ?weeks=12', w12.ms, `<= ${TARGET_MS} ms`, w12.ms <= TARGET_MS),
      row('Monte-Carlo rules alone, worst case (10,000 runs of about 260 weeks each)', worstMs, `<= ${TARGET_MS} ms`, worstMs <= TARGET_MS),
    ].join('\n');
  } finally {
    await handle.close();
    await drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  const url = process.argv.includes('--pglite') ? undefined : process.env.DATABASE_URL;
  console.log(await benchForecast({ ...(url ? { databaseUrl: url } : {}), quick }));
}
