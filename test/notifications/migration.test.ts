/** Migration 1095 (notifications) on data written before it: existing issues gain their watchers, who are then told. */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { openEmptyDatabase } from '../helpers/databases.js';
import { signUp } from '../helpers/factories.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

describe('migration 1095 on data written before it', () => {
  let handle: DatabaseHandle;
  let t: TestApp;
  const now = new Date('2026-11-02T08:30:00Z');
  const [creator, assignee, commenter, both] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const workspace = randomUUID();
  const project = randomUUID();
  const [backlog, started] = [randomUUID(), randomUUID()];
  const issues = [randomUUID(), randomUUID()];

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1094_tus_uploads');
    const db = handle.db;
    for (const [i, id] of [creator, assignee, commenter, both].entries()) {
      await sql`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
                VALUES (${id}, ${`old-${i}-${id.slice(0, 8)}@example.com`}, ${`Old ${i}`}, 'x', ${now}, ${now})`.execute(db);
    }
    await sql`INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at)
              VALUES (${workspace}, 'old-watchers', 'Old', ${creator}, ${now}, ${now})`.execute(db);
    for (const id of [creator, assignee, commenter, both]) {
      await sql`INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES (${workspace}, ${id}, ${id === creator ? 'admin' : 'member'}, ${now})`.execute(
        db,
      );
    }
    await sql`INSERT INTO projects (id, workspace_id, name, identifier, description, created_by, created_at, updated_at)
              VALUES (${project}, ${workspace}, 'Desk', 'OW', '', ${creator}, ${now}, ${now})`.execute(db);
    for (const [i, [id, group]] of [
      [backlog, 'backlog'],
      [started, 'started'],
    ].entries()) {
      await sql`INSERT INTO states (id, workspace_id, project_id, name, "group", color, sequence, is_default, created_at, updated_at)
                VALUES (${id}, ${workspace}, ${project}, ${group}, ${group}, '#888888', ${i * 1000}, ${i === 0}, ${now}, ${now})`.execute(db);
    }
    await sql`INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, description, state_id, state_group, priority, assignee_ids, created_by, created_at, updated_at)
              VALUES (${issues[0]}, ${workspace}, ${project}, 1, 'Old one', '', ${backlog}, 'backlog', 'high', ${[assignee, both]}, ${creator}, ${now}, ${now}),
                     (${issues[1]}, ${workspace}, ${project}, 2, 'Old two', '', ${backlog}, 'backlog', 'low', ${[]}, ${creator}, ${now}, ${now})`.execute(db);
    for (const author of [commenter, both, commenter]) {
      await sql`INSERT INTO comments (id, workspace_id, issue_id, author_id, body, created_at, updated_at)
                VALUES (${randomUUID()}, ${workspace}, ${issues[0]}, ${author}, 'old comment', ${now}, ${now})`.execute(db);
    }
    await migrateToLatest(db);
    t = await startTestApp({}, handle);
  });
  afterAll(async () => {
    await t?.close();
    await handle?.close();
  });

  it('backfills the creator, the assignees and the commenters as watchers, once each', async () => {
    const { rows } = await sql<{ issue_id: string; user_id: string; source: string; unwatched: boolean }>`
      SELECT issue_id, user_id, source, unwatched FROM issue_watchers WHERE workspace_id = ${workspace} ORDER BY issue_id, user_id`.execute(handle.db);
    const of = (issue: string) =>
      rows
        .filter((r) => r.issue_id === issue)
        .map((r) => `${r.user_id}:${r.source}`)
        .sort();
    expect(of(issues[0]!)).toEqual([`${creator}:creator`, `${assignee}:assignee`, `${both}:assignee`, `${commenter}:commenter`].sort());
    expect(of(issues[1]!)).toEqual([`${creator}:creator`]);
    expect(rows.every((r) => !r.unwatched)).toBe(true);
    const { rows: n } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM notifications`.execute(handle.db);
    expect(n[0]!.n).toBe(0);
  });

  it('tells the backfilled watchers of a change after the upgrade, and shows `watching`', async () => {
    const editor = await signUp(t.api, 'Editor');
    await sql`INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES (${workspace}, ${editor.user.id}, 'member', ${now})`.execute(
      handle.db,
    );
    const base = `/api/workspaces/old-watchers/projects/${project}/issues/`;
    const res = await t.api.patch(`${base}${issues[0]}/`, { state_id: started }, { token: editor.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.watching).toBe(false);
    const { rows } = await sql<{ user_id: string; kind: string; data: any }>`
      SELECT user_id, kind, data FROM notifications WHERE workspace_id = ${workspace} ORDER BY user_id`.execute(handle.db);
    expect(rows.map((r) => r.user_id).sort()).toEqual([creator, assignee, commenter, both].sort());
    expect(rows.every((r) => r.kind === 'state_changed')).toBe(true);
    expect(rows[0]!.data).toEqual({
      project_id: project,
      from: { id: backlog, name: 'backlog', group: 'backlog' },
      to: { id: started, name: 'started', group: 'started' },
    });
  });
});
