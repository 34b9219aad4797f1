import { type Insertable, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { StateGroup } from '../../kernel/work-items.js';

/** Relations between issues (contract 24.3): the queries, spread into the work-items repository. */

export type StoredRelationType = Database['issue_relations']['type'];

export function relationQueries() {
  return {
    /**
     * The relations of an issue from both sides: `outgoing` true where the issue is the stored subject (the type
     * reads as stored), false where it is the object (the type reads inverted). With the other issue as a reference.
     */
    listRelations(tx: Executor, workspaceId: string, issueId: string) {
      return sql<{
        id: string;
        type: StoredRelationType;
        outgoing: boolean;
        created_at: Date;
        other_id: string;
        other_name: string;
        other_project_id: string;
        other_sequence_id: number;
        identifier: string;
        state_id: string;
        state_name: string;
        state_group: StateGroup;
      }>`
        SELECT r.id, r.type, r.outgoing, r.created_at, o.id AS other_id, o.name AS other_name, o.project_id AS other_project_id,
               o.sequence_id AS other_sequence_id, p.identifier, s.id AS state_id, s.name AS state_name, s."group" AS state_group
        FROM (
          SELECT id, type, true AS outgoing, related_issue_id AS other, created_at FROM issue_relations
          WHERE workspace_id = ${workspaceId} AND issue_id = ${issueId}
          UNION ALL
          SELECT id, type, false AS outgoing, issue_id AS other, created_at FROM issue_relations
          WHERE workspace_id = ${workspaceId} AND related_issue_id = ${issueId}
        ) r
        JOIN issues o ON o.workspace_id = ${workspaceId} AND o.id = r.other
        JOIN projects p ON p.workspace_id = o.workspace_id AND p.id = o.project_id
        JOIN states s ON s.workspace_id = o.workspace_id AND s.id = o.state_id
        ORDER BY r.created_at, r.id`
        .execute(tx)
        .then((r) => r.rows);
    },

    /** The relation, or undefined when the pair already has one (in either direction). */
    insertRelation(tx: Executor, relation: Insertable<Database['issue_relations']>) {
      return tx
        .insertInto('issue_relations')
        .values(relation)
        .onConflict((oc) => oc.expression(sql`(LEAST(issue_id, related_issue_id)), (GREATEST(issue_id, related_issue_id))`).doNothing())
        .returning(['id', 'issue_id', 'related_issue_id', 'type', 'created_at'])
        .executeTakeFirst();
    },

    /** Deletes a relation of the issue (on either side); answers the other issue's id, or undefined when none. */
    deleteRelation(tx: Executor, workspaceId: string, issueId: string, relationId: string) {
      return tx
        .deleteFrom('issue_relations')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', relationId)
        .where((eb) => eb.or([eb('issue_id', '=', issueId), eb('related_issue_id', '=', issueId)]))
        .returning(['issue_id', 'related_issue_id'])
        .executeTakeFirst()
        .then((r) => (r ? (r.issue_id === issueId ? r.related_issue_id : r.issue_id) : undefined));
    },
  };
}
