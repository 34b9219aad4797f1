import { type Insertable, sql, type Selectable } from 'kysely';
import type { Executor } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';

/** The sandbox provider's orders in the database (table sandbox_orders, migration 0701). */
export type SandboxOrderRow = Selectable<Database['sandbox_orders']>;

export function sandboxOrdersRepository() {
  return {
    async insert(tx: Executor, row: Omit<Insertable<Database['sandbox_orders']>, 'state'>) {
      await tx
        .insertInto('sandbox_orders')
        .values({ ...row, state: 'open' })
        .execute();
    },
    byToken(tx: Executor, token: string) {
      return tx.selectFrom('sandbox_orders').selectAll().where('token', '=', token).executeTakeFirst();
    },
    paidByOid(tx: Executor, merchantOid: string) {
      return tx.selectFrom('sandbox_orders').selectAll().where('merchant_oid', '=', merchantOid).where('state', '=', 'paid').executeTakeFirst();
    },
    /** open -> paid | declined, once (the conditional update; a second paid order of one merchant_oid violates the unique index). */
    async complete(tx: Executor, token: string, state: 'paid' | 'declined') {
      try {
        const r = await tx.updateTable('sandbox_orders').set({ state }).where('token', '=', token).where('state', '=', 'open').executeTakeFirst();
        return Number(r.numUpdatedRows) > 0;
      } catch {
        return false;
      }
    },
    async addRefund(tx: Executor, merchantOid: string, amount: number) {
      const r = await tx
        .updateTable('sandbox_orders')
        .set({ refunded_amount: sql<number>`refunded_amount + ${amount}` })
        .where('merchant_oid', '=', merchantOid)
        .where('state', '=', 'paid')
        .where(sql<boolean>`refunded_amount + ${amount} <= amount`)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async sweep(tx: Executor, now: Date) {
      await tx.deleteFrom('sandbox_orders').where('state', '=', 'open').where('expires_at', '<=', now).execute();
    },
  };
}

/** The sandbox provider's stored cards (table sandbox_cards, migration 1061). */
export type SandboxCardRow = Selectable<Database['sandbox_cards']>;
/** The sandbox provider's recurring charges (table sandbox_charges, migration 1061). */
export type SandboxChargeRow = Selectable<Database['sandbox_charges']>;

export function sandboxCardsRepository() {
  return {
    async insertCard(tx: Executor, row: Insertable<Database['sandbox_cards']>) {
      await tx.insertInto('sandbox_cards').values(row).execute();
    },
    cards(tx: Executor, utoken: string) {
      return tx.selectFrom('sandbox_cards').selectAll().where('utoken', '=', utoken).orderBy('created_at').orderBy('ctoken').execute();
    },
    /** The card (if any) and whether an iFrame order already paid the merchant_oid, in one statement. */
    async cardForCharge(tx: Executor, utoken: string, ctoken: string, merchantOid: string) {
      const r = await sql<SandboxCardRow & { order_paid: boolean }>`
        SELECT c.*, EXISTS (SELECT 1 FROM sandbox_orders o WHERE o.merchant_oid = ${merchantOid} AND o.state = 'paid') AS order_paid
          FROM (SELECT 1) one LEFT JOIN sandbox_cards c ON c.utoken = ${utoken} AND c.ctoken = ${ctoken}`.execute(tx);
      const row = r.rows[0]!;
      return { card: row.ctoken ? (row as SandboxCardRow) : undefined, orderPaid: row.order_paid };
    },
    card(tx: Executor, utoken: string, ctoken: string) {
      return tx.selectFrom('sandbox_cards').selectAll().where('utoken', '=', utoken).where('ctoken', '=', ctoken).executeTakeFirst();
    },
    async deleteCard(tx: Executor, utoken: string, ctoken: string) {
      const r = await tx.deleteFrom('sandbox_cards').where('utoken', '=', utoken).where('ctoken', '=', ctoken).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /** False when the merchant_oid was already charged (the primary key decides, also between concurrent requests). */
    async insertCharge(tx: Executor, row: Insertable<Database['sandbox_charges']>) {
      const r = await tx
        .insertInto('sandbox_charges')
        .values(row)
        .onConflict((oc) => oc.column('merchant_oid').doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
    },
    chargeByOid(tx: Executor, merchantOid: string) {
      return tx.selectFrom('sandbox_charges').selectAll().where('merchant_oid', '=', merchantOid).executeTakeFirst();
    },
    async addChargeRefund(tx: Executor, merchantOid: string, amount: number) {
      const r = await tx
        .updateTable('sandbox_charges')
        .set({ refunded_amount: sql<number>`refunded_amount + ${amount}` })
        .where('merchant_oid', '=', merchantOid)
        .where('status', '=', 'success')
        .where(sql<boolean>`refunded_amount + ${amount} <= amount`)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
  };
}
