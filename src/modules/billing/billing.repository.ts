import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/schema.js';

export type BillingRepository = ReturnType<typeof billingRepository>;

export type PlanRow = Awaited<ReturnType<BillingRepository['listPlans']>>[number];
export type SubscriptionRow = Selectable<Database['subscriptions']>;
export type PaymentRow = Awaited<ReturnType<BillingRepository['findPaymentByOid']>> & {};
export type InvoiceRow = Awaited<ReturnType<BillingRepository['insertInvoice']>>;
export type CouponRow = Awaited<ReturnType<BillingRepository['listCoupons']>>[number];

const planColumns = [
  'slug',
  'name',
  'max_users',
  'max_projects',
  'max_storage_gb',
  'ai_tokens_monthly',
  'features',
  'price_month',
  'price_year',
  'currency',
  'trial_days',
  'is_active',
  'sort_order',
] as const;

/** A page of a workspace's payments or invoices, newest first, with the total. */
async function workspacePage<T extends 'payments' | 'invoices'>(
  tx: Executor,
  table: T,
  workspaceId: string,
  offset: number,
  limit: number,
): Promise<{ rows: Selectable<Database[T]>[]; total: number }> {
  const scoped = tx.selectFrom(table as 'payments').where('workspace_id', '=', workspaceId);
  const [rows, count] = await Promise.all([
    scoped.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute(),
    scoped.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as unknown as Selectable<Database[T]>[], total: count.n };
}

export function billingRepository() {
  return {
    // ---- workspaces (read-only use of the core table) ----

    /** Serialises billing writes of one workspace; NO KEY UPDATE leaves inserts that reference it unblocked. */
    async lockWorkspace(tx: Executor, workspaceId: string) {
      await tx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forNoKeyUpdate().execute();
    },

    countMembers(tx: Executor, workspaceId: string) {
      return tx
        .selectFrom('workspace_members')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow()
        .then((r) => r.n);
    },

    countProjects(tx: Executor, workspaceId: string) {
      return tx
        .selectFrom('projects')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow()
        .then((r) => r.n);
    },

    countCustomProperties(tx: Executor, workspaceId: string) {
      return tx
        .selectFrom('custom_properties')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n));
    },

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

    // ---- plans ----

    listPlans(tx: Executor, onlyActive = false) {
      let q = tx.selectFrom('plans').select(planColumns);
      if (onlyActive) q = q.where('is_active', '=', true);
      return q.orderBy('sort_order').orderBy('slug').execute();
    },

    findPlan(tx: Executor, slug: string) {
      return tx.selectFrom('plans').select(planColumns).where('slug', '=', slug).executeTakeFirst();
    },

    insertPlan(tx: Executor, plan: Insertable<Database['plans']>) {
      return tx
        .insertInto('plans')
        .values(plan)
        .onConflict((oc) => oc.column('slug').doNothing())
        .returning(planColumns)
        .executeTakeFirst();
    },

    updatePlan(tx: Executor, slug: string, patch: Updateable<Database['plans']>) {
      return tx.updateTable('plans').set(patch).where('slug', '=', slug).returning(planColumns).executeTakeFirst();
    },

    // ---- subscriptions ----

    findSubscription(tx: Executor, workspaceId: string, lock = false) {
      let q = tx.selectFrom('subscriptions').selectAll().where('workspace_id', '=', workspaceId);
      if (lock) q = q.forUpdate();
      return q.executeTakeFirst();
    },

    /** Subscriptions with a transition due, claimed so that another instance skips them. */
    claimDueSubscriptions(tx: Executor, now: Date, graceCutoff: Date, limit: number) {
      return tx
        .selectFrom('subscriptions')
        .selectAll()
        .where((eb) =>
          eb.or([
            eb.and([eb('status', 'in', ['trialing', 'active']), eb('current_period_end', '<=', now)]),
            eb.and([eb('status', '=', 'past_due'), eb('current_period_end', '<=', graceCutoff)]),
          ]),
        )
        .orderBy('current_period_end')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
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

    listPayments(tx: Executor, workspaceId: string, offset: number, limit: number) {
      return workspacePage(tx, 'payments', workspaceId, offset, limit);
    },

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

    listInvoices(tx: Executor, workspaceId: string, offset: number, limit: number) {
      return workspacePage(tx, 'invoices', workspaceId, offset, limit);
    },

    // ---- coupons ----

    listCoupons(tx: Executor) {
      return tx.selectFrom('coupons').selectAll().orderBy('created_at', 'desc').orderBy('code').execute();
    },

    findCoupon(tx: Executor, code: string) {
      return tx.selectFrom('coupons').selectAll().where('code', '=', code).executeTakeFirst();
    },

    insertCoupon(tx: Executor, row: Insertable<Database['coupons']>) {
      return tx
        .insertInto('coupons')
        .values(row)
        .onConflict((oc) => oc.column('code').doNothing())
        .returningAll()
        .executeTakeFirst();
    },

    deleteCoupon(tx: Executor, code: string) {
      return tx
        .deleteFrom('coupons')
        .where('code', '=', code)
        .executeTakeFirst()
        .then((r) => Number(r.numDeletedRows) > 0);
    },

    hasRedeemed(tx: Executor, workspaceId: string, code: string) {
      return tx
        .selectFrom('coupon_redemptions')
        .select('payment_id')
        .where('coupon_code', '=', code)
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst()
        .then((r) => r !== undefined);
    },

    /** Takes one redemption, never past max_redemptions (the row lock makes the last one go to one payment only). */
    takeRedemption(tx: Executor, code: string) {
      return tx
        .updateTable('coupons')
        .set((eb) => ({ times_redeemed: eb('times_redeemed', '+', 1) }))
        .where('code', '=', code)
        .where((eb) => eb.or([eb('max_redemptions', 'is', null), eb('times_redeemed', '<', eb.ref('max_redemptions'))]))
        .returning('times_redeemed')
        .executeTakeFirst();
    },

    insertRedemption(tx: Executor, row: Insertable<Database['coupon_redemptions']>) {
      return tx
        .insertInto('coupon_redemptions')
        .values(row)
        .onConflict((oc) => oc.columns(['coupon_code', 'workspace_id']).doNothing())
        .returning('payment_id')
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
