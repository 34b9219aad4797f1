import { type Insertable, sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/schema.js';

/** Labels of a project (contract 24.1): the queries, spread into the work-items repository. */

export const labelColumns = ['id', 'project_id', 'name', 'color', 'description', 'created_at', 'updated_at'] as const;

/**
 * How many issues of the project carry the label, from the counts the database keeps (migration 1080): the sum of the
 * label's +1/-1 rows, a handful once the `labels.counts` job has folded them. 0 for a label of another project.
 */
export function labelIssueCount(tx: Executor, workspaceId: string, projectId: string, labelId: string) {
  return tx
    .selectFrom('labels as l')
    .innerJoin('label_issue_counts as c', 'c.label_id', 'l.id')
    .select(sql<number>`coalesce(sum(c.n), 0)::int`.as('n'))
    .where('l.workspace_id', '=', workspaceId)
    .where('l.project_id', '=', projectId)
    .where('l.id', '=', labelId)
    .executeTakeFirstOrThrow();
}

export function labelQueries() {
  return {
    listLabels(tx: Executor, workspaceId: string, projectId: string) {
      return tx
        .selectFrom('labels')
        .select(labelColumns)
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .orderBy('name_key')
        .orderBy('id')
        .execute();
    },

    findLabel(tx: Executor, workspaceId: string, projectId: string, labelId: string) {
      return tx
        .selectFrom('labels')
        .select(labelColumns)
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .where('id', '=', labelId)
        .executeTakeFirst();
    },

    /**
     * Which of `labelIds` are labels of the project, each locked against deletion until the writer commits (a label
     * deleted meanwhile is either seen gone here or waits, then takes itself off the issue this writer labelled).
     */
    async labelsOfProject(tx: Executor, workspaceId: string, projectId: string, labelIds: string[]) {
      if (!labelIds.length) return new Set<string>();
      const rows = await tx
        .selectFrom('labels')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .where(sql<boolean>`id = ANY(${labelIds}::uuid[])`)
        .forKeyShare()
        .execute();
      return new Set(rows.map((r) => r.id));
    },

    /** The label, or undefined when its name is taken in the project (ignoring case). */
    insertLabel(tx: Executor, label: Insertable<Database['labels']>) {
      return tx
        .insertInto('labels')
        .values(label)
        .onConflict((oc) => oc.columns(['project_id', 'name_key']).doNothing())
        .returning(labelColumns)
        .executeTakeFirst();
    },

    updateLabel(
      tx: Executor,
      workspaceId: string,
      labelId: string,
      patch: Pick<Updateable<Database['labels']>, 'name' | 'name_key' | 'color' | 'description' | 'updated_at'>,
    ) {
      return tx.updateTable('labels').set(patch).where('workspace_id', '=', workspaceId).where('id', '=', labelId).returning(labelColumns).executeTakeFirst();
    },

    /**
     * Deletes the label, then takes it off its issues (in that order: a writer that checked the label waits for the
     * delete, and the statement after it sees that writer's issue). Answers the issues it was taken off.
     */
    async deleteLabel(tx: Executor, workspaceId: string, labelId: string) {
      await tx.deleteFrom('labels').where('workspace_id', '=', workspaceId).where('id', '=', labelId).execute();
      const rows = await tx
        .updateTable('issues')
        .set({ label_ids: sql`array_remove(label_ids, ${labelId}::uuid)` })
        .where('workspace_id', '=', workspaceId)
        .where(sql<boolean>`label_ids @> ARRAY[${labelId}::uuid]`)
        .returning('id')
        .execute();
      await tx.deleteFrom('label_issue_counts').where('label_id', '=', labelId).execute();
      return rows.map((r) => r.id);
    },

    /**
     * Folds the +1/-1 rows of the labels that have several into one row each, and drops the rows of labels that are
     * gone. Concurrent folds never count a row twice (a row is deleted once); the try-lock only spares the work.
     */
    async foldLabelCounts(tx: Executor, limit: number) {
      const lock = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(${LABEL_COUNTS_LOCK}::int4, 0) AS ok`.execute(tx);
      if (!lock.rows[0]?.ok) return 0;
      await sql`DELETE FROM label_issue_counts c WHERE NOT EXISTS (SELECT 1 FROM labels l WHERE l.id = c.label_id)`.execute(tx);
      const { rows } = await sql<{ n: number }>`
        WITH many AS (
          SELECT label_id FROM label_issue_counts GROUP BY label_id HAVING count(*) > 1 LIMIT ${limit}
        ), gone AS (
          DELETE FROM label_issue_counts c USING many WHERE c.label_id = many.label_id RETURNING c.label_id, c.n
        ), folded AS (
          INSERT INTO label_issue_counts (label_id, n) SELECT label_id, sum(n) FROM gone GROUP BY label_id RETURNING 1
        )
        SELECT count(*)::int AS n FROM folded`.execute(tx);
      return rows[0]?.n ?? 0;
    },
  };
}

/** Advisory-lock namespace of the label-count fold. */
const LABEL_COUNTS_LOCK = 0x241;
