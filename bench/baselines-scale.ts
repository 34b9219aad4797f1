/**
 * Scale benchmark of project baselines: one project with N issues (default 100,000), then
 *   (a) a baseline through the service (one REPEATABLE READ transaction: per-issue rows + counts),
 *   (a1) the snapshot statements of commit 9dc1ca3 (before schedule and effort: 7 columns per issue, then a second
 *        scan of the items for the counts) side by side with (a2) today's (11 columns per issue, counts, planned finish
 *        and effort totals by the same second scan), interleaved run by run, each in a REPEATABLE READ
 *        transaction, each baseline deleted again untimed so that every run writes into the same table state,
 *   (b) its deviation after ~1% of the issues changed (plus 0.1% added and 0.1% deleted),
 *   (c) the raw aggregate SQL alone (SELECT state_group, priority, count(*) ... GROUP BY), for comparison,
 *   (d) deleting a baseline with its N per-issue rows.
 * Target (contract 18.4 round): a baseline create of 100,000 issues with the per-issue planning fields no slower than
 * before, <= 1.1x: (a2) against (a1) on the same machine at the same time, and (a) against REFERENCE_CREATE_MS.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/wis_bl npx tsx bench/baselines-scale.ts [issues] [runs]
 *
 * On PostgreSQL it works in a scratch database `<db>_blbench`; without DATABASE_URL on an in-memory PGlite. The seed is
 * set-based SQL (generate_series); KEEP=1 keeps it, to look at query plans. `npm run bench` runs it at 100,000 issues
 * on PostgreSQL (quick: 20,000) through benchBaselinesScale.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config/config.js';
import { createPglite, type DatabaseHandle, type Executor, openPostgres, wrapPglite } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { buildServices } from '../src/services.js';
import { newId } from '../src/kernel/ids.js';
import { baselinesRepository } from '../src/modules/baselines/index.js';

/**
 * Median of 7 service creates of a 100,000-issue baseline on PostgreSQL at commit 9dc1ca3 (before this round's
 * change), this file's seed without planning fields, measured 2026-11-25 09:16 UTC on the 2-core machine at load 2.0:
 * min 313.7, median 324.5, max 459.2 ms. With the planning fields seeded, two more runs at load 3.3 gave medians of
 * 813.8 and 566.9 ms: the machine is shared, so the verdict rests on the side-by-side rows, and this is context.
 */
export const REFERENCE_CREATE_MS = 324.5;
const TARGET_RATIO = 1.1;

/**
 * The snapshot of commit 9dc1ca3, statement for statement (baselinesRepository().snapshotIssues then): items with the
 * 7 columns of round 2, then the counts by a second scan of the items just written.
 */
async function snapshotAt9dc1ca3(tx: Executor, workspaceId: string, projectId: string, baselineId: string) {
  await sql`
    INSERT INTO baseline_items (workspace_id, baseline_id, issue_id, sequence_id, name, state_group, priority)
    SELECT b.workspace_id, b.id, i.id, i.sequence_id, i.name, i.state_group, i.priority
    FROM baselines AS b INNER JOIN issues AS i ON i.workspace_id = b.workspace_id AND i.project_id = b.project_id
    WHERE b.id = ${baselineId} AND b.workspace_id = ${workspaceId} AND b.project_id = ${projectId}`.execute(tx);
  const n = (column: string, value: string) => sql`count(*) FILTER (WHERE ${sql.ref(column)} = ${value})::int`;
  await sql`
    WITH counted AS (
      SELECT count(*)::int AS total, ${n('state_group', 'backlog')} AS backlog, ${n('state_group', 'unstarted')} AS unstarted,
        ${n('state_group', 'started')} AS started, ${n('state_group', 'completed')} AS completed, ${n('state_group', 'cancelled')} AS cancelled,
        ${n('priority', 'urgent')} AS urgent, ${n('priority', 'high')} AS high, ${n('priority', 'medium')} AS medium,
        ${n('priority', 'low')} AS low, ${n('priority', 'none')} AS none
      FROM baseline_items WHERE workspace_id = ${workspaceId} AND baseline_id = ${baselineId})
    UPDATE baselines SET total_issues = counted.total, completed_issues = counted.completed, state_backlog = counted.backlog,
      state_unstarted = counted.unstarted, state_started = counted.started, state_completed = counted.completed,
      state_cancelled = counted.cancelled, priority_urgent = counted.urgent, priority_high = counted.high,
      priority_medium = counted.medium, priority_low = counted.low, priority_none = counted.none
    FROM counted WHERE baselines.id = ${baselineId} AND baselines.workspace_id = ${workspaceId}
    RETURNING baselines.id`.execute(tx);
}

