import type { Static } from 'typebox';
import type { Executor } from '../../../db/database.js';
import type { Actor } from '../../../kernel/actor.js';
import { conflict, forbidden, invalid, notFound } from '../../../kernel/errors.js';
import { effectiveStatus, FREE_PLAN, PLAN_IN_EFFECT } from '../billing.domain.js';
import { planViolations } from '../subscriptions/subscriptions.plan-change.js';
import type { BillingRepository, PlanRow, SubscriptionRow } from '../billing.repository.js';
import type { CreatePlanBody, UpdatePlanBody } from '../billing.schemas.js';
import type { BillingDeps } from '../billing.deps.js';
import { planView } from '../billing.views.js';

/** The plan catalogue: what a plan is, which one is in effect for a workspace, and the instance admin's edits. */

export function assertInstanceAdmin(actor: Actor) {
  if (!actor.isInstanceAdmin) throw forbidden('Only an instance admin can manage plans and coupons');
}

export async function planOrThrow(repo: Pick<BillingRepository, 'findPlan'>, slug: string, tx: Executor, path = '/plan_slug'): Promise<PlanRow> {
  const plan = await repo.findPlan(tx, slug);
  if (!plan) throw invalid(path, `no plan "${slug}"`);
  return plan;
}

async function freePlan(repo: Pick<BillingRepository, 'findPlan'>, tx: Executor): Promise<PlanRow> {
  const free = await repo.findPlan(tx, FREE_PLAN);
  if (!free) throw new Error('The free plan is missing from the catalogue');
  return free;
}

/**
 * The plan whose limits apply: the subscription's while it is trialing, active or past_due (as of `now`, never a
 * stale stored status); else free. The one answer to "which plan is in effect", for the service and the plan gate.
 */
export async function planInEffect(
  repo: Pick<BillingRepository, 'findPlan'>,
  tx: Executor,
  sub: SubscriptionRow | undefined,
  now: Date,
  graceDays: number,
  /** The subscription's plan when the caller has just read it (no second read). */
  known?: PlanRow,
): Promise<PlanRow> {
  if (sub && PLAN_IN_EFFECT.includes(effectiveStatus(sub, now, graceDays))) {
    const plan = known?.slug === sub.plan_slug ? known : await repo.findPlan(tx, sub.plan_slug);
    if (plan) return plan;
  }
  return freePlan(repo, tx);
}

export type PlansService = ReturnType<typeof createPlansService>;

export function createPlansService(deps: Pick<BillingDeps, 'db' | 'repo' | 'identity'>) {
  const { db, repo, identity } = deps;
  return {
    async listPublicPlans() {
      return (await repo.listPlans(db, true)).map(planView);
    },

    async adminListPlans(actor: Actor) {
      assertInstanceAdmin(actor);
      return (await repo.listPlans(db)).map(planView);
    },

    async adminCreatePlan(actor: Actor, input: Static<typeof CreatePlanBody>) {
      assertInstanceAdmin(actor);
      const plan = await repo.insertPlan(db, {
        slug: input.slug,
        name: input.name.trim(),
        max_users: input.max_users,
        max_projects: input.max_projects,
        max_storage_gb: input.max_storage_gb,
        ai_tokens_monthly: input.ai_tokens_monthly,
        features: JSON.stringify({ time_tracking: false, custom_properties: false, ...input.features }),
        price_month: input.price_month ?? null,
        price_year: input.price_year ?? null,
        currency: input.currency,
        trial_days: input.trial_days ?? 0,
        is_active: input.is_active ?? true,
        sort_order: input.sort_order ?? 0,
      });
      if (!plan) throw conflict(`A plan "${input.slug}" already exists`);
      return planView(plan);
    },

    async adminUpdatePlan(actor: Actor, slug: string, input: Static<typeof UpdatePlanBody>) {
      assertInstanceAdmin(actor);
      return db.transaction().execute(async (tx) => {
        const existing = await repo.findPlan(tx, slug);
        if (!existing) throw notFound('Plan');
        const { features, name, ...rest } = input;
        const patch = {
          ...rest,
          ...(name !== undefined ? { name: name.trim() } : {}),
          ...(features !== undefined ? { features: JSON.stringify({ ...existing.features, ...features }) } : {}),
        };
        if (Object.keys(patch).length === 0) return planView(existing);
        return planView((await repo.updatePlan(tx, slug, patch))!);
      });
    },

    /** `plan-check`: what the workspace uses beyond what a plan allows (section 13). */
    async planCheck(actor: Actor, slug: string, planSlug: string) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        const plan = await planOrThrow(repo, planSlug, tx, '/plan_slug');
        const violations = planViolations(
          { max_users: plan.max_users, max_projects: plan.max_projects, features: plan.features },
          {
            members: await repo.countMembers(tx, ws.workspaceId),
            projects: await repo.countProjects(tx, ws.workspaceId),
            customProperties: await repo.countCustomProperties(tx, ws.workspaceId),
          },
        );
        return { plan_slug: plan.slug, allowed: violations.length === 0, violations };
      });
    },
  };
}
