/**
 * SLA reports at scale (contract 20.1), part of `npm run bench` (also alone: `npx tsx bench/sla-reports.ts [--quick] [--keep]`,
 * on DATABASE_URL's server in a scratch database `<db>_slareports`):
 * a 12-week report by week (GET sla-reports, in process, median of 7) over a workspace of 100,000 trackers whose
 * outcomes fall in those 12 weeks (target <= 300 ms), then over the same workspace grown to 1,000,000 trackers by
 * 900,000 more with an older history (target <= 2x the time at 100,000): the report is a range scan over the outcome
 * instants of the workspace, so what lies outside the range costs nothing. Quick: 10,000 and 100,000.
 */
import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { insertDefaultPolicy, insertUserWithToken, insertWorkspace, Progress } from './seed.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const TZ = 'Europe/Istanbul';
const CHUNK = 50_000;
const WEEK_MS = 7 * 86_400_000;

/**
 * Issues and their trackers as the SLA module leaves them, one chunk: created between `$5` and `$6` (evenly), priority
 * mix 5/15/35/45 % urgent..low, each target met (85 % of responses, 80 % of resolutions) at a share of its target or
 * breached at its due instant (and answered late, or still open); outcomes, instants and working seconds (no calendar)
 * recorded as the tracker writes record them.
 */
const SEED_SQL = `
WITH base AS (
  SELECT g, abs(hashint4(g)) % 100 AS h1, abs(hashint4(g + 7919)) % 100 AS h2, abs(hashint4(g + 104729)) % 100 AS h3,
         $5::timestamptz + (g - $3::int)::float8 / ($4::int - $3::int + 1) * ($6::timestamptz - $5::timestamptz) AS created_at
  FROM generate_series($3::int, $4::int) g
), rules AS (
  SELECT b.*, r.priority, r.response_ms, r.resolution_ms
  FROM base b JOIN sla_rules r ON r.policy_id = $7 AND r.workspace_id = $1
   AND r.priority = CASE WHEN b.h1 < 5 THEN 'urgent' WHEN b.h1 < 20 THEN 'high' WHEN b.h1 < 55 THEN 'medium' ELSE 'low' END
), facts AS (
  SELECT *, gen_random_uuid() AS issue_id,
         created_at + response_ms * interval '1 millisecond' AS rdue, created_at + resolution_ms * interval '1 millisecond' AS sdue,
         CASE WHEN h2 < 85 THEN created_at + response_ms * (0.05 + h3 / 110.0) * interval '1 millisecond'
              WHEN h2 < 95 THEN created_at + response_ms * 1.6 * interval '1 millisecond' END AS responded_at,
         CASE WHEN h3 < 80 THEN created_at + resolution_ms * (0.1 + h2 / 120.0) * interval '1 millisecond'
              WHEN h3 < 90 THEN created_at + resolution_ms * 2 * interval '1 millisecond' END AS resolved_at
  FROM rules
), issues_in AS (
  INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, description, state_id, state_group, priority, assignee_ids,
                      created_by, created_at, updated_at, completed_at)
  SELECT issue_id, $1, $2, g, 'Issue ' || g, '', $8, 'completed', priority, '{}', $9, created_at, coalesce(resolved_at, created_at), resolved_at
  FROM facts
)
INSERT INTO sla_trackers (id, workspace_id, issue_id, policy_id, priority, response_due_at, resolution_due_at, responded_at, resolved_at,
                          response_breach_at, resolution_breach_at, response_settled, resolution_settled,
                          response_breach_sent, resolution_breach_sent,
                          response_outcome, response_outcome_at, response_outcome_seconds,
                          resolution_outcome, resolution_outcome_at, resolution_outcome_seconds, created_at, updated_at)
SELECT gen_random_uuid(), $1, issue_id, $7, priority, rdue, sdue, responded_at, resolved_at,
       CASE WHEN h2 >= 85 THEN rdue END, CASE WHEN h3 >= 80 THEN sdue END, responded_at IS NOT NULL, resolved_at IS NOT NULL,
       h2 >= 85, h3 >= 80,
       CASE WHEN h2 < 85 THEN 'met' ELSE 'breached' END, CASE WHEN h2 < 85 THEN responded_at ELSE rdue END,
       floor(extract(epoch FROM responded_at - created_at))::bigint,
       CASE WHEN h3 < 80 THEN 'met' ELSE 'breached' END, CASE WHEN h3 < 80 THEN resolved_at ELSE sdue END,
       floor(extract(epoch FROM resolved_at - created_at))::bigint,
       created_at, coalesce(resolved_at, created_at)
FROM facts`;

