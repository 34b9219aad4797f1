import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('tenant keys in the database (migration 0900)', () => {
  it('has no foreign key from a tenant table to a tenant table that leaves out workspace_id', async () => {
    // Every constraint whose child and parent both carry workspace_id must include it among its columns, or
    // project_id, which its own (workspace_id, project_id) key ties to the workspace (issues -> states).
    const rows = await sql<{ child: string; name: string }>`
      SELECT c.conrelid::regclass::text AS child, c.conname AS name
      FROM pg_constraint c
      WHERE c.contype = 'f'
        AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.conrelid AND a.attname = 'workspace_id' AND NOT a.attisdropped)
        AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.confrelid AND a.attname = 'workspace_id' AND NOT a.attisdropped)
        AND NOT EXISTS (
          SELECT 1 FROM unnest(c.conkey) k JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k
          WHERE a.attname IN ('workspace_id', 'project_id'))
      ORDER BY 1, 2`.execute(ctx().database.db);
    expect(rows.rows).toEqual([]);
  });

  it('refuses a comment or history entry pointing at an issue of another workspace', async () => {
    const { api, database } = ctx();
    const mine = await createWorkspace(api);
    const theirs = await createWorkspace(api);
    const project = await createProject(api, theirs);
    const issue = await createIssue(api, theirs, project.id);
    const db = database.db;

    const foreignComment = db.insertInto('comments').values({
      id: randomUUID(),
      workspace_id: mine.workspaceId,
      issue_id: issue.id,
      author_id: mine.admin.user.id,
      body: 'cross-tenant',
      created_at: new Date(),
      updated_at: new Date(),
    });
    await expect(foreignComment.execute()).rejects.toMatchObject({ code: '23503' });

    const foreignHistory = sql`
      INSERT INTO issue_history (id, workspace_id, issue_id, at, kind)
      VALUES (${randomUUID()}, ${mine.workspaceId}, ${issue.id}, now(), 'comment')`;
    await expect(foreignHistory.execute(db)).rejects.toMatchObject({ code: '23503' });

    // The same rows in the issue's own workspace are accepted.
    await db
      .insertInto('comments')
      .values({
        id: randomUUID(),
        workspace_id: theirs.workspaceId,
        issue_id: issue.id,
        author_id: theirs.admin.user.id,
        body: 'same tenant',
        created_at: new Date(),
        updated_at: new Date(),
      })
      .execute();
  });
});
