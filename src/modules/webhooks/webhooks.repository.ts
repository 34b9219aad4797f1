import type { Executor } from '../../db/database.js';

export type WebhooksRepository = ReturnType<typeof webhooksRepository>;

export function webhooksRepository(db: Executor) {
  return {
    async insertEvent(
      tx: Executor,
      row: { id: string; workspace_id: string; type: string; data: unknown; created_at: Date },
    ): Promise<void> {
      await tx
        .insertInto('events')
        .values({ ...row, data: JSON.stringify(row.data) })
        .execute();
    },

    async listEvents(workspaceId: string, tx: Executor = db) {
      return tx.selectFrom('events').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
    },
  };
}
