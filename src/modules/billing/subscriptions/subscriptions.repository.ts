import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../../db/database.js';
import { prepared, queryBuilder as qb } from '../../../db/prepared.js';
import type { Database } from '../../../db/schema.js';

/** A workspace's subscription (read by every billing read and plan check: compiled once). */
const subscriptionOf = prepared((workspaceId: string) => qb.selectFrom('subscriptions').selectAll().where('workspace_id', '=', workspaceId), 1);

/** Queries of subscriptions: the workspace lock, subscriptions and trials, notices, the billing audit trail. */
export type SubscriptionsRepository = ReturnType<typeof subscriptionsRepository>;

export type SubscriptionRow = Selectable<Database['subscriptions']>;

export function subscriptionsRepository() {
  return {
    // ---- workspaces (read-only use of the core table) ----

    /** Serialises billing writes of one workspace; NO KEY UPDATE leaves inserts that reference it unblocked. */
    async lockWorkspace(tx: Executor, workspaceId: string) {
      await tx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forNoKeyUpdate().execute();
    },

    // ---- subscriptions ----

    async findSubscription(tx: Executor, workspaceId: string, lock = false) {
      if (!lock) return (await subscriptionOf(tx, workspaceId))[0];
      return tx.selectFrom('subscriptions').selectAll().where('workspace_id', '=', workspaceId).forUpdate().executeTakeFirst();
    },

    /**
     * Subscriptions with a transition due, claimed so that another instance skips them. An active one that renews
     * with its default card is the collection job's (19.2), not a transition. `workspaceId`: one workspace (a test
     * clock's); else every workspace without a test clock (those run on their own time).
     */
    claimDueSubscriptions(tx: Executor, now: Date, graceCutoff: Date, limit: number, workspaceId?: string) {
      let q = tx
        .selectFrom('subscriptions as s')
        .selectAll('s')
        .where((eb) =>
          eb.or([
            eb.and([eb('s.status', '=', 'trialing'), eb('s.current_period_end', '<=', now)]),
            eb.and([
              eb('s.status', '=', 'active'),
              eb('s.current_period_end', '<=', now),
              eb.or([
                eb('s.cancel_at_period_end', '=', true),
                eb.not(
                  eb.exists(
                    eb.selectFrom('payment_methods as pm').select('pm.id').whereRef('pm.workspace_id', '=', 's.workspace_id').where('pm.is_default', '=', true),
                  ),
                ),
              ]),
            ]),
            eb.and([eb('s.status', '=', 'past_due'), eb('s.current_period_end', '<=', graceCutoff)]),
          ]),
        );
      q = workspaceId
        ? q.where('s.workspace_id', '=', workspaceId)
        : q.where((eb) =>
            eb.not(eb.exists(eb.selectFrom('billing_test_clocks as c').select('c.workspace_id').whereRef('c.workspace_id', '=', 's.workspace_id'))),
          );
      return q.orderBy('s.current_period_end').limit(limit).forUpdate().skipLocked().execute();
    },

    insertSubscription(tx: Executor, row: Insertable<Database['subscriptions']>) {
      return tx.insertInto('subscriptions').values(row).returningAll().executeTakeFirstOrThrow();
    },

    updateSubscription(tx: Executor, workspaceId: string, id: string, patch: Updateable<Database['subscriptions']>) {
      return tx.updateTable('subscriptions').set(patch).where('workspace_id', '=', workspaceId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    },

    /** Replaces the workspace's subscription row in place (also its id, for a fresh subscription). */
    replaceSubscription(tx: Executor, workspaceId: string, oldId: string, row: Updateable<Database['subscriptions']>) {
      return tx.updateTable('subscriptions').set(row).where('workspace_id', '=', workspaceId).where('id', '=', oldId).returningAll().executeTakeFirstOrThrow();
    },

    insertTrial(tx: Executor, row: Insertable<Database['workspace_trials']>) {
      return tx
        .insertInto('workspace_trials')
        .values(row)
        .onConflict((oc) => oc.column('workspace_id').doNothing())
        .returning('workspace_id')
        .executeTakeFirst();
    },

    // ---- notices ----

    /**
     * Subscriptions due a notice of `kind` (period end within `lead` of now, not yet noticed for this period),
     * claimed with SKIP LOCKED so instances share the work.
     */
    claimNoticeDue(tx: Executor, kind: 'renewal_upcoming' | 'trial_will_end', now: Date, horizon: Date, limit: number, workspaceId?: string) {
      let q = tx
        .selectFrom('subscriptions as s')
        .selectAll('s')
        .where('s.current_period_end', '>', now)
        .where('s.current_period_end', '<=', horizon)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('subscription_notices as n')
                .select('n.subscription_id')
                .whereRef('n.workspace_id', '=', 's.workspace_id')
                .whereRef('n.subscription_id', '=', 's.id')
                .where('n.kind', '=', kind)
                .whereRef('n.period_end', '=', 's.current_period_end'),
            ),
          ),
        );
      q = kind === 'trial_will_end' ? q.where('s.status', '=', 'trialing') : q.where('s.status', '=', 'active').where('s.cancel_at_period_end', '=', false);
      q = workspaceId
        ? q.where('s.workspace_id', '=', workspaceId)
        : q.where((eb) =>
            eb.not(eb.exists(eb.selectFrom('billing_test_clocks as c').select('c.workspace_id').whereRef('c.workspace_id', '=', 's.workspace_id'))),
          );
      return q.orderBy('s.current_period_end').limit(limit).forUpdate().skipLocked().execute();
    },

    /** Records a notice; undefined when it was already recorded (the primary key makes it once). */
    insertNotice(tx: Executor, row: Insertable<Database['subscription_notices']>) {
      return tx
        .insertInto('subscription_notices')
        .values(row)
        .onConflict((oc) => oc.doNothing())
        .returning('subscription_id')
        .executeTakeFirst();
    },

    // ---- audit ----

    insertEvent(tx: Executor, row: Insertable<Database['billing_events']>) {
      return tx.insertInto('billing_events').values(row).execute();
    },

    listEvents(tx: Executor, workspaceId: string) {
      return tx.selectFrom('billing_events').selectAll().where('workspace_id', '=', workspaceId).orderBy('at').orderBy('id').execute();
    },
  };
}
