/** Editing and deleting comments, their attachments and the issues' attachment_count (contract 25.1), through HTTP. */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { AttachmentView } from '../../src/modules/work-items/index.js';
import { createIssue, createProject, createWorkspace, expectProblem, type WorkspaceFixture } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

async function setup() {
  const { api } = ctx();
  const ws = await createWorkspace(api);
  const project = await createProject(api, ws);
  const issue = await createIssue(api, ws, project.id);
  const comments = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/comments/`;
  const comment = async (body: string, token = ws.admin.token) => {
    const res = await api.post(comments, { body }, { token });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; author_id: string; body: string; created_at: string; updated_at: string; edited_at: string | null };
  };
  const list = async (token = ws.admin.token) => {
    const res = await api.get(comments, { token });
    expect(res.status, res.text).toBe(200);
    return res.body as { id: string; body: string; edited_at: string | null; attachments: AttachmentView[] }[];
  };
  return { api, ws, project, issue, comments, comment, list };
}

/** A stored attachment row, written directly (the attachments module's upload is tested by its own tests). */
async function insertAttachment(ws: WorkspaceFixture, issueId: string, commentId: string | null) {
  const id = randomUUID();
  await sql`INSERT INTO attachments (id, workspace_id, issue_id, comment_id, filename, content_type, size_bytes, sha256, storage_key, created_by, created_at)
            VALUES (${id}, ${ws.workspaceId}, ${issueId}, ${commentId}, 'notes.txt', 'text/plain', 5, ${'0'.repeat(64)},
                    ${`test/${id}`}, ${ws.admin.user.id}, now())`.execute(ctx().database.db);
  return id;
}

describe('comments: edit and delete', () => {
  it('a new comment has edited_at null and no attachments, in its answer, the list and the comment.created event', async () => {
    const { ws, comment, list } = await setup();
    const created = await comment('First!');
    expect(created).toMatchObject({ body: 'First!', edited_at: null, attachments: [] });
    expect(await list()).toEqual([created]);
    const { rows } = await sql<{ data: { comment: unknown } }>`SELECT data FROM events
      WHERE workspace_id = ${ws.workspaceId} AND type = 'comment.created'`.execute(ctx().database.db);
    expect(rows.map((r) => r.data.comment)).toEqual([created]);
  });

  it('lets the author edit the body: edited_at set, updated_at moves, created_at stays', async () => {
    const { api, ws, comments, comment, list } = await setup();
    const { clock } = ctx();
    const member = await ws.addUser('member');
    const created = await comment('Frist post', member.token);
    clock.advanceHours(1);
    const res = await api.patch(`${comments}${created.id}/`, { body: 'First post' }, { token: member.token });
    expect(res.status, res.text).toBe(200);
    const now = clock.now().toISOString();
    expect(res.body).toMatchObject({ id: created.id, body: 'First post', created_at: created.created_at, updated_at: now, edited_at: now, attachments: [] });
    expect(res.body.updated_at).not.toBe(created.updated_at);
    expect(await list()).toEqual([res.body]);
  });

  it('forbids editing by anyone but the author, even an admin or a guest', async () => {
    const { api, ws, comments, comment, list } = await setup();
    const author = await ws.addUser('member', 'Author');
    const other = await ws.addUser('member', 'Other');
    const admin = await ws.addUser('admin', 'Second admin');
    const guest = await ws.addUser('guest');
    const created = await comment('Mine', author.token);
    for (const user of [other, admin, ws.admin, guest]) {
      expectProblem(await api.patch(`${comments}${created.id}/`, { body: 'Theirs' }, { token: user.token }), 403, 'forbidden');
    }
    expect((await list())[0]).toMatchObject({ body: 'Mine', edited_at: null });

    // A guest comments, and edits and deletes its own comment.
    const own = await comment('By a guest', guest.token);
    const edited = await api.patch(`${comments}${own.id}/`, { body: 'By a guest, edited' }, { token: guest.token });
    expect(edited.status, edited.text).toBe(200);
    expect((await api.delete(`${comments}${own.id}/`, { token: guest.token })).status).toBe(204);
  });

  it('validates the body as creating does: 400 problem+json', async () => {
    const { api, ws, comments, comment } = await setup();
    const created = await comment('Valid');
    const url = `${comments}${created.id}/`;
    const t = { token: ws.admin.token };
    for (const body of [{}, { body: '' }, { body: '   ' }, { body: 'x'.repeat(100_001) }, { body: 42 }]) {
      expectProblem(await api.patch(url, body, t), 400, 'validation_failed');
    }
    expect((await api.patch(url, { body: 'x'.repeat(100_000) }, t)).status).toBe(200);
  });

  it('lets the author or an admin delete a comment, not another member: 204 and gone from the list', async () => {
    const { api, ws, comments, comment, list } = await setup();
    const author = await ws.addUser('member', 'Author');
    const other = await ws.addUser('member', 'Other');
    const guest = await ws.addUser('guest');
    const byAuthor = await comment('Deleted by its author', author.token);
    const byAdmin = await comment('Deleted by an admin', author.token);
    const kept = await comment('Kept', author.token);
    expectProblem(await api.delete(`${comments}${kept.id}/`, { token: other.token }), 403, 'forbidden');
    expectProblem(await api.delete(`${comments}${kept.id}/`, { token: guest.token }), 403, 'forbidden');
    expect((await api.delete(`${comments}${byAuthor.id}/`, { token: author.token })).status).toBe(204);
    expect((await api.delete(`${comments}${byAdmin.id}/`, { token: ws.admin.token })).status).toBe(204);
    expect((await list()).map((c) => c.id)).toEqual([kept.id]);
    // Gone: a second delete and an edit answer 404.
    expectProblem(await api.delete(`${comments}${byAuthor.id}/`, { token: author.token }), 404);
    expectProblem(await api.patch(`${comments}${byAuthor.id}/`, { body: 'Back' }, { token: author.token }), 404);
  });

  it('answers 404 for a comment of another issue, project or workspace, by either path', async () => {
    const { api, ws, project, comments, comment } = await setup();
    const mine = await comment('Mine');
    const t = { token: ws.admin.token };
    // A comment of another issue of the same project, under this issue's path.
    const sibling = await createIssue(api, ws, project.id);
    const siblingComments = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${sibling.id}/comments/`;
    expectProblem(await api.patch(`${siblingComments}${mine.id}/`, { body: 'x' }, t), 404);
    expectProblem(await api.delete(`${siblingComments}${mine.id}/`, t), 404);
    // This issue under another project's path.
    const otherProject = await createProject(api, ws);
    const wrongProject = comments.replace(project.id, otherProject.id);
    expectProblem(await api.patch(`${wrongProject}${mine.id}/`, { body: 'x' }, t), 404);
    expectProblem(await api.delete(`${wrongProject}${mine.id}/`, t), 404);

    // Another workspace's comment: neither through its own path (not a member) nor through this workspace's.
    const theirs = await createWorkspace(api);
    const theirProject = await createProject(api, theirs);
    const theirIssue = await createIssue(api, theirs, theirProject.id);
    const theirComments = `/api/workspaces/${theirs.slug}/projects/${theirProject.id}/issues/${theirIssue.id}/comments/`;
    const theirComment = await api.post(theirComments, { body: 'Theirs' }, { token: theirs.admin.token });
    expect(theirComment.status).toBe(201);
    expectProblem(await api.patch(`${theirComments}${theirComment.body.id}/`, { body: 'x' }, t), 404);
    expectProblem(await api.delete(`${theirComments}${theirComment.body.id}/`, t), 404);
    expectProblem(await api.patch(`${comments}${theirComment.body.id}/`, { body: 'x' }, t), 404);
    expectProblem(await api.delete(`${comments}${theirComment.body.id}/`, t), 404);
    const crossed = `/api/workspaces/${ws.slug}/projects/${theirProject.id}/issues/${theirIssue.id}/comments/${theirComment.body.id}/`;
    expectProblem(await api.patch(crossed, { body: 'x' }, t), 404);
    expectProblem(await api.delete(crossed, t), 404);
    const still = await api.get(theirComments, { token: theirs.admin.token });
    expect(still.body).toMatchObject([{ id: theirComment.body.id, body: 'Theirs', edited_at: null }]);
  });

  it("search finds an edited comment's new words and no longer its old ones, nor a deleted comment's", async () => {
    const { api, ws, issue, comments, comment } = await setup();
    const search = async (q: string) => {
      const res = await api.get(`/api/workspaces/${ws.slug}/search/?${new URLSearchParams({ q })}`, { token: ws.admin.token });
      expect(res.status, res.text).toBe(200);
      return res.body.results.map((r: { issue: { id: string } }) => r.issue.id);
    };
    const created = await comment('The zeppelin landed');
    expect(await search('zeppelin')).toEqual([issue.id]);
    expect((await api.patch(`${comments}${created.id}/`, { body: 'The hovercraft docked' }, { token: ws.admin.token })).status).toBe(200);
    expect(await search('zeppelin')).toEqual([]);
    expect(await search('hovercraft')).toEqual([issue.id]);
    expect((await api.delete(`${comments}${created.id}/`, { token: ws.admin.token })).status).toBe(204);
    expect(await search('hovercraft')).toEqual([]);
  });
});

