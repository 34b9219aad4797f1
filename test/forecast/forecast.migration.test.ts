import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { forecastRepository } from '../../src/modules/forecast/forecast.repository.js';
import { openEmptyDatabase } from '../helpers/databases.js';

/** Migration 1020 (the completions index) on history written before it. */
describe('migration 1020 on data written before it', () => {
  let handle: DatabaseHandle;
  const now = new Date('2026-01-15T10:00:00Z');
  const [user, workspace, project, backlog, done, issueA, issueB] = Array.from({ length: 7 }, () => randomUUID() as string) as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1000_time_tracking');
    const db = handle.db;
    await sql`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
              VALUES (${user}, 'old@example.com', 'Old', 'x', ${now}, ${now})`.execute(db);
    await sql`INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at)
              VALUES (${workspace}, 'old-one', 'Old', ${user}, ${now}, ${now})`.execute(db);
    await sql`INSERT INTO projects (id, workspace_id, name, identifier, created_by, created_at, updated_at)
              VALUES (${project}, ${workspace}, 'Old', 'OLD', ${user}, ${now}, ${now})`.execute(db);
    for (const [id, name, group, seq] of [
      [backlog, 'Backlog', 'backlog', 1],
      [done, 'Done', 'completed', 2],
    ] as const) {
      await sql`INSERT INTO states (id, workspace_id, project_id, name, "group", color, sequence, created_at, updated_at)
                VALUES (${id}, ${workspace}, ${project}, ${name}, ${group}, '#000000', ${seq}, ${now}, ${now})`.execute(db);
    }
    for (const [id, seq] of [
      [issueA, 1],
      [issueB, 2],
    ] as const) {
      await sql`INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, state_id, state_group, priority, created_by, created_at, updated_at)
                VALUES (${id}, ${workspace}, ${project}, ${seq}, 'Old issue', ${done}, 'completed', 'none', ${user}, ${now}, ${now})`.execute(db);
    }
    const ref = (state: string, group: string) => JSON.stringify({ state_id: state, group, pauses_sla: false });
    const history = [
      // A: created in the backlog, completed on Tuesday 2026-01-06; B: created straight into Done on 2026-01-13
      [issueA, '2026-01-05T09:00:00Z', 'created', null, ref(backlog, 'backlog')],
      [issueA, '2026-01-06T09:00:00Z', 'state', ref(backlog, 'backlog'), ref(done, 'completed')],
      [issueB, '2026-01-13T09:00:00Z', 'created', null, ref(done, 'completed')],
      [issueB, '2026-01-13T10:00:00Z', 'priority', JSON.stringify('none'), JSON.stringify('high')],
    ] as const;
    for (const [issue, at, kind, from, to] of history) {
      await sql`INSERT INTO issue_history (id, workspace_id, issue_id, at, actor_id, kind, "from", "to")
                VALUES (${randomUUID()}, ${workspace}, ${issue}, ${new Date(at)}, ${user}, ${kind}, ${from}::jsonb, ${to}::jsonb)`.execute(db);
    }
    await migrateToLatest(db);
  });
  afterAll(async () => handle?.close());

  const weekly = () =>
    forecastRepository().weeklyCompletions(handle.db, {
      workspaceId: workspace,
      projectId: project,
      from: new Date('2026-01-05T00:00:00Z'),
      to: new Date('2026-01-19T00:00:00Z'),
      timeZone: 'UTC',
    });

  it('counts the completions recorded before it, by week', async () => {
    const rows = await weekly();
    expect([...rows].sort((a, b) => a.week_start.localeCompare(b.week_start))).toEqual([
      { week_start: '2026-01-05', completed: 1 },
      { week_start: '2026-01-12', completed: 1 },
    ]);
  });

  it('indexes only the entries into the completed group, and the throughput query can use the index', async () => {
    const indexed = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM issue_history
      WHERE kind IN ('created', 'state') AND ("to" ->> 'group') = 'completed' AND ("from" ->> 'group') IS DISTINCT FROM 'completed'`.execute(handle.db);
    expect(indexed.rows[0]!.n).toBe(2);
    // With sequential scans priced out, the plan names the partial index: the query's conditions imply its predicate.
    const plan = await handle.db.transaction().execute(async (tx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(tx);
      await sql`SET LOCAL enable_bitmapscan = off`.execute(tx);
      return forecastRepository().explainWeeklyCompletions(tx, {
        workspaceId: workspace,
        projectId: project,
        from: new Date('2026-01-05T00:00:00Z'),
        to: new Date('2026-01-19T00:00:00Z'),
        timeZone: 'UTC',
      });
    });
    expect(plan).toContain('issue_history_completions_idx');
  });
});