/**
 * PostgreSQL: a scratch database `<db>_blbench` on DATABASE_URL's server, created afresh and dropped at the end (KEEP=1
 * keeps it); without a URL an in-memory PGlite.
 */
async function open(databaseUrl?: string): Promise<{ handle: DatabaseHandle; drop(): Promise<void> }> {
  if (databaseUrl) {
    const url = new URL(databaseUrl);
    const name = `${url.pathname.slice(1) || 'postgres'}_blbench`;
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
    url.pathname = `/${name}`;
    return {
      handle: openPostgres(url.toString(), 4),
      drop: async () => {
        if (!process.env.KEEP) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await admin.end();
      },
    };
  }
  const pglite = await createPglite();
  return { handle: await wrapPglite(pglite, () => pglite.close()), drop: async () => {} };
}

async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]!, max: s[s.length - 1]! };
};

export async function benchBaselinesScale({ databaseUrl, quick, issues, runs }: { databaseUrl?: string; quick: boolean; issues?: number; runs?: number }) {
  const N = issues ?? (quick ? 20_000 : 100_000);
  const RUNS = runs ?? (quick ? 3 : 7);
  const { handle, drop } = await open(databaseUrl);
  const { db } = handle;
  await migrateToLatest(db);

  // The service's own composition (as the app, the CLI and the tests build it); only the baselines service is timed.
  const composition = buildServices(loadConfig({ LOG_LEVEL: 'silent' }), handle);
  const { baselines } = composition.services;

  // ---- seed ------------------------------------------------------------------------------------------------------
  const tag = randomBytes(4).toString('hex');
  const userId = newId();
  const workspaceId = newId();
  const projectId = newId();
  const slug = `bench-${tag}`;
  const now = new Date();
  const groups = ['backlog', 'unstarted', 'started', 'completed', 'cancelled'] as const;

  const seed = await time(async () => {
    await db.transaction().execute(async (tx) => {
      await tx
        .insertInto('users')
        .values({ id: userId, email: `bench-${tag}@example.com`, display_name: 'Bench', password_hash: 'x', created_at: now, updated_at: now })
        .execute();
      await tx.insertInto('workspaces').values({ id: workspaceId, slug, name: 'Bench', created_by: userId, created_at: now, updated_at: now }).execute();
      await tx.insertInto('workspace_members').values({ workspace_id: workspaceId, user_id: userId, role: 'admin', created_at: now }).execute();
      await tx
        .insertInto('projects')
        .values({ id: projectId, workspace_id: workspaceId, name: 'Bench', identifier: 'BENCH', created_by: userId, created_at: now, updated_at: now })
        .execute();
      await tx
        .insertInto('states')
        .values(
          groups.map((g, i) => ({
            id: newId(),
            workspace_id: workspaceId,
            project_id: projectId,
            name: g,
            group: g,
            color: '#000000',
            sequence: i,
            is_default: i === 0,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
      // UUID v7-shaped ids in creation order, as the service makes them; a realistic mix of states and priorities:
      // states 20% backlog, 20% unstarted, 15% started, 35% completed, 10% cancelled;
      // priorities 5% urgent, 15% high, 30% medium, 20% low, 30% none.
      await sql`
        INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, state_id, state_group, priority, created_by, created_at, updated_at, completed_at,
          start_date, target_date, estimate_minutes, time_spent_minutes)
        SELECT
          (lpad(to_hex(${now.getTime()}::bigint - ${N}::bigint + n), 12, '0') || '7' || substr(h, 1, 3) || '8' || substr(h, 4, 15))::uuid,
          ${workspaceId}, ${projectId}, n, 'Issue ' || n || ' ' || substr(h, 16, 16), s.id, s."group", p.priority, ${userId},
          ${now}, ${now}, CASE WHEN s."group" = 'completed' THEN ${now}::timestamptz END,
          -- planning fields on most issues (a quarter without dates, a fifth without an estimate), as a planned project has
          CASE WHEN n % 4 <> 0 THEN DATE '2026-01-05' + (n % 120) END,
          CASE WHEN n % 4 <> 0 THEN DATE '2026-01-05' + (n % 120) + (n % 30) END,
          CASE WHEN n % 5 <> 0 THEN 30 * (1 + n % 16) END,
          CASE WHEN s."group" IN ('started', 'completed') THEN 15 * (n % 20) ELSE 0 END
        FROM (
          SELECT n, md5(n::text) AS h,
            CASE WHEN (n * 37) % 100 < 20 THEN 'backlog' WHEN (n * 37) % 100 < 40 THEN 'unstarted'
                 WHEN (n * 37) % 100 < 55 THEN 'started' WHEN (n * 37) % 100 < 90 THEN 'completed' ELSE 'cancelled' END AS grp,
            CASE WHEN (n * 53 + 11) % 100 < 5 THEN 'urgent' WHEN (n * 53 + 11) % 100 < 20 THEN 'high'
                 WHEN (n * 53 + 11) % 100 < 50 THEN 'medium' WHEN (n * 53 + 11) % 100 < 70 THEN 'low' ELSE 'none' END AS prio
          FROM generate_series(1, ${N}) n
        ) g
        JOIN states s ON s.project_id = ${projectId} AND s."group" = g.grp
        CROSS JOIN LATERAL (SELECT g.prio AS priority) p
      `.execute(tx);
      await tx.updateTable('projects').set({ issue_seq: N }).where('id', '=', projectId).execute();
    });
    await sql`ANALYZE issues`.execute(db);
  });

  const actor = { userId, tokenId: newId(), isInstanceAdmin: false };

  // ---- (a) baseline creation, and the snapshot of 9dc1ca3 side by side with today's --------------------------------
  const repo = baselinesRepository();
  const rawSnapshot = (which: 'old' | 'new') =>
    db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (tx) => {
        await repo.withoutJit(tx);
        const id = newId();
        const at = new Date();
        await repo.insertBaseline(tx, {
          id,
          workspace_id: workspaceId,
          project_id: projectId,
          name: which,
          created_by: userId,
          snapshot_at: at,
          created_at: at,
        });
        if (which === 'old') await snapshotAt9dc1ca3(tx, workspaceId, projectId, id);
        else await repo.snapshotIssues(tx, workspaceId, projectId, id);
        return id;
      });
  const dropBaseline = (id: string) => db.deleteFrom('baselines').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
  const create: number[] = [];
  const oldSnap: number[] = [];
  const newSnap: number[] = [];
  let first: Awaited<ReturnType<typeof baselines.create>> | undefined;
  // round 0 warms up; the order rotates so that neither side always follows the other
  for (let i = 0; i <= RUNS; i++) {
    const steps = [
      async () => {
        const r = await time(() => rawSnapshot('old'));
        if (i > 0) oldSnap.push(r.ms);
        await dropBaseline(r.value);
      },
      async () => {
        const r = await time(() => rawSnapshot('new'));
        if (i > 0) newSnap.push(r.ms);
        await dropBaseline(r.value);
      },
      async () => {
        const r = await time(() => baselines.create(actor, slug, projectId, { name: `Run ${i}` }));
        if (r.value.total_issues !== N) throw new Error(`baseline counted ${r.value.total_issues} issues, expected ${N}`);
        if (r.value.total_estimate_minutes === null) throw new Error('the baseline recorded no effort');
        if (i > 0) create.push(r.ms);
        if (first) await dropBaseline(r.value.id);
        else first = r.value;
      },
    ];
    for (let k = 0; k < steps.length; k++) await steps[(k + i) % steps.length]!();
  }
  await sql`ANALYZE baseline_items`.execute(db);

  // ---- change ~1% of the issues, add 0.1%, delete 0.1% -----------------------------------------------------------
  const changes = await time(async () => {
    await sql`
      UPDATE issues i SET state_id = s.id, state_group = s."group", updated_at = ${now}
      FROM states s
      WHERE i.project_id = ${projectId} AND i.sequence_id % 200 = 7
        AND s.project_id = ${projectId} AND s."group" = CASE WHEN i.state_group = 'completed' THEN 'started' ELSE 'completed' END
    `.execute(db);
    await sql`
      UPDATE issues SET priority = CASE WHEN priority = 'urgent' THEN 'low' ELSE 'urgent' END, updated_at = ${now}
      WHERE project_id = ${projectId} AND sequence_id % 200 = 11
    `.execute(db);
    await sql`
      UPDATE issues SET target_date = target_date + (sequence_id % 7) - 2, estimate_minutes = estimate_minutes + 30, updated_at = ${now}
      WHERE project_id = ${projectId} AND sequence_id % 200 = 17 AND target_date IS NOT NULL
    `.execute(db);
    await sql`DELETE FROM issues WHERE project_id = ${projectId} AND sequence_id % 1000 = 3`.execute(db);
    const added = Math.round(N / 1000);
    await sql`
      INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, state_id, state_group, priority, created_by, created_at, updated_at)
      SELECT gen_random_uuid(), ${workspaceId}, ${projectId}, ${N} + n, 'Added ' || n, s.id, s."group", 'high', ${userId}, ${now}, ${now}
      FROM generate_series(1, ${added}) n JOIN states s ON s.project_id = ${projectId} AND s."group" = 'backlog'
    `.execute(db);
    await sql`ANALYZE issues`.execute(db);
  });

  // ---- (b) deviation ---------------------------------------------------------------------------------------------
  const dev: number[] = [];
  let lastDeviation: Awaited<ReturnType<typeof baselines.deviation>> | undefined;
  for (let i = 0; i < RUNS; i++) {
    const r = await time(() => baselines.deviation(actor, slug, first!.id));
    dev.push(r.ms);
    lastDeviation = r.value;
  }

  // ---- (c) the raw aggregate alone -------------------------------------------------------------------------------
  const raw: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    raw.push(
      (
        await time(() =>
          sql`SELECT state_group, priority, count(*) FROM issues WHERE workspace_id = ${workspaceId} AND project_id = ${projectId} GROUP BY state_group, priority`.execute(
            db,
          ),
        )
      ).ms,
    );
  }

  // ---- (d) deleting a baseline (the N per-issue rows go with it) -------------------------------------------------
  const del: number[] = [];
  for (let i = 0; i < Math.max(1, RUNS - 2); i++) {
    const id = await rawSnapshot('new');
    del.push((await time(() => baselines.remove(actor, slug, id))).ms);
  }

  const d = lastDeviation!;
  const fmt = (n: number) => n.toFixed(1);
  const row = (label: string, ms: number[], target = '', met = '') => {
    const st = stats(ms);
    return `| ${label} | ${fmt(st.min)} | ${fmt(st.median)} | ${fmt(st.max)} | ${target} | ${met} |`;
  };
  const ratio = stats(newSnap).median / stats(oldSnap).median;
  const createRatio = stats(create).median / REFERENCE_CREATE_MS;
  const lines = [
    `### Baselines at scale: ${N.toLocaleString('en')} issues with dates and estimates, ${handle.kind}, ${RUNS} runs each (ms), load average ${loadavg()[0]!.toFixed(1)}`,
    '',
    `seed (set-based insert + ANALYZE): ${seed.ms.toFixed(0)} ms; changes: ${changes.ms.toFixed(0)} ms`,
    '',
    '| step | min | median | max | target | met |',
    '|---|---:|---:|---:|---|---|',
    row(
      '(a) create baseline (service, RR tx)',
      create,
      `${createRatio.toFixed(2)}x the ${REFERENCE_CREATE_MS} ms measured at 9dc1ca3 at load 2.0 (context: absolute times follow the load)`,
      // the verdict is the side-by-side row (a2)/(a1): the same machine, the same moment
      N === 100_000 ? (createRatio <= TARGET_RATIO ? 'yes' : 'see (a2)') : 'n/a',
    ),
    row('(a1) snapshot SQL of 9dc1ca3 (7 columns, counts by a second scan)', oldSnap),
    row(
      '(a2) snapshot SQL now (11 columns, counts and totals by a second scan)',
      newSnap,
      `<= ${TARGET_RATIO}x (a1), side by side: ${ratio.toFixed(2)}x`,
      ratio <= TARGET_RATIO ? 'yes' : 'no',
    ),
    row('(b) deviation (service, RR read-only tx)', dev),
    row('(c) raw aggregate SQL alone', raw),
    row('(d) delete baseline (service)', del),
    '',
    `deviation: issues_delta ${d.issues_delta}, added ${d.added.count}, removed ${d.removed.count}, changed ${d.changed.count} ` +
      `(items returned: ${d.added.items.length}/${d.removed.items.length}/${d.changed.items.length}); schedule: slipped ${d.schedule.slipped_issues}, ` +
      `pulled in ${d.schedule.pulled_in_issues}, slip days ${d.schedule.total_slip_days}, estimate delta ${d.schedule.estimate_delta_minutes} min`,
  ];

  if (process.env.KEEP) {
    lines.push(`kept: workspace ${workspaceId} (${slug}), project ${projectId}, baseline ${first!.id}`);
  } else {
    await db.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
    await db.deleteFrom('users').where('id', '=', userId).execute();
  }
  await composition.close();
  await handle.close();
  await drop();
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const issues = process.argv[2] ? Number.parseInt(process.argv[2], 10) : undefined;
  const runs = process.argv[3] ? Number.parseInt(process.argv[3], 10) : undefined;
  benchBaselinesScale({ databaseUrl: process.env.DATABASE_URL, quick: false, ...(issues ? { issues } : {}), ...(runs ? { runs } : {}) })
    .then((md) => console.log(md))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
