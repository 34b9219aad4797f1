import type { BillingInterval } from '../billing.domain.js';

/**
 * Plan changes (contract section 13), as pure functions. Money is integer minor units; the proration uses BigInt so
 * that amount x seconds never loses precision.
 */

/** A price over a year: 12 months of a monthly price, or the yearly price. */
export const yearlyPrice = (price: number, interval: BillingInterval): number => (interval === 'year' ? price : price * 12);

/**
 * The unused share of what was paid for the current period, by whole seconds, rounded down to a minor unit:
 * floor(paid * remaining_s / total_s). 0 outside the period; never more than `paid`.
 */
export function prorationCredit(paid: number, periodStart: Date, periodEnd: Date, now: Date): number {
  if (!Number.isSafeInteger(paid) || paid <= 0) return 0;
  const total = Math.floor((periodEnd.getTime() - periodStart.getTime()) / 1000);
  const remaining = Math.floor((periodEnd.getTime() - now.getTime()) / 1000);
  if (total <= 0 || remaining <= 0) return 0;
  const r = Math.min(remaining, total);
  return Number((BigInt(paid) * BigInt(r)) / BigInt(total));
}

/** An upgrade's charge: the new amount minus the credit, never below 0; the credit applied is what it covers. */
export function upgradeCharge(newAmount: number, credit: number): { charge: number; credit: number } {
  const applied = Math.max(0, Math.min(credit, newAmount));
  return { charge: newAmount - applied, credit: applied };
}

export type PlanChange = 'upgrade' | 'downgrade' | 'none';

/** What a checkout of `plan` is for the current subscription: only an active, running period of another plan changes. */
export function classifyChange(
  current: { status: string; plan_slug: string; billing_interval: BillingInterval; amount_per_period: number; current_period_end: Date } | undefined,
  next: { plan_slug: string; price: number; interval: BillingInterval },
  now: Date,
): PlanChange {
  if (!current || current.status !== 'active' || current.current_period_end <= now || current.plan_slug === next.plan_slug) return 'none';
  const from = yearlyPrice(current.amount_per_period, current.billing_interval);
  const to = yearlyPrice(next.price, next.interval);
  if (to > from) return 'upgrade';
  if (to < from) return 'downgrade';
  return 'none';
}

export interface Violation {
  limit: 'max_users' | 'max_projects' | 'custom_properties';
  allowed: number | boolean;
  current: number;
}

/** What the workspace uses beyond what a plan allows (-1: unlimited). */
export function planViolations(
  plan: { max_users: number; max_projects: number; features: Record<string, boolean> },
  usage: { members: number; projects: number; customProperties: number },
): Violation[] {
  const out: Violation[] = [];
  if (plan.max_users >= 0 && usage.members > plan.max_users) out.push({ limit: 'max_users', allowed: plan.max_users, current: usage.members });
  if (plan.max_projects >= 0 && usage.projects > plan.max_projects) out.push({ limit: 'max_projects', allowed: plan.max_projects, current: usage.projects });
  if (plan.features.custom_properties !== true && usage.customProperties > 0) {
    out.push({ limit: 'custom_properties', allowed: false, current: usage.customProperties });
  }
  return out;
}
