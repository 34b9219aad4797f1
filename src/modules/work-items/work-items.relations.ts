import type { Actor } from '../../kernel/actor.js';
import { conflict, invalid, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { issueOf, recordIssuesUpdated } from './work-items.issues.js';
import type { WorkItemsDeps } from './work-items.deps.js';
import type { StoredRelationType } from './work-items.relations.repository.js';
import { type RelationType, relationView } from './work-items.views.js';

/**
 * How a relation asked for from one issue is stored: `subject <stored> object`, the inverse types turned round
 * (`A blocked_by B` is stored as `B blocks A`), so each pair has one row and one spelling.
 */
export function storedRelation(issueId: string, type: RelationType, otherId: string): { issue_id: string; related_issue_id: string; type: StoredRelationType } {
  switch (type) {
    case 'blocked_by':
      return { issue_id: otherId, related_issue_id: issueId, type: 'blocks' };
    case 'duplicates':
      return { issue_id: otherId, related_issue_id: issueId, type: 'duplicate_of' };
    default:
      return { issue_id: issueId, related_issue_id: otherId, type };
  }
}

export type RelationsService = ReturnType<typeof createRelationsService>;

/**
 * Relations between issues of one workspace, across its projects (contract 24.3): stored once, listed from both sides;
 * a change is `issue.updated` for both issues (the blocked one's `blocked` may have changed with it).
 */
export function createRelationsService(deps: Pick<WorkItemsDeps, 'db' | 'repo' | 'clock' | 'identity' | 'outbox'>) {
  const { db, repo, clock, identity } = deps;

  return {
    async listRelations(actor: Actor, slug: string, projectId: string, issueId: string) {
      const ws = await identity.access(actor, slug, 'read');
      await issueOf(repo, ws.workspaceId, projectId, issueId, db);
      return (await repo.listRelations(db, ws.workspaceId, issueId)).map(relationView);
    },

    async createRelation(actor: Actor, slug: string, projectId: string, issueId: string, input: { type: RelationType; issue_id: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        await issueOf(repo, ws.workspaceId, projectId, issueId, tx);
        const otherId = input.issue_id.toLowerCase();
        if (otherId === issueId.toLowerCase()) throw invalid('/issue_id', 'an issue cannot be related to itself');
        if (!(await repo.findIssue(tx, ws.workspaceId, otherId))) throw notFound('Issue');
        const relation = await repo.insertRelation(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          ...storedRelation(issueId, input.type, otherId),
          created_by: actor.userId,
          created_at: clock.now(),
        });
        if (!relation) throw conflict('These two issues are already related (one relation per pair, in either direction)');
        await recordIssuesUpdated(deps, tx, ws.workspaceId, [issueId, otherId]);
        const entry = (await repo.listRelations(tx, ws.workspaceId, issueId)).find((r) => r.id === relation.id)!;
        return relationView(entry);
      });
    },

    async deleteRelation(actor: Actor, slug: string, projectId: string, issueId: string, relationId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        await issueOf(repo, ws.workspaceId, projectId, issueId, tx);
        const otherId = await repo.deleteRelation(tx, ws.workspaceId, issueId, relationId);
        if (!otherId) throw notFound('Relation');
        await recordIssuesUpdated(deps, tx, ws.workspaceId, [issueId, otherId]);
      });
    },
  };
}
