import type { Executor } from '../../../db/database.js';
import type { Clock } from '../../../kernel/clock.js';
import { AppError } from '../../../kernel/errors.js';
import type { PlanFeature, PlanGate } from '../../../kernel/plan-gate.js';
import { planInEffect } from './catalog.plans.js';
import type { BillingRepository, PlanRow } from '../billing.repository.js';
import { featuresOf } from '../billing.views.js';

export interface PlanGateDeps {
  repo: Pick<BillingRepository, 'findSubscription' | 'findPlan' | 'lockWorkspace' | 'countMembers' | 'countPendingInvitations' | 'countProjects'>;
  clock: Clock;
  graceDays: number;
}

const unlimited = (cap: number): boolean => cap < 0;

/**
 * What a workspace's plan allows, asked by other modules inside their own transaction. The status in effect is
 * computed from the clock (never stale, never written here); the workspace row is locked so that two concurrent
 * additions cannot both take the last free place.
 */
/** 1 GB of `max_storage_gb` (contract 25.3). */
const GIB = 1_073_741_824;

export function createPlanGate(deps: PlanGateDeps): PlanGate<Executor> {
  const { repo, clock, graceDays } = deps;

  const planOf = async (tx: Executor, workspaceId: string): Promise<PlanRow> =>
    planInEffect(repo, tx, await repo.findSubscription(tx, workspaceId), clock.now(), graceDays);

  return {
    async assertCanAddMember(tx, workspaceId) {
      await repo.lockWorkspace(tx, workspaceId);
      const plan = await planOf(tx, workspaceId);
      if (unlimited(plan.max_users)) return;
      // Members plus pending invitations hold the seats (26.4): an invitation is counted when it is sent.
      const seats = Number(await repo.countMembers(tx, workspaceId)) + (await repo.countPendingInvitations(tx, workspaceId, clock.now()));
      if (seats >= plan.max_users) {
        throw new AppError('plan_limit_reached', `The ${plan.name} plan allows ${plan.max_users} members (pending invitations included); upgrade to add more`);
      }
    },
    async assertCanAddProject(tx, workspaceId) {
      await repo.lockWorkspace(tx, workspaceId);
      const plan = await planOf(tx, workspaceId);
      if (unlimited(plan.max_projects)) return;
      if ((await repo.countProjects(tx, workspaceId)) >= plan.max_projects) {
        throw new AppError('plan_limit_reached', `The ${plan.name} plan allows ${plan.max_projects} projects; upgrade to add more`);
      }
    },
    async assertFeature(tx, workspaceId, feature: PlanFeature) {
      const plan = await planOf(tx, workspaceId);
      if (featuresOf(plan)[feature] !== true) {
        throw new AppError('feature_not_in_plan', `The ${plan.name} plan does not include ${feature.replace('_', ' ')}; upgrade to use it`);
      }
    },
    async storageLimitBytes(tx, workspaceId) {
      const plan = await planOf(tx, workspaceId);
      return unlimited(plan.max_storage_gb) ? null : plan.max_storage_gb * GIB;
    },
  };
}
