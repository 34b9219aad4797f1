/** Migration 1093 (attachments, comment edits) on data written before it: everything reads back the same, and files attach. */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { openEmptyDatabase } from '../helpers/databases.js';
import { signUp } from '../helpers/factories.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Row = Record<string, unknown>;

describe('migration 1093 on data written before it', () => {
  let handle: DatabaseHandle;
  let t: TestApp;
  const now = new Date('2026-11-02T08:30:00Z');
  const later = new Date('2026-11-03T17:45:00Z');
  const user = randomUUID();
  const workspace = randomUUID();
  const project = randomUUID();
  const state = randomUUID();
  const issues = [randomUUID(), randomUUID()];
  const comments = [randomUUID(), randomUUID(), randomUUID()];
  const minutesAfter = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
  let issuesBefore: Row[];
  let commentsBefore: Row[];

  // `phase` makes the text of the query before and after the upgrade differ: a statement prepared before it must not
  // be reused for tables whose columns it changed ("cached plan must not change result type").
  const readIssues = async (phase: string) =>
    (await sql<Row>`SELECT ${sql.raw(`'${phase}'`)} AS phase, * FROM issues WHERE workspace_id = ${workspace} ORDER BY id`.execute(handle.db)).rows.map(
      ({ phase: _, ...row }) => row,
    );
  const readComments = async (phase: string) =>
    (await sql<Row>`SELECT ${sql.raw(`'${phase}'`)} AS phase, * FROM comments WHERE workspace_id = ${workspace} ORDER BY id`.execute(handle.db)).rows.map(
      ({ phase: _, ...row }) => row,
    );

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1092_search');
    const db = handle.db;
    await sql`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
              VALUES (${user}, 'old-files@example.com', 'Old', 'x', ${now}, ${now})`.execute(db);
    await sql`INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at)
              VALUES (${workspace}, 'old-files', 'Old', ${user}, ${now}, ${now})`.execute(db);
    await sql`INSERT INTO projects (id, workspace_id, name, identifier, description, created_by, created_at, updated_at)
              VALUES (${project}, ${workspace}, 'Desk', 'OF', '', ${user}, ${now}, ${now})`.execute(db);
    await sql`INSERT INTO states (id, workspace_id, project_id, name, "group", color, sequence, is_default, created_at, updated_at)
              VALUES (${state}, ${workspace}, ${project}, 'Backlog', 'backlog', '#888888', 1000, true, ${now}, ${now})`.execute(db);
    for (const [i, issue] of issues.entries()) {
      await sql`INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, description, state_id, state_group, priority, created_by, created_at, updated_at)
                VALUES (${issue}, ${workspace}, ${project}, ${i + 1}, ${`Old issue ${i}`}, 'Yazıcı çalışmıyor', ${state}, 'backlog', 'high', ${user}, ${now}, ${now})`.execute(
        db,
      );
    }
    for (const [i, comment] of comments.entries()) {
      await sql`INSERT INTO comments (id, workspace_id, issue_id, author_id, body, created_at, updated_at)
                VALUES (${comment}, ${workspace}, ${issues[i % 2]}, ${user}, ${`Eski yorum ${i}: ğüşıöç`}, ${minutesAfter(i)}, ${i === 0 ? later : minutesAfter(i)})`.execute(
        db,
      );
    }
    issuesBefore = await readIssues('before');
    commentsBefore = await readComments('before');
    await migrateToLatest(db);
    t = await startTestApp({}, handle);
  });
  afterAll(async () => {
    await t?.close();
    await handle?.close();
  });

  it('keeps every issue and comment as it was; comments gain edited_at null', async () => {
    const issuesAfter = await readIssues('after');
    expect(issuesAfter).toEqual(issuesBefore.map((row) => expect.objectContaining(row)));
    const commentsAfter = await readComments('after');
    expect(commentsAfter).toEqual(commentsBefore.map((row) => ({ ...row, edited_at: null })));
    const { rows } = await sql<{ n: number }>`SELECT
        (SELECT count(*) FROM attachments)::int + (SELECT count(*) FROM storage_usage)::int +
        (SELECT count(*) FROM storage_reservations)::int + (SELECT count(*) FROM storage_deletions)::int AS n`.execute(handle.db);
    expect(rows[0]!.n).toBe(0);
  });

  it('shows the old issues with attachment_count 0 and the old comments unedited, without attachments; a file then attaches', async () => {
    const reader = await signUp(t.api, 'Member');
    await sql`INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES (${workspace}, ${reader.user.id}, 'member', ${now})`.execute(
      handle.db,
    );
    const o = { token: reader.token };
    const base = `/api/workspaces/old-files/projects/${project}/issues`;
    const list = await t.api.get(`${base}/`, o);
    expect(list.status, list.text).toBe(200);
    expect(list.body.results.map((i: { attachment_count: number }) => i.attachment_count)).toEqual([0, 0]);
    const listed = await t.api.get(`${base}/${issues[0]}/comments/`, o);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toEqual([
      {
        id: comments[0],
        issue_id: issues[0],
        author_id: user,
        body: 'Eski yorum 0: ğüşıöç',
        created_at: now.toISOString(),
        updated_at: later.toISOString(),
        edited_at: null,
        attachments: [],
      },
      expect.objectContaining({ id: comments[2], edited_at: null, attachments: [] }),
    ]);

    // An upload onto an old issue and onto an old comment of it.
    const send = async (commentId?: string) => {
      const form = new FormData();
      if (commentId) form.append('comment_id', commentId);
      form.append('file', new Blob([Buffer.from('after the upgrade')]), 'notes.txt');
      return fetch(`${t.url}${base}/${issues[0]}/attachments/`, { method: 'POST', headers: { authorization: `Bearer ${reader.token}` }, body: form });
    };
    const onIssue = await send();
    expect(onIssue.status, await onIssue.clone().text()).toBe(201);
    const onComment = await send(comments[0]);
    expect(onComment.status).toBe(201);
    const attachment = (await onComment.json()) as { id: string };
    expect(attachment).toMatchObject({ comment_id: comments[0], issue_id: issues[0], filename: 'notes.txt', content_type: 'text/plain', size_bytes: 17 });

    expect((await t.api.get(`${base}/${issues[0]}/`, o)).body.attachment_count).toBe(2);
    expect((await t.api.get(`${base}/${issues[1]}/`, o)).body.attachment_count).toBe(0);
    const withFile = await t.api.get(`${base}/${issues[0]}/comments/`, o);
    expect(withFile.body[0].attachments).toEqual([attachment]);
    const content = await fetch(`${t.url}${base}/${issues[0]}/attachments/${attachment.id}/content`, { headers: { authorization: `Bearer ${reader.token}` } });
    expect(await content.text()).toBe('after the upgrade');
    const usage = await t.api.get(`/api/workspaces/old-files/billing/subscription/`, o);
    expect(usage.body.limits.usage).toEqual({ storage_used_bytes: 34, storage_reserved_bytes: 0 });
  });
});
