import type { Insertable, Updateable } from 'kysely';
import type { Executor } from '../../../db/database.js';
import { prepared, queryBuilder as qb } from '../../../db/prepared.js';
import type { Database } from '../../../db/schema.js';

/** Queries of the catalogue: plans, coupons and their redemptions, and the counts a plan caps. */
export type CatalogRepository = ReturnType<typeof catalogRepository>;

export type PlanRow = Awaited<ReturnType<CatalogRepository['listPlans']>>[number];
export type CouponRow = Awaited<ReturnType<CatalogRepository['listCoupons']>>[number];

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

/** A plan by slug: every billing read and plan check asks (compiled once). */
const planOf = prepared((slug: string) => qb.selectFrom('plans').select(planColumns).where('slug', '=', slug), 1);

export function catalogRepository() {
  return {
    // ---- what a plan caps (read-only use of the core tables) ----

    countMembers(tx: Executor, workspaceId: string) {
      return tx
        .selectFrom('workspace_members')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow()
        .then((r) => r.n);
    },

    /** Invitations still pending (not accepted, revoked or expired): each holds a seat until it is answered (26.4). */
    countPendingInvitations(tx: Executor, workspaceId: string, now: Date) {
      return tx
        .selectFrom('invitations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n));
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

    // ---- plans ----

    listPlans(tx: Executor, onlyActive = false) {
      let q = tx.selectFrom('plans').select(planColumns);
      if (onlyActive) q = q.where('is_active', '=', true);
      return q.orderBy('sort_order').orderBy('slug').execute();
    },

    async findPlan(tx: Executor, slug: string) {
      return (await planOf(tx, slug))[0];
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
  };
}
