import { type Insertable, sql } from 'kysely';
import type { Executor } from '../../../db/database.js';
import { prepared, queryBuilder as qb } from '../../../db/prepared.js';
import type { Database } from '../../../db/schema.js';

/** A workspace's test-clock offset: every billing read under the sandbox provider asks (compiled once). */
const clockOffsetOf = prepared(
  (workspaceId: string) => qb.selectFrom('billing_test_clocks').select('offset_seconds').where('workspace_id', '=', workspaceId),
  1,
);

/** Queries of automatic collection (contract 19.2, 19.3): the charges due, and the payment that makes each once. */
export type CollectionRepository = ReturnType<typeof collectionRepository>;

export function collectionRepository() {
  return {
    /**
     * Subscriptions whose renewal charge or dunning retry is due at `now`, with a default card, claimed with SKIP
     * LOCKED so that instances share them. `workspaceId`: one workspace (a test clock's); else every workspace
     * without a test clock (those run on their own time).
     */
    claimChargesDue(tx: Executor, now: Date, limit: number, workspaceId?: string) {
      let q = tx
        .selectFrom('subscriptions as s')
        .selectAll('s')
        .where((eb) =>
          eb.or([
            eb.and([
              eb('s.status', '=', 'active'),
              eb('s.cancel_at_period_end', '=', false),
              eb('s.current_period_end', '<=', now),
              eb.or([eb('s.renewal_charged_for', 'is', null), eb('s.renewal_charged_for', '<>', eb.ref('s.current_period_end'))]),
            ]),
            eb.and([eb('s.status', '=', 'past_due'), eb('s.next_retry_at', '<=', now)]),
          ]),
        )
        .where((eb) =>
          eb.exists(
            eb.selectFrom('payment_methods as pm').select('pm.id').whereRef('pm.workspace_id', '=', 's.workspace_id').where('pm.is_default', '=', true),
          ),
        );
      q = workspaceId
        ? q.where('s.workspace_id', '=', workspaceId)
        : q.where((eb) =>
            eb.not(eb.exists(eb.selectFrom('billing_test_clocks as c').select('c.workspace_id').whereRef('c.workspace_id', '=', 's.workspace_id'))),
          );
      return q.orderBy('s.current_period_end').limit(limit).forUpdate().skipLocked().execute();
    },

    /** The payment of one charge; undefined when its key was already used (the charge exists: never a second). */
    insertChargePayment(tx: Executor, row: Insertable<Database['payments']> & { charge_key: string }) {
      return tx
        .insertInto('payments')
        .values(row)
        .onConflict((oc) => oc.column('charge_key').where('charge_key', 'is not', null).doNothing())
        .returningAll()
        .executeTakeFirst();
    },

    /** Records the provider's final-decline flag of a failed charge. */
    async setTryAgain(tx: Executor, workspaceId: string, paymentId: string, tryAgain: boolean) {
      await tx.updateTable('payments').set({ try_again: tryAgain }).where('workspace_id', '=', workspaceId).where('id', '=', paymentId).execute();
    },

    /**
     * Who the charges of these workspaces are for, without the customer present (PayTR requires an e-mail and a
     * name): the billing profile's e-mail and legal name, else the user who last checked out, and the address that
     * checkout came from. One statement for a batch of charges.
     */
    async chargeContacts(tx: Executor, workspaceIds: string[]): Promise<Map<string, { email: string | null; name: string | null; ip: string | null }>> {
      const r = await sql<{ workspace_id: string; email: string | null; name: string | null; ip: string | null }>`
        SELECT w.id AS workspace_id, coalesce(bp.email, buyer.email) AS email, coalesce(bp.legal_name, buyer.display_name) AS name, buyer.user_ip AS ip
          FROM unnest(${workspaceIds}::uuid[]) AS w (id)
          LEFT JOIN billing_profiles bp ON bp.workspace_id = w.id
          LEFT JOIN LATERAL (
            SELECT u.email, u.display_name, p.user_ip FROM payments p JOIN users u ON u.id = p.created_by
             WHERE p.workspace_id = w.id AND p.kind = 'checkout' ORDER BY p.created_at DESC LIMIT 1) buyer ON true`.execute(tx);
      return new Map(r.rows.map(({ workspace_id, ...contact }) => [workspace_id, contact]));
    },

    /**
     * The default card and the provider user token of each of these workspaces, what a charge needs (a workspace
     * without them is not in the map: nothing to charge). One statement for a batch of claimed subscriptions.
     */
    async findChargeCards(tx: Executor, workspaceIds: string[]) {
      const rows =
        workspaceIds.length === 0
          ? []
          : await tx
              .selectFrom('payment_methods as pm')
              .innerJoin('payment_customers as pc', 'pc.workspace_id', 'pm.workspace_id')
              .selectAll('pm')
              .select('pc.utoken')
              .where('pm.workspace_id', 'in', workspaceIds)
              .where('pm.is_default', '=', true)
              .execute();
      return new Map(rows.map((r) => [r.workspace_id, r]));
    },

    // ---- test clocks (19.7) ----

    async findClockOffset(tx: Executor, workspaceId: string) {
      const r = (await clockOffsetOf(tx, workspaceId))[0];
      return r ? Number(r.offset_seconds) : 0;
    },

    async setClockOffset(tx: Executor, workspaceId: string, offsetSeconds: number, now: Date) {
      await tx
        .insertInto('billing_test_clocks')
        .values({ workspace_id: workspaceId, offset_seconds: offsetSeconds, updated_at: now })
        .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ offset_seconds: offsetSeconds, updated_at: now }))
        .execute();
    },

    /** Every workspace on a test clock (the sandbox's background duties run them on their own time). */
    listClocks(tx: Executor) {
      return tx.selectFrom('billing_test_clocks').select(['workspace_id', 'offset_seconds']).execute();
    },
  };
}