export async function benchSlaReports({ databaseUrl, quick, keep = false }: { databaseUrl: string; quick: boolean; keep?: boolean }): Promise<string> {
  const url = new URL(databaseUrl);
  const name = `${url.pathname.slice(1) || 'postgres'}_slareports`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
  const [small, large] = quick ? [10_000, 100_000] : [100_000, 1_000_000];
  const lines: string[] = ['## SLA reports (PostgreSQL)', ''];
  try {
    await migrateToLatest(handle.db);
    const app = await buildApp({ config: { ...loadConfig({ LOG_LEVEL: 'silent' }), apiRateLimit: 0 }, database: handle });
    const raw = new pg.Pool({ connectionString: url.toString(), max: 2 });
    const q = async (text: string, values: readonly unknown[] = []) => {
      const r = await raw.query(text, [...values]);
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    };
    const now = new Date();
    const owner = await insertUserWithToken(q, `owner.${randomUUID().slice(0, 8)}@bench.example`, now);
    const ws = await insertWorkspace(q, owner.userId, 'sla-reports', now);
    await q(`UPDATE workspaces SET time_zone = $2 WHERE id = $1`, [ws, TZ]);
    const policyId = await insertDefaultPolicy(q, ws, now);
    const projectId = randomUUID();
    await q(
      `INSERT INTO projects (id, workspace_id, name, identifier, description, issue_seq, created_by, created_at, updated_at)
       VALUES ($1, $2, 'Desk', 'DESK', '', $3, $4, $5, $5)`,
      [projectId, ws, large, owner.userId, now],
    );
    const stateId = randomUUID();
    await q(
      `INSERT INTO states (id, workspace_id, project_id, name, "group", color, sequence, is_default, created_at, updated_at)
       VALUES ($1, $2, $3, 'Done', 'completed', '#16A34A', 1000, true, $4, $4)`,
      [stateId, ws, projectId, now],
    );

    // The report: the 12 weeks that end with this one, in the workspace time zone.
    const today = DateTime.fromJSDate(now, { zone: TZ });
    const from = today.startOf('week').minus({ weeks: 11 });
    const path = `/api/workspaces/sla-reports/sla-reports/?from=${from.toISODate()}&to=${today.toISODate()}&group_by=week`;
    const headers = { authorization: `Bearer ${owner.token}` };
    const seed = async (label: string, first: number, last: number, start: Date, end: Date) => {
      const bar = new Progress(label, last - first + 1);
      for (let a = first; a <= last; a += CHUNK) {
        const b = Math.min(last, a + CHUNK - 1);
        // each chunk gets its share of [start, end)
        const span = end.getTime() - start.getTime();
        const s = new Date(start.getTime() + ((a - first) / (last - first + 1)) * span);
        const e = new Date(start.getTime() + ((b - first + 1) / (last - first + 1)) * span);
        await q(SEED_SQL, [ws, projectId, a, b, s, e, policyId, stateId, owner.userId]);
        bar.add(b - a + 1);
      }
      await q('VACUUM (ANALYZE) sla_trackers');
      await q('VACUUM (ANALYZE) issues');
    };
    const measure = async () => {
      const call = async () => {
        const res = await app.inject({ method: 'GET', url: path, headers });
        if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${res.body}`);
        return res.json() as { rows: unknown[]; totals: { response: { met: number; breached: number }; resolution: { met: number; breached: number } } };
      };
      const report = await call();
      const xs: number[] = [];
      for (let i = 0; i < 7; i++) {
        const t0 = performance.now();
        await call();
        xs.push(performance.now() - t0);
      }
      const t = report.totals;
      return {
        ms: Math.round(median(xs) * 10) / 10,
        counted: t.response.met + t.response.breached + t.resolution.met + t.resolution.breached,
        rows: report.rows.length,
      };
    };

    // The window: outcomes of trackers created in the 12 weeks (up to a few days before now, so most have an outcome).
    const windowStart = from.toJSDate();
    const windowEnd = new Date(now.getTime() - 4 * 86_400_000);
    await seed(`reports ${small.toLocaleString('en')} trackers`, 1, small, windowStart, windowEnd);
    const first = await measure();
    console.error(`  sla-reports ${small}: ${first.ms} ms (${first.counted} targets counted)`);
    // 900,000 (quick 90,000) more, older: about three years of history before the window.
    await seed(
      `reports +${(large - small).toLocaleString('en')} older`,
      small + 1,
      large,
      new Date(windowStart.getTime() - 156 * WEEK_MS),
      new Date(windowStart.getTime() - WEEK_MS),
    );
    const second = await measure();
    console.error(`  sla-reports ${large}: ${second.ms} ms (${second.counted} targets counted)`);
    const plan = await q(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) SELECT count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY response_outcome_seconds)
       FROM sla_trackers WHERE workspace_id = $1 AND response_outcome IS NOT NULL AND response_outcome_at >= $2 AND response_outcome_at < $3`,
      [ws, windowStart, now],
    );
    const scan = plan.rows.map((r: Record<string, string>) => r['QUERY PLAN'] ?? '').find((l) => /Scan/.test(l)) ?? '';

    const limit = 300;
    lines.push(
      '| trackers in the workspace | in the 12 weeks | targets counted | rows | 12-week report by week | target | met |',
      '|---:|---:|---:|---:|---:|---:|:---:|',
      `| ${small.toLocaleString('en')} | ${small.toLocaleString('en')} | ${first.counted.toLocaleString('en')} | ${first.rows} | ${first.ms} ms | <= ${limit} ms | ${first.ms <= limit ? 'met' : 'not met'} |`,
      `| ${large.toLocaleString('en')} | ${small.toLocaleString('en')} | ${second.counted.toLocaleString('en')} | ${second.rows} | ${second.ms} ms | <= 2x (${(2 * first.ms).toFixed(1)} ms) | ${second.ms <= 2 * first.ms ? 'met' : 'not met'} |`,
      '',
      `Plan of one target's range (EXPLAIN ANALYZE): \`${scan.trim()}\``,
    );
    await raw.end();
    await app.close();
  } finally {
    await handle.close();
    if (!keep) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required (a PostgreSQL server; a scratch database is created on it)');
  benchSlaReports({ databaseUrl, quick: process.argv.includes('--quick'), keep: process.argv.includes('--keep') })
    .then((md) => console.log(md))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
