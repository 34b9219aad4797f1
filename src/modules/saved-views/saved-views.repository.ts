import type { Executor } from '../../db/database.js';
import type { SavedViewsTable } from '../../db/tables/saved-views.js';

export type SavedViewRow = {
  [K in keyof SavedViewsTable]: K extends 'filters' ? Record<string, string[]> : K extends 'created_at' | 'updated_at' ? Date : SavedViewsTable[K];
};

export type SavedViewsRepository = ReturnType<typeof savedViewsRepository>;

/** The SQL of saved views (contract 23.3); every statement is scoped to one workspace. */
export function savedViewsRepository() {
  return {
    /** The caller's own views and the workspace's shared ones, by name. */
    async listVisible(tx: Executor, workspaceId: string, userId: string): Promise<SavedViewRow[]> {
      const rows = await tx
        .selectFrom('saved_views')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where((eb) => eb.or([eb('owner_id', '=', userId), eb('shared', '=', true)]))
        .orderBy('name')
        .orderBy('id')
        .execute();
      return rows as SavedViewRow[];
    },

    async find(tx: Executor, workspaceId: string, viewId: string, lock = false): Promise<SavedViewRow | undefined> {
      let query = tx.selectFrom('saved_views').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', viewId);
      if (lock) query = query.forUpdate();
      return (await query.executeTakeFirst()) as SavedViewRow | undefined;
    },

    async insert(tx: Executor, row: Omit<SavedViewRow, 'filters'> & { filters: Record<string, string[]> }): Promise<SavedViewRow> {
      const inserted = await tx
        .insertInto('saved_views')
        .values({ ...row, filters: JSON.stringify(row.filters) })
        .returningAll()
        .executeTakeFirstOrThrow();
      return inserted as SavedViewRow;
    },

    async update(
      tx: Executor,
      workspaceId: string,
      viewId: string,
      patch: Partial<Pick<SavedViewRow, 'name' | 'project_id' | 'order_by' | 'shared' | 'filters'>> & { updated_at: Date },
    ): Promise<SavedViewRow> {
      const { filters, ...rest } = patch;
      const updated = await tx
        .updateTable('saved_views')
        .set({ ...rest, ...(filters !== undefined && { filters: JSON.stringify(filters) }) })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', viewId)
        .returningAll()
        .executeTakeFirstOrThrow();
      return updated as SavedViewRow;
    },

    async remove(tx: Executor, workspaceId: string, viewId: string): Promise<void> {
      await tx.deleteFrom('saved_views').where('workspace_id', '=', workspaceId).where('id', '=', viewId).execute();
    },

    async projectExists(tx: Executor, workspaceId: string, projectId: string): Promise<boolean> {
      const row = await tx.selectFrom('projects').select('id').where('workspace_id', '=', workspaceId).where('id', '=', projectId).executeTakeFirst();
      return row !== undefined;
    },
  };
}
