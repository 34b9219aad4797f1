import type { Insertable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/schema.js';

export type PasswordResetRepository = ReturnType<typeof passwordResetRepository>;

/** Password resets (26.5): Kysely queries only. */
export function passwordResetRepository() {
  return {
    async insert(tx: Executor, row: Insertable<Database['password_resets']>) {
      await tx.insertInto('password_resets').values(row).execute();
    },

    /** Uses up the live reset of this token (once: concurrent confirms see it used); answers its user, or undefined. */
    async claim(tx: Executor, tokenHash: string, now: Date) {
      const row = await tx
        .updateTable('password_resets')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning('user_id')
        .executeTakeFirst();
      return row?.user_id;
    },

    /** Every other open reset of the user dies with the one confirmed. */
    async useAllOf(tx: Executor, userId: string, now: Date) {
      await tx.updateTable('password_resets').set({ used_at: now }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
    },
  };
}
