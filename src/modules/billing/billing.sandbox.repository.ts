import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';

/** The sandbox provider's orders in the database (table sandbox_orders, migration 0701). */
export type SandboxOrderRow = Selectable<Database['sandbox_orders']>;

export function sandboxOrdersRepository(db: Db) {
  return {
    async insert(row: { token: string; merchant_oid: string; amount: number; expires_at: Date; details: Record<string, unknown> }) {
      await db.insertInto('sandbox_orders').values({ ...row, state: 'open', details: JSON.stringify(row.details) }).execute();
    },
    byToken(token: string) {
      return db.selectFrom('sandbox_orders').selectAll().where('token', '=', token).executeTakeFirst();
    },
    paidByOid(merchantOid: string) {
      return db.selectFrom('sandbox_orders').selectAll().where('merchant_oid', '=', merchantOid).where('state', '=', 'paid').executeTakeFirst();
    },
    /** open -> paid | declined, once (the conditional update; a second paid order of one merchant_oid violates the unique index). */
    async complete(token: string, state: 'paid' | 'declined') {
      try {
        const r = await db.updateTable('sandbox_orders').set({ state }).where('token', '=', token).where('state', '=', 'open').executeTakeFirst();
        return Number(r.numUpdatedRows) > 0;
      } catch {
        return false;
      }
    },
    async addRefund(merchantOid: string, amount: number) {
      const r = await db
        .updateTable('sandbox_orders')
        .set({ refunded_amount: sql<number>`refunded_amount + ${amount}` })
        .where('merchant_oid', '=', merchantOid)
        .where('state', '=', 'paid')
        .where(sql<boolean>`refunded_amount + ${amount} <= amount`)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async sweep(now: Date) {
      await db.deleteFrom('sandbox_orders').where('state', '=', 'open').where('expires_at', '<=', now).execute();
    },
  };
}
