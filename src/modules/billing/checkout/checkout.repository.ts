import type { Insertable, Updateable } from 'kysely';
import type { Executor } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';

/** Queries of payments: a checkout's payment, the provider callback's settle, the workspace's payment list. */
export type CheckoutRepository = ReturnType<typeof checkoutRepository>;

export type PaymentRow = Awaited<ReturnType<CheckoutRepository['findPaymentByOid']>> & {};

export function checkoutRepository() {
  return {
    /** The latest settled payment of a plan (what was paid for the running period, less refunds). */
    lastPaidFor(tx: Executor, workspaceId: string, planSlug: string) {
      return tx
        .selectFrom('payments')
        .select(['amount', 'refunded_amount', 'paid_at'])
        .where('workspace_id', '=', workspaceId)
        .where('plan_slug', '=', planSlug)
        .where('status', 'in', ['success', 'refunded'])
        .orderBy('paid_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
    },

    // ---- payments ----

    insertPayment(tx: Executor, row: Insertable<Database['payments']>) {
      return tx.insertInto('payments').values(row).returningAll().executeTakeFirstOrThrow();
    },

    /**
     * The entry point of the provider's callback, which names only the merchant_oid (it encodes nothing about the
     * workspace): the one payment lookup across workspaces. Everything that follows is scoped by the row's workspace_id.
     */
    findPaymentByOid(tx: Executor, merchantOid: string) {
      return tx.selectFrom('payments').selectAll().where('merchant_oid', '=', merchantOid).executeTakeFirst();
    },

    /** The e-mail and name of the user who started a checkout (the card page's payer, 19.1). */
    payerOf(tx: Executor, userId: string) {
      return tx.selectFrom('users').select(['email', 'display_name']).where('id', '=', userId).executeTakeFirst();
    },

    /** The payment a provider's word names, with its workspace's test clock offset (0 without one). */
    findPaymentForSettle(tx: Executor, merchantOid: string) {
      return tx
        .selectFrom('payments as p')
        .leftJoin('billing_test_clocks as c', 'c.workspace_id', 'p.workspace_id')
        .selectAll('p')
        .select((eb) => eb.fn.coalesce('c.offset_seconds', eb.val(0)).as('clock_offset_seconds'))
        .where('p.merchant_oid', '=', merchantOid)
        .executeTakeFirst()
        .then((r) => (r ? { ...r, clock_offset_seconds: Number(r.clock_offset_seconds) } : undefined));
    },

    /**
     * The idempotency point of the callback: only a pending payment moves, and of concurrent identical callbacks
     * exactly one sees a row come back (the others wait on the row lock, then find it no longer pending).
     */
    settlePendingPayment(
      tx: Executor,
      workspaceId: string,
      merchantOid: string,
      patch: Pick<Updateable<Database['payments']>, 'status' | 'failure_reason' | 'provider_total_amount' | 'paid_at' | 'updated_at'>,
    ) {
      return (
        tx
          .updateTable('payments')
          .set(patch)
          .where('workspace_id', '=', workspaceId)
          .where('merchant_oid', '=', merchantOid)
          // A payment that reconciliation failed as `expired` was never settled by the provider: its first genuine
          // notification still takes effect.
          .where((eb) => eb.or([eb('status', '=', 'pending'), eb.and([eb('status', '=', 'failed'), eb('failure_reason', '=', 'expired')])]))
          .returningAll()
          .executeTakeFirst()
      );
    },

    failPendingPayment(tx: Executor, workspaceId: string, paymentId: string, reason: string, now: Date) {
      return tx
        .updateTable('payments')
        .set({ status: 'failed', failure_reason: reason, updated_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', paymentId)
        .where('status', '=', 'pending')
        .returningAll()
        .executeTakeFirst();
    },

    /** A page of the workspace's payments, newest first, with the total. */
    async listPayments(tx: Executor, workspaceId: string, offset: number, limit: number) {
      const scoped = tx.selectFrom('payments').where('workspace_id', '=', workspaceId);
      const [rows, count] = await Promise.all([
        scoped.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute(),
        scoped.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },
  };
}
