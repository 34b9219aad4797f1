import type { Insertable } from 'kysely';
import type { Executor } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';

/** Queries of the billing profile: one row per workspace. */
export type ProfileRepository = ReturnType<typeof profileRepository>;
export type BillingProfileRow = NonNullable<Awaited<ReturnType<ProfileRepository['findBillingProfile']>>>;

export function profileRepository() {
  return {
    findBillingProfile(tx: Executor, workspaceId: string) {
      return tx.selectFrom('billing_profiles').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst();
    },

    upsertBillingProfile(tx: Executor, row: Insertable<Database['billing_profiles']>) {
      const { workspace_id: _ws, ...fields } = row;
      return tx
        .insertInto('billing_profiles')
        .values(row)
        .onConflict((oc) => oc.column('workspace_id').doUpdateSet(fields))
        .returningAll()
        .executeTakeFirstOrThrow();
    },
  };
}
