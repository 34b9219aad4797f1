import type { Actor } from '../../kernel/actor.js';
import { newId } from '../../kernel/ids.js';
import { issueOf } from './work-items.issues.js';
import type { WorkItemsDeps } from './work-items.deps.js';
import { commentView, issueSnapshot, issueView } from './work-items.views.js';

export type CommentsService = ReturnType<typeof createCommentsService>;

/** Comments on an issue; a new one is a domain event (SLA: first response) and a webhook event. */
export function createCommentsService(deps: Pick<WorkItemsDeps, 'db' | 'repo' | 'clock' | 'events' | 'identity' | 'outbox'>) {
  const { db, repo, clock, events, identity, outbox } = deps;

  return {
    async listComments(actor: Actor, slug: string, projectId: string, issueId: string) {
      const ws = await identity.access(actor, slug, 'read');
      await issueOf(repo, ws.workspaceId, projectId, issueId, db);
      return (await repo.listComments(db, ws.workspaceId, issueId)).map(commentView);
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
        });
        const view = commentView(comment);
        await outbox.record(tx, { workspaceId: ws.workspaceId, type: 'comment.created', data: { comment: view, issue: issueView(issue) } });
        return view;
      });
    },
  };
}
