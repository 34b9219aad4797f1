/**
 * Scale benchmark of project baselines: one project with N issues (default 100,000), then
 *   (a) a baseline through the service (one REPEATABLE READ transaction: per-issue rows + counts),
 *   (b) its deviation after ~1% of the issues changed (plus 0.1% added and 0.1% deleted),
 *   (c) the raw aggregate SQL alone (SELECT state_group, priority, count(*) ... GROUP BY), for comparison,
 *   (d) deleting a baseline with its N per-issue rows.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/wis_bl npx tsx bench/baselines-scale.ts [issues] [runs]
 *
 * Without DATABASE_URL it runs on an in-memory PGlite. The seed is set-based SQL (generate_series) in a workspace of
 * its own, removed at the end (KEEP=1 keeps it, to look at query plans).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { loadConfig } from '../src/config/config.js';
import { type DatabaseHandle, openPostgres, wrapPglite } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { buildServices } from '../src/services.js';
import { newId } from '../src/kernel/ids.js';

const N = Number.parseInt(process.argv[2] ?? '100000', 10);
const RUNS = Number.parseInt(process.argv[3] ?? '5', 10);

async function open(): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL;
  if (url) return openPostgres(url, 4);
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create();
  return wrapPglite(pglite, () => pglite.close());
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

async function main() {
  const handle = await open();
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

  // ---- (a) baseline creation -------------------------------------------------------------------------------------
  const create: number[] = [];
  let first: Awaited<ReturnType<typeof baselines.create>> | undefined;
  for (let i = 0; i < RUNS; i++) {
    const r = await time(() => baselines.create(actor, slug, projectId, { name: `Run ${i}` }));
    create.push(r.ms);
    first ??= r.value;
    if (r.value.total_issues !== N) throw new Error(`baseline counted ${r.value.total_issues} issues, expected ${N}`);
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
  const list = await baselines.list(actor, slug, projectId);
  const del: number[] = [];
  for (const b of list.slice(0, Math.max(1, RUNS - 1))) del.push((await time(() => baselines.remove(actor, slug, b.id))).ms);

  const d = lastDeviation!;
  const fmt = (n: number) => n.toFixed(1).padStart(8);
  const row = (label: string, ms: number[]) => {
    const s = stats(ms);
    console.log(`${label.padEnd(44)}${fmt(s.min)}${fmt(s.median)}${fmt(s.max)}`);
  };
  console.log(`\nBaselines at scale: ${N.toLocaleString('en')} issues, ${handle.kind}, ${RUNS} runs each (ms)`);
  console.log(`seed (set-based insert + ANALYZE): ${seed.ms.toFixed(0)} ms; changes: ${changes.ms.toFixed(0)} ms`);
  console.log(`${''.padEnd(44)}${'min'.padStart(8)}${'median'.padStart(8)}${'max'.padStart(8)}`);
  row('(a) create baseline (service, RR tx)', create);
  row('(b) deviation (service, RR read-only tx)', dev);
  row('(c) raw aggregate SQL alone', raw);
  row('(d) delete baseline (service)', del);
  console.log(
    `deviation: issues_delta ${d.issues_delta}, added ${d.added.count}, removed ${d.removed.count}, changed ${d.changed.count} ` +
      `(items returned: ${d.added.items.length}/${d.removed.items.length}/${d.changed.items.length})`,
  );

  if (process.env.KEEP) {
    console.log(`kept: workspace ${workspaceId} (${slug}), project ${projectId}, baseline ${first!.id}`);
  } else {
    await db.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
    await db.deleteFrom('users').where('id', '=', userId).execute();
  }
  await composition.close();
  await handle.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
