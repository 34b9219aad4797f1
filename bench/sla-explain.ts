/**
 * Shows that the breached list is served by an index on a workspace with 1,000,000 SLA trackers.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/wis_sla npx tsx bench/sla-explain.ts
 *
 * Migrates the database if needed, seeds (once) one workspace with 1,000,000 issues and trackers using set-based
 * SQL, then prints EXPLAIN (ANALYZE, BUFFERS) of the exact first-page query and count query the service runs
 * (captured from the repository through Kysely's query log), and the timing of a few warm calls.
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
// The service's type parsers (count(*) as a number) come with its database module.
import '../src/db/database.js';
import type { Database } from '../src/db/schema.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { slaRepository } from '../src/modules/sla/index.js';

const url = process.env.DATABASE_URL;
if (!url?.startsWith('postgres')) {
  console.error('Set DATABASE_URL to a PostgreSQL database, e.g. postgres://postgres@127.0.0.1:5432/wis_sla');
  process.exit(1);
}
const TRACKERS = Number(process.env.SLA_BENCH_TRACKERS ?? 1_000_000);
const SLUG = 'sla-bench';
const T0 = new Date('2026-01-01T00:00:00.000Z');
// Issues are created one per second from T0 (about 11.6 days); "now" is 20 days later.
const NOW = new Date(T0.getTime() + 20 * 86_400_000);

const pool = new pg.Pool({ connectionString: url, max: 2 });
let captured: { sql: string; parameters: readonly unknown[] }[] = [];
const db = new Kysely<Database>({
  dialect: new PostgresDialect({ pool }),
  log: (event) => {
    if (event.level === 'query') captured.push({ sql: event.query.sql, parameters: event.query.parameters });
  },
});

async function seed(): Promise<string> {
  const existing = await db.selectFrom('workspaces').select('id').where('slug', '=', SLUG).executeTakeFirst();
  if (existing) {
    const { n } = await db
      .selectFrom('sla_trackers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', existing.id)
      .executeTakeFirstOrThrow();
    if (n === TRACKERS) return existing.id;
    await db.deleteFrom('workspaces').where('id', '=', existing.id).execute();
  }
  console.log(`seeding ${TRACKERS.toLocaleString('en')} issues and trackers ...`);
  const started = Date.now();
  const ids = await db.transaction().execute(async (tx) => {
    const r = await sql<{ user_id: string; ws: string; project: string; state: string; policy: string }>`
      WITH u AS (
        INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
        VALUES (gen_random_uuid(), 'sla-bench-' || gen_random_uuid() || '@example.com', 'Bench', 'x', ${T0}, ${T0})
        RETURNING id
      ), w AS (
        INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at)
        SELECT gen_random_uuid(), ${SLUG}, 'SLA bench', u.id, ${T0}, ${T0} FROM u RETURNING id, created_by
      ), m AS (
        INSERT INTO workspace_members (workspace_id, user_id, role, created_at)
        SELECT w.id, w.created_by, 'admin', ${T0} FROM w RETURNING workspace_id
      ), p AS (
        INSERT INTO projects (id, workspace_id, name, identifier, created_by, created_at, updated_at)
        SELECT gen_random_uuid(), w.id, 'Bench', 'BENCH', w.created_by, ${T0}, ${T0} FROM w RETURNING id, workspace_id
      ), s AS (
        INSERT INTO states (id, workspace_id, project_id, name, "group", color, sequence, is_default, created_at, updated_at)
        SELECT gen_random_uuid(), p.workspace_id, p.id, 'Backlog', 'backlog', '#A3A3A3', 1000, true, ${T0}, ${T0} FROM p
        RETURNING id
      ), pol AS (
        INSERT INTO sla_policies (id, workspace_id, name, is_default, created_at, updated_at)
        SELECT gen_random_uuid(), w.id, 'Standard', true, ${T0}, ${T0} FROM w RETURNING id
      )
      SELECT u.id AS user_id, w.id AS ws, p.id AS project, s.id AS state, pol.id AS policy FROM u, w, p, s, pol
    `.execute(tx);
    const ids = r.rows[0]!;
    await sql`
      INSERT INTO sla_rules (workspace_id, policy_id, priority, response_time_h, resolution_time_h, response_ms, resolution_ms)
      SELECT ${ids.ws}::uuid, ${ids.policy}::uuid, v.priority, v.resp, v.res, (v.resp * 3600000)::bigint, (v.res * 3600000)::bigint
      FROM (VALUES ('urgent', 1, 4), ('high', 4, 24), ('medium', 8, 72), ('low', 24, 168)) AS v(priority, resp, res)
    `.execute(tx);
    await sql`
      INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, state_id, state_group, priority, created_by, created_at, updated_at)
      SELECT gen_random_uuid(), ${ids.ws}::uuid, ${ids.project}::uuid, g, 'Issue ' || g, ${ids.state}::uuid, 'backlog',
             (ARRAY['urgent', 'high', 'medium', 'low'])[1 + g % 4], ${ids.user_id}::uuid,
             ${T0}::timestamptz + g * interval '1 second', ${T0}::timestamptz + g * interval '1 second'
      FROM generate_series(1, ${TRACKERS}::int) AS g
    `.execute(tx);
    await sql`UPDATE projects SET issue_seq = ${TRACKERS}::int WHERE id = ${ids.project}::uuid`.execute(tx);
    // 30 % met both targets in time (no breach, ever), 10 % met both late, 60 % still open (breached by NOW).
    await sql`
      INSERT INTO sla_trackers (id, workspace_id, issue_id, policy_id, priority, response_due_at, resolution_due_at,
                                responded_at, resolved_at, created_at, updated_at)
      SELECT gen_random_uuid(), i.workspace_id, i.id, r.policy_id, r.priority,
             i.created_at + r.response_ms * interval '1 millisecond',
             i.created_at + r.resolution_ms * interval '1 millisecond',
             CASE WHEN i.sequence_id % 10 < 3 THEN i.created_at + interval '6 minutes'
                  WHEN i.sequence_id % 10 = 3 THEN i.created_at + r.response_ms * interval '2 milliseconds' END,
             CASE WHEN i.sequence_id % 10 < 3 THEN i.created_at + interval '30 minutes'
                  WHEN i.sequence_id % 10 = 3 THEN i.created_at + r.resolution_ms * interval '2 milliseconds' END,
             i.created_at, i.created_at
      FROM issues i JOIN sla_rules r ON r.policy_id = ${ids.policy}::uuid AND r.priority = i.priority
      WHERE i.workspace_id = ${ids.ws}::uuid
    `.execute(tx);
    return ids;
  });
  console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return ids.ws;
}

async function explain(label: string, query: { sql: string; parameters: readonly unknown[] }) {
  const res = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${query.sql}`, query.parameters as unknown[]);
  console.log(`\n=== ${label} ===\n${query.sql}\n-- parameters: ${JSON.stringify(query.parameters)}\n`);
  console.log(res.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
}

async function main() {
  await migrateToLatest(db);
  const workspaceId = await seed();
  await sql`VACUUM ANALYZE sla_trackers`.execute(db);
  await sql`VACUUM ANALYZE issues`.execute(db);
  const repo = slaRepository();
  const { n } = await db
    .selectFrom('sla_trackers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  console.log(`workspace ${workspaceId}: ${n.toLocaleString('en')} trackers; now = ${NOW.toISOString()}`);

  captured = [];
  await repo.listBreached(db, workspaceId, NOW, { offset: 0, per_page: 20 });
  const pageQuery = captured[0]!;
  captured = [];
  const total = await repo.countBreached(db, workspaceId, NOW);
  const countQuery = captured[0]!;
  console.log(`breached now: ${total.toLocaleString('en')}`);

  await explain('first page (offset 0, per_page 20)', pageQuery);
  await explain('total (count of breached trackers)', countQuery);
  captured = [];
  await repo.listBreached(db, workspaceId, NOW, { offset: 10_000, per_page: 20 });
  await explain('a deep page (offset 10000, per_page 20)', captured[0]!);

  const time = async (label: string, fn: () => Promise<unknown>) => {
    const runs: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      await fn();
      runs.push(performance.now() - t);
    }
    runs.sort((a, b) => a - b);
    console.log(`${label}: median ${runs[5]!.toFixed(2)} ms, min ${runs[0]!.toFixed(2)} ms, max ${runs[9]!.toFixed(2)} ms (10 warm runs)`);
  };
  console.log('\n=== client-side timings ===');
  await time('first page', () => repo.listBreached(db, workspaceId, NOW, { offset: 0, per_page: 20 }));
  await time('count', () => repo.countBreached(db, workspaceId, NOW));
  await db.destroy();
}

await main();
