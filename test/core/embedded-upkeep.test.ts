import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, type WorkspaceFixture } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

/**
 * The embedded database's upkeep (`db.upkeep`, src/db/embedded-upkeep.ts): PGlite runs no autovacuum, so a duty
 * vacuums and analyzes the tables that autovacuum's rules say are due. Through the app: the writes are HTTP requests,
 * the duties are the app's own jobs, run by hand as the job runner would.
 */
const ctx = useTestApp();
const embedded = !process.env.DATABASE_URL;

const job = (name: string) => {
  const found = ctx().app.jobs.find((j) => j.name === name);
  if (!found) throw new Error(`no job ${name}`);
  return found;
};
const upkeep = () => job('db.upkeep').run() as Promise<{ vacuumed: string[]; analyzed: string[] }>;

/** A table's activity counters, made current first (PGlite reports them only now and then). */
async function activity(table: string) {
  const { db } = ctx().database;
  await sql`SELECT pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<{ dead: number; pages: number; reltuples: number }>`
    SELECT pg_stat_get_dead_tuples(c.oid) AS dead, pg_relation_size(c.oid) / current_setting('block_size')::int AS pages, c.reltuples
    FROM pg_class c WHERE c.oid = ${table}::regclass`.execute(db);
  return rows[0]!;
}

describe.runIf(embedded)('the embedded database upkeep', () => {
  let ws: WorkspaceFixture;
  let projectId: string;
  let issueIds: string[];

  beforeAll(async () => {
    const { api } = ctx();
    ws = await createWorkspace(api);
    projectId = (await createProject(api, ws)).id;
    issueIds = [];
    for (let n = 0; n < 50; n++) issueIds.push((await createIssue(api, ws, projectId, { name: `Issue ${n}`, priority: 'low' })).id);
  });

  it('vacuums away the changes of the kept issue counts that the issues.counts job moved', async () => {
    const { api } = ctx();
    // The creations' changes folded, and whatever they made due done.
    await job('issues.counts').run();
    await upkeep();
    // 30 bulk priority changes of 50 issues: each change appends 4 rows (the two kinds of row the issue left and entered),
    // 6,000 in all, over the 5,000 dead rows after which 1090 has the table vacuumed.
    for (let k = 0; k < 30; k++) {
      const res = await api.post(
        `/api/workspaces/${ws.slug}/projects/${projectId}/issues/bulk/`,
        { issue_ids: issueIds, set: { priority: k % 2 === 0 ? 'high' : 'low' } },
        { token: ws.admin.token },
      );
      expect(res.status, res.text).toBe(200);
    }
    expect(await job('issues.counts').run()).toBe(6_000);
    const before = await activity('issue_count_changes');
    expect(before.dead).toBeGreaterThanOrEqual(6_000);
    expect(before.pages).toBeGreaterThan(0);

    const done = await upkeep();
    expect(done.vacuumed).toContain('issue_count_changes');
    const after = await activity('issue_count_changes');
    expect(after.dead).toBe(0);
    // Every row was dead, so the vacuum gave all the pages back.
    expect(after.pages).toBe(0);
  });

  it('analyzes a table whose statistics no longer describe it', async () => {
    const { db } = ctx().database;
    // The migrations analyzed `issues` while it was empty (the template is built before any data).
    await sql`ANALYZE issues`.execute(db);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM issues`.execute(db);
    expect(await upkeep()).toEqual({ vacuumed: [], analyzed: [] });
    const { api } = ctx();
    // A tenth of the table and 50 more rows changed since that analyze: due again.
    for (let n = 0; n < 60 + rows[0]!.n / 10; n++) await createIssue(api, ws, projectId, { name: `More ${n}` });
    const done = await upkeep();
    expect(done.analyzed).toContain('issues');
    const { rows: counted } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM issues`.execute(db);
    expect((await activity('issues')).reltuples).toBe(counted[0]!.n);
  });

  it('does nothing when nothing is due', async () => {
    await upkeep();
    expect(await upkeep()).toEqual({ vacuumed: [], analyzed: [] });
  });
});

describe.runIf(!embedded)('on PostgreSQL', () => {
  it('leaves vacuum and analyze to autovacuum: there is no db.upkeep duty', () => {
    expect(ctx().app.jobs.map((j) => j.name)).not.toContain('db.upkeep');
  });
});
