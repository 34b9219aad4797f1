/**
 * Planning and time tracking at scale (contract 18.1, 18.3), part of `npm run bench` (also alone:
 * `npx tsx bench/time-tracking.ts [--quick] [--keep] [--only=timesheet|sort]`, on DATABASE_URL's server in a scratch
 * database `<db>_ttbench`):
 * 1. the timesheet of one month (group by user, project, issue) in a workspace of 1,000,000 worklogs over twelve months
 *    (quick: 100,000): median of 9 in-process requests, target <= 100 ms, and the EXPLAIN ANALYZE of its statement,
 *    which must be one index range scan of `worklogs_timesheet_idx` (no sequential scan, no second pass);
 * 2. the issue list sorted by `target_date` (both ways) against its raw-SQL twin (bench/minimal-routes.ts, same
 *    statement through a raw pool) on the real server as a child process (bench/server.ts), autocannon, interleaved
 *    rounds; target real/twin >= 0.8 as for every read of `npm run bench`.
 */
import autocannon from 'autocannon';
import { DateTime } from 'luxon';
import pg from 'pg';
import { type ServerChild, startServer } from './bench-server.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { dayStarts } from '../src/modules/time-tracking/time-tracking.timesheet.js';
import { insertTrial, insertUserWithToken, insertWorkspace, Progress, seedWorkspace } from './seed.js';

const TIME_ZONE = 'Europe/Istanbul';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** time-tracking.repository timesheetCells(), the same statement (its EXPLAIN ANALYZE is part of the report). */
const TIMESHEET_SQL = (key: string) => `
  SELECT ${key}::text AS key, width_bucket(w.started_at, $1::timestamptz[])::int AS day,
         sum(w.duration_minutes)::int AS minutes
  FROM worklogs w
  WHERE w.workspace_id = $2 AND w.started_at >= $3 AND w.started_at < $4
  GROUP BY 1, 2`;

/** Worklogs of one chunk: issues in turn (a stride over the sequence), members in turn, one every 31.5 s back from now. */
export const WORKLOGS_SQL = `
  INSERT INTO worklogs (id, workspace_id, issue_id, project_id, user_id, started_at, duration_minutes, note, created_at, updated_at)
  SELECT gen_random_uuid(), $1, i.id, i.project_id, ($3::uuid[])[1 + g % cardinality($3::uuid[])],
         $4::timestamptz - g * $7::interval, 15 + (g * 37) % 226, '', $4, $4
  FROM generate_series($5::int, $6::int) g
  JOIN issues i ON i.project_id = $2 AND i.sequence_id = 1 + ((g::bigint * 7919) % $8::int)::int`;

/** Dates and estimates on four issues in five (contract 18.1), spread over a year around now. */
const PLANNING_SQL = `
  UPDATE issues SET
    start_date = ($2::date + ((sequence_id * 13) % 300 - 150)),
    target_date = ($2::date + ((sequence_id * 13) % 300 - 150) + (sequence_id % 40)),
    estimate_minutes = 60 * (1 + sequence_id % 24)
  WHERE project_id = $1 AND sequence_id % 5 <> 0`;

async function cannon(server: ServerChild, token: string, paths: string[], seconds: number) {
  let n = 0;
  const cpu0 = server.cpuMs();
  const result = await autocannon({
    url: server.base,
    connections: 10,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
    requests: [{ method: 'GET', setupRequest: (req: any) => ({ ...req, path: paths[n++ % paths.length]! }) }],
  });
  return {
    requests: result.requests.total,
    seconds: result.duration || seconds,
    p50: result.latency.p50,
    bad: result.non2xx + result.errors,
    cpuMs: server.cpuMs() - cpu0,
  };
}