describe('attachments on issues and comments', () => {
  it('answers attachment_count on issues: 0 when new, in the list and one issue, counting the files of its comments', async () => {
    const { api, ws, project, issue, comment } = await setup();
    const t = { token: ws.admin.token };
    const issues = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/`;
    expect(issue).toMatchObject({ attachment_count: 0 });
    expect((await api.get(`${issues}${issue.id}/`, t)).body.attachment_count).toBe(0);
    expect((await api.get(issues, t)).body.results).toMatchObject([{ id: issue.id, attachment_count: 0 }]);
    expect((await api.get(`/api/workspaces/${ws.slug}/issues/`, t)).body.results).toMatchObject([{ id: issue.id, attachment_count: 0 }]);

    const other = await createIssue(api, ws, project.id);
    const created = await comment('With a file');
    await insertAttachment(ws, issue.id, null);
    await insertAttachment(ws, issue.id, created.id);
    await insertAttachment(ws, other.id, null);
    expect((await api.get(`${issues}${issue.id}/`, t)).body.attachment_count).toBe(2);
    const listed = (await api.get(issues, t)).body.results as { id: string; attachment_count: number }[];
    expect(Object.fromEntries(listed.map((i) => [i.id, i.attachment_count]))).toEqual({ [issue.id]: 2, [other.id]: 1 });
    // An edit answers the issue as it reads now.
    expect((await api.patch(`${issues}${issue.id}/`, { name: 'Renamed' }, t)).body.attachment_count).toBe(2);

    // Deleting the comment deletes its attachments.
    const url = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/comments/${created.id}/`;
    expect((await api.delete(url, t)).status).toBe(204);
    expect((await api.get(`${issues}${issue.id}/`, t)).body.attachment_count).toBe(1);
  });

  it("shows each comment's attachments from the registered provider, asked once per list", async () => {
    const { api, ws, comments, comment, list } = await setup();
    const { app } = ctx();
    const first = await comment('One');
    const second = await comment('Two');
    const record = (commentId: string): AttachmentView => ({
      id: randomUUID(),
      issue_id: randomUUID(),
      comment_id: commentId,
      filename: 'screenshot.png',
      content_type: 'image/png',
      size_bytes: 1234,
      sha256: 'a'.repeat(64),
      created_by: ws.admin.user.id,
      created_at: new Date().toISOString(),
      image: { width: 640, height: 480 },
    });
    const shown = record(second.id);
    const calls: string[][] = [];
    app.services.workItems.registerCommentAttachments(async (_tx, workspaceId, commentIds) => {
      expect(workspaceId).toBe(ws.workspaceId);
      calls.push(commentIds);
      return new Map(commentIds.filter((id) => id === second.id).map((id) => [id, [shown]]));
    });
    const listed = await list();
    expect(calls).toEqual([[first.id, second.id]]);
    expect(listed.map((c) => c.attachments)).toEqual([[], [shown]]);

    const edited = await api.patch(`${comments}${second.id}/`, { body: 'Two, edited' }, { token: ws.admin.token });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.attachments).toEqual([shown]);
    expect(calls.at(-1)).toEqual([second.id]);
    // A new comment has none, and the provider is not asked.
    const third = await comment('Three');
    expect(third).toMatchObject({ attachments: [] });
    expect(calls).toHaveLength(2);
  });
});
