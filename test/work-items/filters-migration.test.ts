import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { openEmptyDatabase } from '../helpers/databases.js';

/** Every combination an issue counts in, counted from the issues themselves (what `issue_counts` must hold). */
const FULL_COUNT = sql`
  SELECT i.workspace_id, k.by_assignee, k.assignee_id, i.project_id, i.state_id, i.state_group, i.priority, i.created_by, count(*)::bigint AS n
  FROM issues i, issue_count_assignees(i.assignee_ids) k GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`;
const KEPT = sql`
  SELECT workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by, sum(n)::bigint AS n
  FROM (SELECT workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by, n FROM issue_counts
        UNION ALL
        SELECT workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by, n FROM issue_count_changes) c
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 HAVING sum(n) <> 0`;

describe('migration 1090 (kept issue counts) on issues written before it', () => {
  let handle: DatabaseHandle;
  const now = new Date('2026-03-02T12:00:00Z');
  const [owner, member] = [randomUUID(), randomUUID()];
  const workspace = randomUUID();
  const project = randomUUID();
  const [backlog, started] = [randomUUID(), randomUUID()];

  const difference = async () => {
    const missing = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ((${FULL_COUNT}) EXCEPT (${KEPT})) d`.execute(handle.db);
    const extra = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ((${KEPT}) EXCEPT (${FULL_COUNT})) d`.execute(handle.db);
    return [missing.rows[0]!.n, extra.rows[0]!.n];
  };

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1080_work_item_core');
    const db = handle.db;
    for (const [id, email] of [
      [owner, 'old-owner@example.com'],
      [member, 'old-member@example.com'],
    ] as const) {
      await sql`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at) VALUES (${id}, ${email}, 'Old', 'x', ${now}, ${now})`.execute(
        db,
      );
    }
    await sql`INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at) VALUES (${workspace}, 'old-filters', 'Old', ${owner}, ${now}, ${now})`.execute(
      db,
    );
    await sql`INSERT INTO projects (id, workspace_id, name, identifier, created_by, created_at, updated_at)
              VALUES (${project}, ${workspace}, 'Old', 'OLD', ${owner}, ${now}, ${now})`.execute(db);
    for (const [id, group] of [
      [backlog, 'backlog'],
      [started, 'started'],
    ] as const) {
      await sql`INSERT INTO states (id, workspace_id, project_id, name, "group", color, sequence, created_at, updated_at)
                VALUES (${id}, ${workspace}, ${project}, ${group}, ${group}, '#999999', 1, ${now}, ${now})`.execute(db);
    }
    const assignees = [[], [owner], [owner, member], [member]];
    for (let i = 0; i < 12; i++) {
      await sql`INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, state_id, state_group, priority, assignee_ids, created_by, created_at, updated_at)
                VALUES (${randomUUID()}, ${workspace}, ${project}, ${i + 1}, ${`Issue ${i}`}, ${i % 3 ? backlog : started}, ${i % 3 ? 'backlog' : 'started'},
                        ${['high', 'none'][i % 2]}, ${assignees[i % 4]}::uuid[], ${i % 5 ? owner : member}, ${now}, ${now})`.execute(db);
    }
    await migrateToLatest(db);
  });
  afterAll(async () => handle?.close());

  it('counts every issue stored before it, and keeps counting the writes after it', async () => {
    const kept = await sql<{ n: number }>`SELECT sum(n)::int AS n FROM issue_counts WHERE NOT by_assignee`.execute(handle.db);
    expect(kept.rows[0]!.n).toBe(12);
    expect(await difference()).toEqual([0, 0]);
    await sql`UPDATE issues SET assignee_ids = ${[member]}::uuid[], state_id = ${started}, state_group = 'started' WHERE sequence_id IN (1, 2, 3)`.execute(
      handle.db,
    );
    await sql`DELETE FROM issues WHERE sequence_id = 4`.execute(handle.db);
    expect(await difference()).toEqual([0, 0]);
  });
});