export async function benchTimeTracking({
  databaseUrl,
  quick,
  keep = false,
  only,
}: {
  databaseUrl: string;
  quick: boolean;
  keep?: boolean;
  /** one part alone: timesheet | sort */
  only?: string;
}): Promise<string> {
  const url = new URL(databaseUrl);
  const name = `${url.pathname.slice(1) || 'postgres'}_ttbench`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
  const worklogs = quick ? 100_000 : 1_000_000;
  const issues = quick ? 3_000 : 20_000;
  const lines: string[] = ['## Planning and time tracking at scale (PostgreSQL)', ''];
  const raw = new pg.Pool({ connectionString: url.toString(), max: 2 });
  const q = async (text: string, values: readonly unknown[] = []) => {
    const r = await raw.query(text, [...values]);
    return { rows: r.rows, rowCount: r.rowCount ?? 0 };
  };
  try {
    await migrateToLatest(handle.db);
    const now = new Date();
    const owner = await insertUserWithToken(q, 'tt-owner@bench.example', now);
    const slug = 'tt-bench';
    const ws = await insertWorkspace(q, owner.userId, slug, now);
    await insertTrial(q, ws, now);
    await q(`UPDATE workspaces SET time_zone = $2 WHERE id = $1`, [ws, TIME_ZONE]);
    const [project] = await seedWorkspace(q, {
      workspaceId: ws,
      ownerId: owner.userId,
      projects: [{ identifier: 'TT', issues }],
      comments: 0,
      trackers: false,
      customValues: false,
      members: 9,
      now,
      label: `time tracking ${issues.toLocaleString('en')} issues`,
    });
    const today = DateTime.fromJSDate(now, { zone: TIME_ZONE }).toISODate()!;
    await q(PLANNING_SQL, [project!.id, today]);
    const members = (await q(`SELECT user_id FROM workspace_members WHERE workspace_id = $1 ORDER BY user_id`, [ws])).rows.map((r) => r.user_id as string);
    // Twelve months of worklogs back from now, one every `step` seconds.
    const step = `${(365 * 86_400) / worklogs} seconds`;
    const bar = new Progress(`worklogs ${worklogs.toLocaleString('en')}`, worklogs);
    const chunk = 100_000;
    for (let from = 1; from <= worklogs; from += chunk) {
      const to = Math.min(worklogs, from + chunk - 1);
      await q(WORKLOGS_SQL, [ws, project!.id, members, now, from, to, step, issues]);
      bar.add(to - from + 1);
    }
    await q(
      `UPDATE issues i SET time_spent_minutes = s.m FROM (SELECT issue_id, sum(duration_minutes)::int AS m FROM worklogs GROUP BY 1) s WHERE s.issue_id = i.id`,
    );
    await q('VACUUM (ANALYZE) worklogs');
    await q('VACUUM (ANALYZE) issues');

    if (!only || only === 'timesheet') {
      // 1. One month (the last full calendar month in the workspace time zone) over the whole workspace.
      const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), apiRateLimit: 0 };
      const app = await buildApp({ config, database: handle });
      const month = DateTime.fromJSDate(now, { zone: TIME_ZONE }).startOf('month').minus({ months: 1 });
      const from = month.toISODate()!;
      const to = month.endOf('month').toISODate()!;
      const start = month.toJSDate();
      const end = month.plus({ months: 1 }).toJSDate();
      const inMonth = Number(
        (await q(`SELECT count(*) AS n FROM worklogs WHERE workspace_id = $1 AND started_at >= $2 AND started_at < $3`, [ws, start, end])).rows[0]!.n,
      );
      lines.push(
        `Timesheet of ${from}..${to} (${TIME_ZONE}) in a workspace of ${worklogs.toLocaleString('en')} worklogs (${inMonth.toLocaleString('en')} in the month), median of 9 in-process requests:`,
        '',
        '| group_by | rows | JSON ms | CSV ms | plan of the statement | target | met |',
        '|---|---:|---:|---:|---|---|---|',
      );
      for (const groupBy of ['user', 'project', 'issue'] as const) {
        const path = `/api/workspaces/${slug}/timesheet/?from=${from}&to=${to}&group_by=${groupBy}`;
        const get = async (p: string) => {
          const res = await app.inject({ method: 'GET', url: p, headers: { authorization: `Bearer ${owner.token}` } });
          if (res.statusCode !== 200) throw new Error(`GET ${p}: ${res.statusCode} ${res.body}`);
          return res;
        };
        const rows = (await get(path)).json<{ rows: unknown[] }>().rows.length;
        const timed = async (p: string) => {
          const xs: number[] = [];
          for (let i = 0; i < 9; i++) {
            const t0 = performance.now();
            await get(p);
            xs.push(performance.now() - t0);
          }
          return Math.round(median(xs) * 10) / 10;
        };
        const jsonMs = await timed(path);
        const csvMs = await timed(`${path}&format=csv`);
        const key = groupBy === 'user' ? 'w.user_id' : groupBy === 'project' ? 'w.project_id' : 'w.issue_id';
        const plan = (
          await q(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${TIMESHEET_SQL(key)}`, [dayStarts(from, to, TIME_ZONE).map((d) => d.toISOString()), ws, start, end])
        ).rows[0]!['QUERY PLAN'][0];
        const scans: string[] = [];
        let heapFetches: number | undefined;
        const walk = (node: any) => {
          if (/Scan/.test(node['Node Type'])) {
            scans.push(`${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`);
            heapFetches = node['Heap Fetches'] ?? heapFetches;
          }
          for (const child of node.Plans ?? []) walk(child);
        };
        walk(plan.Plan);
        const oneRangeScan = scans.length === 1 && /^(Parallel )?Index (Only )?Scan using worklogs_timesheet_idx$/.test(scans[0]!);
        const planText = `${scans.join(' + ')} (${Math.round(plan['Execution Time'])} ms in SQL${heapFetches !== undefined ? `, heap fetches ${heapFetches}` : ''})`;
        const met = jsonMs <= 100 && csvMs <= 100 && oneRangeScan;
        lines.push(`| ${groupBy} | ${rows} | ${jsonMs} | ${csvMs} | ${planText} | <= 100 ms, one range scan | ${met ? 'met' : 'not met'} |`);
        console.error(`  timesheet by ${groupBy}: ${rows} rows, JSON ${jsonMs} ms, CSV ${csvMs} ms; ${planText}`);
      }
      await app.close();
    }

    if (!only || only === 'sort') {
      // 2. The issue list sorted by target_date against its raw-SQL twin, on the real server.
      const server = await startServer(url.toString());
      try {
        const W = `/api/workspaces/${slug}/projects/${project!.id}/issues/`;
        const seconds = quick ? 3 : 10;
        const f2 = (v: number) => (Math.floor(v * 100) / 100).toFixed(2);
        lines.push(
          '',
          `Issue list in a project of ${issues.toLocaleString('en')} issues (four in five dated), both directions and pages 1 and 6 rotated, 10 connections, ${seconds} s per run, interleaved; the sequence_id row (the default order, named) is the reference on the same machine at the same time:`,
          '',
          '| endpoint | real req/s | twin req/s | real/twin | server CPU µs/req real / twin | target | met |',
          '|---|---:|---:|---:|---:|---|---|',
        );
        for (const key of ['target_date', 'sequence_id']) {
          const paths = [`?order_by=${key}`, `?order_by=-${key}`, `?order_by=${key}&offset=100`, `?order_by=-${key}&offset=100`].map((s) => W + s);
          const twin = paths.map((p) => p.replace(/^\/api\//, '/bench/min/'));
          for (const p of [paths[0]!, twin[0]!]) {
            const res = await fetch(server.base + p, { headers: { authorization: `Bearer ${owner.token}` } });
            const body = (await res.json()) as { results?: { target_date: string | null }[] };
            if (res.status !== 200 || !body.results?.[0]) throw new Error(`GET ${p}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
          }
          await cannon(server, owner.token, paths, quick ? 1 : 2);
          await cannon(server, owner.token, twin, quick ? 1 : 2);
          const real: Awaited<ReturnType<typeof cannon>>[] = [];
          const min: Awaited<ReturnType<typeof cannon>>[] = [];
          const rounds = quick
            ? [[false, true]]
            : [
                [false, true],
                [true, false],
              ];
          for (const order of rounds) {
            for (const isTwin of order) (isTwin ? min : real).push(await cannon(server, owner.token, isTwin ? twin : paths, seconds));
          }
          const rate = (xs: typeof real) => xs.reduce((a, x) => a + x.requests, 0) / xs.reduce((a, x) => a + x.seconds, 0);
          const cpu = (xs: typeof real) => Math.round((xs.reduce((a, x) => a + x.cpuMs, 0) * 1000) / xs.reduce((a, x) => a + x.requests, 0));
          const bad = [...real, ...min].reduce((a, x) => a + x.bad, 0);
          const ratio = rate(real) / rate(min);
          const target = key === 'target_date' ? '>= 0.8' : 'reference';
          const met = key === 'target_date' ? (ratio >= 0.8 && !bad ? 'met' : 'not met') : '';
          lines.push(
            `| GET issue list ?order_by=${key} | ${rate(real).toFixed(0)} | ${rate(min).toFixed(0)} | ${f2(ratio)} | ${cpu(real)} / ${cpu(min)} | ${target} | ${met}${bad ? ` (${bad} non-2xx or errors)` : ''} |`,
          );
          console.error(`  issue list by ${key}: real ${rate(real).toFixed(0)}/s, twin ${rate(min).toFixed(0)}/s, ratio ${f2(ratio)}`);
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await raw.end();
    await handle.close();
    if (!keep) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error('DATABASE_URL is required (a PostgreSQL server on which a scratch database may be created)');
    process.exit(2);
  }
  benchTimeTracking({
    databaseUrl,
    quick: process.argv.includes('--quick'),
    keep: process.argv.includes('--keep'),
    only: process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length),
  }).then(
    (report) => console.log(report),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
