import type { Executor } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import { forbidden, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { roleAllows } from '../identity/index.js';
import { issueOf } from './work-items.issues.js';
import type { AttachmentView, CommentAttachmentsProvider, WorkItemsDeps } from './work-items.deps.js';
import { commentView, issueSnapshot, issueView } from './work-items.views.js';

export type CommentsService = ReturnType<typeof createCommentsService>;

/**
 * Comments on an issue; a new one is a domain event (SLA: first response) and a webhook event. The author edits a
 * comment; the author or an admin deletes it (contract 25.1). A comment shows its attachments, which the attachments
 * module owns and hands over through the provider it registers.
 */
export function createCommentsService(deps: Pick<WorkItemsDeps, 'db' | 'repo' | 'clock' | 'events' | 'identity' | 'outbox'>) {
  const { db, repo, clock, events, identity, outbox } = deps;
  let commentAttachments: CommentAttachmentsProvider | undefined;

  /** The attachments of these comments, in one call for all of them; none without a provider. */
  async function attachmentsOf(tx: Executor, workspaceId: string, commentIds: string[]): Promise<Map<string, AttachmentView[]>> {
    if (!commentAttachments || !commentIds.length) return new Map();
    return commentAttachments(tx, workspaceId, commentIds);
  }

  /** A comment of the issue of the path (itself of the project of the path), or 404. */
  async function commentOf(tx: Executor, workspaceId: string, projectId: string, issueId: string, commentId: string) {
    await issueOf(repo, workspaceId, projectId, issueId, tx);
    const comment = await repo.findComment(tx, workspaceId, issueId, commentId);
    if (!comment) throw notFound('Comment');
    return comment;
  }

  return {
    /** The attachments module shows each comment's files through this (one provider; a later one replaces it). */
    registerCommentAttachments(provider: CommentAttachmentsProvider) {
      commentAttachments = provider;
    },

    /** For other modules: a comment of this issue of the workspace, or 404 (attachments of a comment). */
    async findComment(tx: Executor, workspaceId: string, issueId: string, commentId: string) {
      const comment = await repo.findComment(tx, workspaceId, issueId, commentId);
      if (!comment) throw notFound('Comment');
      return comment;
    },

    async listComments(actor: Actor, slug: string, projectId: string, issueId: string) {
      const ws = await identity.access(actor, slug, 'read');
      await issueOf(repo, ws.workspaceId, projectId, issueId, db);
      const rows = await repo.listComments(db, ws.workspaceId, issueId);
      const ids = rows.map((c) => c.id);
      const attachments = await attachmentsOf(db, ws.workspaceId, ids);
      return rows.map((c) => commentView(c, attachments.get(c.id) ?? []));
    },

    async createComment(actor: Actor, slug: string, projectId: string, issueId: string, input: { body: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'comment', tx);
        const issue = await issueOf(repo, ws.workspaceId, projectId, issueId, tx);
        const now = clock.now();
        const comment = await repo.insertComment(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          issue_id: issueId,
          author_id: actor.userId,
          body: input.body,
          created_at: now,
          updated_at: now,
        });
        await events.publish(tx, {
          type: 'comment.created',
          at: now,
          issue: issueSnapshot(issue),
          authorId: actor.userId,
          commentId: comment.id,
          body: comment.body,
        });
        // A new comment has no attachments yet: files are attached to an existing comment.
        const view = commentView(comment, []);
        await outbox.record(tx, { workspaceId: ws.workspaceId, type: 'comment.created', data: { comment: view, issue: issueView(issue) } });
        return view;
      });
    },

    /** Only the author edits a comment (not even an admin): a new body, `edited_at` now. */
    async updateComment(actor: Actor, slug: string, projectId: string, issueId: string, commentId: string, input: { body: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'comment', tx);
        const before = await commentOf(tx, ws.workspaceId, projectId, issueId, commentId);
        if (before.author_id !== actor.userId) throw forbidden('Only its author edits a comment');
        const now = clock.now();
        const comment = await repo.updateComment(tx, ws.workspaceId, commentId, { body: input.body, updated_at: now, edited_at: now });
        // Deleted meanwhile (by an admin, or its issue).
        if (!comment) throw notFound('Comment');
        const attachments = await attachmentsOf(tx, ws.workspaceId, [comment.id]);
        return commentView(comment, attachments.get(comment.id) ?? []);
      });
    },

    /** The author or an admin deletes a comment; its attachments and their stored files go with it. */
    async deleteComment(actor: Actor, slug: string, projectId: string, issueId: string, commentId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'comment', tx);
        const comment = await commentOf(tx, ws.workspaceId, projectId, issueId, commentId);
        if (comment.author_id !== actor.userId && !roleAllows(ws.role, 'manage')) throw forbidden('Only its author or an admin deletes a comment');
        await repo.deleteComment(tx, ws.workspaceId, commentId);
      });
    },
  };
}
