import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';

/** Queries of stored cards and of the workspace's provider user token (contract 19.1). */
export type PaymentMethodsRepository = ReturnType<typeof paymentMethodsRepository>;

export type PaymentMethodRow = Selectable<Database['payment_methods']>;

export function paymentMethodsRepository() {
  return {
    findUtoken(tx: Executor, workspaceId: string) {
      return tx
        .selectFrom('payment_customers')
        .select('utoken')
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst()
        .then((r) => r?.utoken ?? null);
    },

    /** Keeps the first utoken the provider gave the workspace (one per workspace, reused for every card). */
    async keepUtoken(tx: Executor, workspaceId: string, utoken: string, now: Date) {
      await tx
        .insertInto('payment_customers')
        .values({ workspace_id: workspaceId, utoken, created_at: now })
        .onConflict((oc) => oc.column('workspace_id').doNothing())
        .execute();
    },

    /** The workspace's cards, newest first. */
    listPaymentMethods(tx: Executor, workspaceId: string) {
      return tx.selectFrom('payment_methods').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    },

    findPaymentMethod(tx: Executor, workspaceId: string, id: string) {
      return tx.selectFrom('payment_methods').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    findDefaultPaymentMethod(tx: Executor, workspaceId: string) {
      return tx.selectFrom('payment_methods').selectAll().where('workspace_id', '=', workspaceId).where('is_default', '=', true).executeTakeFirst();
    },

    /** Adds a card the provider listed; undefined when the workspace already had it. */
    insertPaymentMethod(tx: Executor, row: Insertable<Database['payment_methods']>) {
      return tx
        .insertInto('payment_methods')
        .values(row)
        .onConflict((oc) => oc.columns(['workspace_id', 'ctoken']).doNothing())
        .returningAll()
        .executeTakeFirst();
    },

    deletePaymentMethod(tx: Executor, workspaceId: string, id: string) {
      return tx.deleteFrom('payment_methods').where('workspace_id', '=', workspaceId).where('id', '=', id).returningAll().executeTakeFirst();
    },

    /** Makes `id` the one default card of the workspace (the partial unique index keeps it one). */
    async setDefaultPaymentMethod(tx: Executor, workspaceId: string, id: string) {
      await tx
        .updateTable('payment_methods')
        .set({ is_default: false })
        .where('workspace_id', '=', workspaceId)
        .where('is_default', '=', true)
        .where('id', '<>', id)
        .execute();
      return tx
        .updateTable('payment_methods')
        .set({ is_default: true })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** Default cards that expire before `horizon` and were not yet noticed, claimed so that instances share them. */
    claimExpiringCards(tx: Executor, horizon: Date, limit: number, workspaceId?: string) {
      let q = tx
        .selectFrom('payment_methods')
        .selectAll()
        .where('is_default', '=', true)
        .where('expiring_notified_at', 'is', null)
        // A card is good through the last day of its expiry month: it expires when the next month begins (UTC).
        .where(sql<boolean>`(make_date(exp_year, exp_month, 1) + interval '1 month') AT TIME ZONE 'UTC' <= ${horizon}`);
      if (workspaceId) q = q.where('workspace_id', '=', workspaceId);
      return q.limit(limit).forUpdate().skipLocked().execute();
    },

    async markExpiringNotified(tx: Executor, workspaceId: string, id: string, now: Date) {
      await tx.updateTable('payment_methods').set({ expiring_notified_at: now }).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
    },
  };
}
