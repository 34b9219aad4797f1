import { type Insertable, sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/schema.js';

export type WorkspacesRepository = ReturnType<typeof workspacesRepository>;

const columns = ['w.id', 'w.slug', 'w.name', 'w.time_zone', 'w.search_language', 'w.created_by', 'w.created_at', 'w.updated_at'] as const;
const returned = ['id', 'slug', 'name', 'time_zone', 'search_language', 'created_by', 'created_at', 'updated_at'] as const;

export function workspacesRepository() {
  return {
    async insert(tx: Executor, ws: Insertable<Database['workspaces']>) {
      return tx
        .insertInto('workspaces')
        .values(ws)
        .onConflict((oc) => oc.column('slug').doNothing())
        .returning(returned)
        .executeTakeFirst();
    },

    listForUser(tx: Executor, userId: string) {
      return tx
        .selectFrom('workspaces as w')
        .innerJoin('workspace_members as m', 'm.workspace_id', 'w.id')
        .select([...columns, 'm.role'])
        .where('m.user_id', '=', userId)
        .orderBy('w.created_at')
        .orderBy('w.id')
        .execute();
    },

    findById(tx: Executor, workspaceId: string) {
      return tx.selectFrom('workspaces as w').select(columns).where('w.id', '=', workspaceId).executeTakeFirst();
    },

    update(tx: Executor, workspaceId: string, patch: Pick<Updateable<Database['workspaces']>, 'name' | 'time_zone' | 'search_language' | 'updated_at'>) {
      return tx.updateTable('workspaces').set(patch).where('id', '=', workspaceId).returning(returned).executeTakeFirstOrThrow();
    },

    /** Whether the database knows this zone too (its zone data can be older than the runtime's). */
    async databaseKnowsZone(tx: Executor, name: string) {
      const r = await sql<{ known: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = ${name}) AS known`.execute(tx);
      return r.rows[0]?.known === true;
    },

    /** The text search languages search can use (migration 1092's `wis_` configurations): `english`, `turkish`, ... */
    async searchLanguages(tx: Executor) {
      const r = await sql<{ name: string }>`SELECT substr(cfgname, 5) AS name FROM pg_ts_config WHERE cfgname LIKE 'wis\\_%' ORDER BY 1`.execute(tx);
      return r.rows.map((row) => row.name);
    },

    delete(tx: Executor, workspaceId: string) {
      return tx.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
    },
  };
}
