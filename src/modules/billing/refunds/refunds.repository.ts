import { type Insertable, sql, type Updateable } from 'kysely';
import type { Executor } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';

/** Queries of refunds and reconciliation: the operator's payments, refund reservations, reconciliation claims. */
export type RefundsRepository = ReturnType<typeof refundsRepository>;
export type RefundRow = Awaited<ReturnType<RefundsRepository['insertRefund']>>;

export function refundsRepository() {
  return {
    /**
     * The entry point of the operator's payment routes, which name only the payment id (it encodes nothing about the
     * workspace): the workspace a payment belongs to, read across workspaces. Everything that follows is scoped by it.
     */
    workspaceOfPayment(tx: Executor, paymentId: string) {
      return tx
        .selectFrom('payments')
        .select('workspace_id')
        .where('id', '=', paymentId)
        .executeTakeFirst()
        .then((r) => r?.workspace_id);
    },

    findPayment(tx: Executor, workspaceId: string, id: string, lock = false) {
      let q = tx.selectFrom('payments').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id);
      if (lock) q = q.forUpdate();
      return q.executeTakeFirst();
    },

    /** Every workspace's payments for the operator, newest first, with optional status and workspace slug filters. */
    async listAllPayments(tx: Executor, filter: { status?: string; workspace?: string }, offset: number, limit: number) {
      let q = tx.selectFrom('payments').innerJoin('workspaces', 'workspaces.id', 'payments.workspace_id');
      if (filter.status) q = q.where('payments.status', '=', filter.status as never);
      if (filter.workspace) q = q.where('workspaces.slug', '=', filter.workspace);
      const [rows, count] = await Promise.all([
        q
          .selectAll('payments')
          .select('workspaces.slug as workspace_slug')
          .orderBy('payments.created_at', 'desc')
          .orderBy('payments.id', 'desc')
          .offset(offset)
          .limit(limit)
          .execute(),
        q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },

    // ---- refunds ----

    /**
     * The operator's Idempotency-Key is unique across the instance (index refunds_idempotency_key), so it is looked up
     * across workspaces: a key already used for a payment of another workspace must still be found (409), and the
     * row found is only compared and answered, never written.
     */
    findRefundByKey(tx: Executor, key: string) {
      return tx.selectFrom('refunds').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
    },

    /** Reserves `amount` of a success payment, never past what is left (the conditional update is the guard). */
    reserveRefund(tx: Executor, workspaceId: string, paymentId: string, amount: number) {
      return tx
        .updateTable('payments')
        .set((eb) => ({ refund_reserved_amount: eb('refund_reserved_amount', '+', amount) }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', paymentId)
        .where('status', '=', 'success')
        .where(sql<boolean>`refunded_amount + refund_reserved_amount + ${amount} <= amount`)
        .returningAll()
        .executeTakeFirst();
    },

    releaseReservation(tx: Executor, workspaceId: string, paymentId: string, amount: number) {
      return tx
        .updateTable('payments')
        .set((eb) => ({ refund_reserved_amount: eb('refund_reserved_amount', '-', amount) }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', paymentId)
        .execute();
    },

    /** Moves a reservation to refunded_amount; a payment refunded in full becomes `refunded`. */
    confirmReservation(tx: Executor, workspaceId: string, paymentId: string, amount: number, now: Date) {
      return tx
        .updateTable('payments')
        .set({
          refund_reserved_amount: sql<number>`refund_reserved_amount - ${amount}`,
          refunded_amount: sql<number>`refunded_amount + ${amount}`,
          status: sql`CASE WHEN refunded_amount + ${amount} = amount THEN 'refunded' ELSE status END`,
          updated_at: now,
        })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', paymentId)
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    insertRefund(tx: Executor, row: Insertable<Database['refunds']>) {
      return tx.insertInto('refunds').values(row).returningAll().executeTakeFirstOrThrow();
    },

    deleteRefund(tx: Executor, workspaceId: string, id: string) {
      return tx.deleteFrom('refunds').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
    },

    /** The credit note is issued: its number, tax split, buyer and seller, all frozen now. */
    completeRefund(
      tx: Executor,
      workspaceId: string,
      id: string,
      note: Pick<Updateable<Database['refunds']>, 'credit_note_number' | 'tax_rate_bp' | 'net_amount' | 'tax_amount' | 'bill_to' | 'seller' | 'issued_at'>,
    ) {
      return tx
        .updateTable('refunds')
        .set({ status: 'succeeded', ...note })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    // ---- reconciliation ----

    /**
     * Pending payments older than `cutoff` whose lease has run out, claimed with SKIP LOCKED and leased until
     * `leaseUntil` in the same statement's transaction, so each is checked by one instance at a time.
     */
    async claimStalePending(tx: Executor, cutoff: Date, now: Date, leaseUntil: Date, limit: number) {
      const rows = await tx
        .selectFrom('payments')
        .select(['id', 'workspace_id', 'merchant_oid'])
        .where('status', '=', 'pending')
        .where('created_at', '<=', cutoff)
        .where((eb) => eb.or([eb('reconcile_after', 'is', null), eb('reconcile_after', '<=', now)]))
        .orderBy('created_at')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
      if (rows.length > 0) {
        await tx
          .updateTable('payments')
          .set({ reconcile_after: leaseUntil })
          .where(
            'id',
            'in',
            rows.map((r) => r.id),
          )
          .execute();
      }
      return rows;
    },

    /** Pending -> failed `expired` (only if still pending: a callback that came first wins). */
    expirePending(tx: Executor, workspaceId: string, paymentId: string, now: Date) {
      return tx
        .updateTable('payments')
        .set({ status: 'failed', failure_reason: 'expired', updated_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', paymentId)
        .where('status', '=', 'pending')
        .returningAll()
        .executeTakeFirst();
    },
  };
}
