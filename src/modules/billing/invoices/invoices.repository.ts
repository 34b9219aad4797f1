import { type Insertable, sql } from 'kysely';
import type { Executor } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';

/** Queries of invoices and credit notes: their gapless numbers and the workspace's lists. */
export type InvoicesRepository = ReturnType<typeof invoicesRepository>;

export type InvoiceRow = Awaited<ReturnType<InvoicesRepository['insertInvoice']>>;

export function invoicesRepository() {
  return {
    // ---- invoices ----

    /** The next gapless number of `year`: the counter row stays locked until the payment's transaction ends. */
    nextInvoiceNumber(tx: Executor, year: number) {
      return tx
        .insertInto('invoice_counters')
        .values({ year, last_number: 1 })
        .onConflict((oc) => oc.column('year').doUpdateSet({ last_number: sql<number>`invoice_counters.last_number + 1` }))
        .returning('last_number')
        .executeTakeFirstOrThrow()
        .then((r) => r.last_number);
    },

    insertInvoice(tx: Executor, row: Insertable<Database['invoices']>) {
      return tx.insertInto('invoices').values(row).returningAll().executeTakeFirstOrThrow();
    },

    /** A page of the workspace's invoices, newest first, with the total. */
    async listInvoices(tx: Executor, workspaceId: string, offset: number, limit: number) {
      const scoped = tx.selectFrom('invoices').where('workspace_id', '=', workspaceId);
      const [rows, count] = await Promise.all([
        scoped.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute(),
        scoped.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },

    findInvoice(tx: Executor, workspaceId: string, id: string) {
      return tx.selectFrom('invoices').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    findInvoiceOfPayment(tx: Executor, workspaceId: string, paymentId: string) {
      return tx.selectFrom('invoices').selectAll().where('workspace_id', '=', workspaceId).where('payment_id', '=', paymentId).executeTakeFirst();
    },

    // ---- credit notes ----

    /** A credit note: a succeeded refund of the workspace (a refund still `reserved` has none yet). */
    findCreditNote(tx: Executor, workspaceId: string, id: string) {
      return tx
        .selectFrom('refunds')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .where('status', '=', 'succeeded')
        .executeTakeFirst();
    },

    /** The next gapless credit-note number of `year`; the counter row stays locked until the refund's transaction ends. */
    nextCreditNoteNumber(tx: Executor, year: number) {
      return tx
        .insertInto('credit_note_counters')
        .values({ year, last_number: 1 })
        .onConflict((oc) => oc.column('year').doUpdateSet({ last_number: sql<number>`credit_note_counters.last_number + 1` }))
        .returning('last_number')
        .executeTakeFirstOrThrow()
        .then((r) => r.last_number);
    },

    async listCreditNotes(tx: Executor, workspaceId: string, offset: number, limit: number) {
      const scoped = tx.selectFrom('refunds').where('workspace_id', '=', workspaceId).where('status', '=', 'succeeded');
      const [rows, count] = await Promise.all([
        scoped.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute(),
        scoped.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },
  };
}
