import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { openEmptyDatabase } from '../helpers/databases.js';
import { signUp } from '../helpers/factories.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

describe('migration 1080 (labels, sub-issues, relations) on data written before it', () => {
  let handle: DatabaseHandle;
  let t: TestApp;
  const now = new Date('2026-03-02T12:00:00Z');
  const user = randomUUID();
  const workspace = randomUUID();
  const project = randomUUID();
  const state = randomUUID();
  const issues = [randomUUID(), randomUUID()];

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1070_flat_totals');
    const db = handle.db;
    await sql`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
              VALUES (${user}, 'old-core@example.com', 'Old', 'x', ${now}, ${now})`.execute(db);
    await sql`INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at)
              VALUES (${workspace}, 'old-core', 'Old', ${user}, ${now}, ${now})`.execute(db);
    await sql`INSERT INTO projects (id, workspace_id, name, identifier, created_by, created_at, updated_at)
              VALUES (${project}, ${workspace}, 'Old', 'OLD', ${user}, ${now}, ${now})`.execute(db);
    await sql`INSERT INTO states (id, workspace_id, project_id, name, "group", color, sequence, created_at, updated_at)
              VALUES (${state}, ${workspace}, ${project}, 'Backlog', 'backlog', '#999999', 1, ${now}, ${now})`.execute(db);
    for (const [i, issue] of issues.entries()) {
      await sql`INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, state_id, state_group, priority, created_by, created_at, updated_at)
                VALUES (${issue}, ${workspace}, ${project}, ${i + 1}, ${'Issue ' + i}, ${state}, 'backlog', 'high', ${user}, ${now}, ${now})`.execute(db);
    }
    await migrateToLatest(db);
    t = await startTestApp({}, handle);
  });
  afterAll(async () => {
    await t?.close();
    await handle?.close();
  });

  it('reads issues stored before it with no labels, no parent, not blocked and no sub-issues, and they take all four', async () => {
    const reader = await signUp(t.api, 'Reader');
    await sql`INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES (${workspace}, ${reader.user.id}, 'member', ${now})`.execute(
      handle.db,
    );
    const o = { token: reader.token };
    const base = `/api/workspaces/old-core/projects/${project}`;
    const list = await t.api.get(`${base}/issues/`, o);
    expect(list.status, list.text).toBe(200);
    expect(list.body.total).toBe(2);
    for (const issue of list.body.results) {
      expect(issue).toMatchObject({ label_ids: [], parent_id: null, blocked: false, sub_issues: { total: 0, completed: 0 } });
    }
    const label = await t.api.post(`${base}/labels/`, { name: 'old' }, o);
    expect(label.status, label.text).toBe(201);
    const patched = await t.api.patch(`${base}/issues/${issues[1]}/`, { parent_id: issues[0], label_ids: [label.body.id] }, o);
    expect(patched.status, patched.text).toBe(200);
    const related = await t.api.post(`${base}/issues/${issues[0]}/relations/`, { type: 'blocks', issue_id: issues[1] }, o);
    expect(related.status, related.text).toBe(201);
    expect((await t.api.get(`${base}/issues/${issues[1]}/`, o)).body).toMatchObject({ parent_id: issues[0], label_ids: [label.body.id], blocked: true });
    expect((await t.api.get(`${base}/issues/${issues[0]}/`, o)).body.sub_issues).toEqual({ total: 1, completed: 0 });
    expect((await t.api.get(`${base}/issues/?label_id=${label.body.id}`, o)).body.total).toBe(1);
  });
});
