import type { Db, Executor } from '../../db/database.js';

export type WorkspacesRepository = ReturnType<typeof workspacesRepository>;

const columns = ['w.id', 'w.slug', 'w.name', 'w.created_by', 'w.created_at', 'w.updated_at'] as const;

export function workspacesRepository(db: Db) {
  return {
    async insert(tx: Executor, ws: { id: string; slug: string; name: string; created_by: string; now: Date }) {
      const { now, ...values } = ws;
      return tx
        .insertInto('workspaces')
        .values({ ...values, created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('slug').doNothing())
        .returning(['id', 'slug', 'name', 'created_by', 'created_at', 'updated_at'])
        .executeTakeFirst();
    },

    listForUser(userId: string, tx: Executor = db) {
      return tx
        .selectFrom('workspaces as w')
        .innerJoin('workspace_members as m', 'm.workspace_id', 'w.id')
        .select([...columns, 'm.role'])
        .where('m.user_id', '=', userId)
        .orderBy('w.created_at')
        .orderBy('w.id')
        .execute();
    },

    findById(id: string, tx: Executor = db) {
      return tx.selectFrom('workspaces as w').select(columns).where('w.id', '=', id).executeTakeFirst();
    },

    update(tx: Executor, id: string, patch: { name?: string; updated_at: Date }) {
      return tx
        .updateTable('workspaces')
        .set(patch)
        .where('id', '=', id)
        .returning(['id', 'slug', 'name', 'created_by', 'created_at', 'updated_at'])
        .executeTakeFirstOrThrow();
    },

    delete(tx: Executor, id: string) {
      return tx.deleteFrom('workspaces').where('id', '=', id).execute();
    },
  };
}
