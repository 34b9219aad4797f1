import type { Executor } from '../../../db/database.js';
import type { Actor } from '../../../kernel/actor.js';
import { conflict, invalid, notFound } from '../../../kernel/errors.js';
import { recordEvent } from '../subscriptions/subscriptions.audit.js';
import { discountDisplay, evaluateCoupon, normalizeCouponCode, REJECTION_TEXT } from '../billing.domain.js';
import { assertInstanceAdmin, planOrThrow } from './catalog.plans.js';
import type { PaymentRow, PlanRow } from '../billing.repository.js';
import type { BillingDeps } from '../billing.deps.js';
import { couponView } from '../billing.views.js';

export type CouponsService = ReturnType<typeof createCouponsService>;

/** Coupons: checking one against a plan and amount, redeeming it with a paid payment, and the admin's catalogue. */
export function createCouponsService(deps: Pick<BillingDeps, 'db' | 'repo' | 'clock' | 'identity' | 'log'>) {
  const { db, repo, clock, identity, log } = deps;

  /**
   * The money was taken at the price we quoted, so a payment is always honoured; a coupon that can no longer be
   * redeemed (its last redemption went to another payment first, or this workspace already used it) is not counted
   * twice: the anomaly is logged and kept as an audit event.
   */
  async function redeem(tx: Executor, payment: PaymentRow, now: Date) {
    const code = payment.coupon_code!;
    let outcome: 'redeemed' | 'already_redeemed' | 'exhausted_or_deleted';
    if (await repo.hasRedeemed(tx, payment.workspace_id, code)) outcome = 'already_redeemed';
    else if (await repo.takeRedemption(tx, code)) {
      await repo.insertRedemption(tx, { coupon_code: code, workspace_id: payment.workspace_id, payment_id: payment.id, redeemed_at: now });
      outcome = 'redeemed';
    } else outcome = 'exhausted_or_deleted';
    if (outcome !== 'redeemed') {
      log.warn({ merchantOid: payment.merchant_oid, coupon: code, outcome }, 'billing: payment honoured but the coupon redemption was not counted');
    }
    await recordEvent(repo, tx, {
      workspaceId: payment.workspace_id,
      type: outcome === 'redeemed' ? 'coupon.redeemed' : 'coupon.redemption_skipped',
      paymentId: payment.id,
      data: { coupon_code: code, outcome },
      at: now,
    });
  }

  async function checkCoupon(tx: Executor, workspaceId: string, rawCode: string, plan: PlanRow, amount: number, now: Date) {
    const code = normalizeCouponCode(rawCode);
    const coupon = await repo.findCoupon(tx, code);
    const redeemedByWorkspace = coupon ? await repo.hasRedeemed(tx, workspaceId, code) : false;
    return { code, check: evaluateCoupon(coupon, { planSlug: plan.slug, currency: plan.currency, amount, now, redeemedByWorkspace }) };
  }

  return {
    redeem,
    checkCoupon,

    async validateCoupon(actor: Actor, slug: string, input: { code: string; plan_slug: string; amount: number }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        const plan = await planOrThrow(repo, input.plan_slug, tx);
        const { check } = await checkCoupon(tx, ws.workspaceId, input.code, plan, input.amount, clock.now());
        if (!check.valid) {
          return {
            valid: false,
            discounted_amount: input.amount,
            discount_display: '0.00',
            discount_amount: 0,
            reason: REJECTION_TEXT[check.reason],
            reason_code: check.reason,
          };
        }
        return {
          valid: true,
          discounted_amount: check.discountedAmount,
          discount_display: discountDisplay(check.discount),
          discount_amount: check.discount,
          reason: null,
          reason_code: null,
        };
      });
    },

    async adminListCoupons(actor: Actor) {
      assertInstanceAdmin(actor);
      return (await repo.listCoupons(db)).map(couponView);
    },

    async adminCreateCoupon(
      actor: Actor,
      input: {
        code: string;
        percent_off?: number | null;
        amount_off?: number | null;
        currency?: string | null;
        plan_slugs?: string[] | null;
        max_redemptions?: number | null;
        redeem_by?: string | null;
      },
    ) {
      assertInstanceAdmin(actor);
      const percent = input.percent_off ?? null;
      const amountOff = input.amount_off ?? null;
      if ((percent === null) === (amountOff === null)) throw invalid('/percent_off', 'give exactly one of percent_off and amount_off');
      const currency = input.currency ?? null;
      if (amountOff !== null && currency === null) throw invalid('/currency', 'is required with amount_off');
      if (amountOff === null && currency !== null) throw invalid('/currency', 'is only allowed with amount_off');
      return db.transaction().execute(async (tx) => {
        const planSlugs = input.plan_slugs ? [...new Set(input.plan_slugs)] : null;
        for (const [i, s] of (planSlugs ?? []).entries()) {
          if (!(await repo.findPlan(tx, s))) throw invalid(`/plan_slugs/${i}`, `no plan "${s}"`);
        }
        const coupon = await repo.insertCoupon(tx, {
          code: normalizeCouponCode(input.code),
          percent_off: percent,
          amount_off: amountOff,
          currency,
          plan_slugs: planSlugs,
          max_redemptions: input.max_redemptions ?? null,
          redeem_by: input.redeem_by ? new Date(input.redeem_by) : null,
          created_at: clock.now(),
        });
        if (!coupon) throw conflict(`A coupon "${input.code}" already exists`);
        return couponView(coupon);
      });
    },

    async adminDeleteCoupon(actor: Actor, code: string) {
      assertInstanceAdmin(actor);
      if (!(await repo.deleteCoupon(db, normalizeCouponCode(code)))) throw notFound('Coupon');
    },
  };
}
