import type { Executor } from '../../../db/database.js';
import { recordEvent } from '../subscriptions/subscriptions.audit.js';
import { nextRetryAt } from '../billing.domain.js';
import type { PaymentRow } from '../billing.repository.js';
import type { BillingDeps } from '../billing.deps.js';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.js';

export interface DunningDeps extends Pick<BillingDeps, 'repo' | 'graceDays' | 'retryDays'> {
  subscriptions: Pick<SubscriptionsService, 'lockedSubscription' | 'subscriptionUpdated'>;
}

export type Dunning = ReturnType<typeof createDunning>;

/**
 * What a failed renewal or retry does to the subscription (contract 19.2, 19.3), in the transaction that records the
 * failure (the callback's, the charge's, or reconciliation's): past_due, one more attempt, the provider's reason, and
 * the next scheduled retry (none after a final decline or once the schedule runs past the grace period).
 */
export function createDunning(deps: DunningDeps) {
  const { repo, graceDays, retryDays } = deps;
  const { lockedSubscription, subscriptionUpdated } = deps.subscriptions;

  async function chargeFailed(tx: Executor, payment: PaymentRow, failure: { reason: string; tryAgain: boolean }, now: Date): Promise<void> {
    if (payment.kind === 'checkout') return;
    await repo.setTryAgain(tx, payment.workspace_id, payment.id, failure.tryAgain);
    await repo.lockWorkspace(tx, payment.workspace_id);
    const sub = await lockedSubscription(tx, payment.workspace_id, now);
    // A charge of a period that is no longer the subscription's (paid by checkout meanwhile, canceled) changes nothing.
    if (!sub || !['active', 'past_due', 'suspended'].includes(sub.status)) return;
    if (payment.period_start && sub.current_period_end.getTime() !== payment.period_start.getTime()) return;
    const next = failure.tryAgain && sub.status !== 'suspended' ? nextRetryAt(sub.current_period_end, retryDays, graceDays, now) : null;
    const status = sub.status === 'active' ? 'past_due' : sub.status;
    const updated = await repo.updateSubscription(tx, sub.workspace_id, sub.id, {
      status,
      dunning_attempts: sub.status === 'active' ? 1 : sub.dunning_attempts + 1,
      next_retry_at: next,
      last_failure_reason: failure.reason,
      updated_at: now,
    });
    await subscriptionUpdated(tx, updated, sub.status, now);
    await recordEvent(repo, tx, {
      workspaceId: sub.workspace_id,
      type: sub.status === 'active' ? 'subscription.transition' : 'subscription.dunning',
      subscriptionId: sub.id,
      paymentId: payment.id,
      from: sub.status,
      to: status,
      data: {
        reason: sub.status === 'active' ? 'renewal_failed' : 'retry_failed',
        failure: failure.reason,
        try_again: failure.tryAgain,
        attempts: updated.dunning_attempts,
        next_retry_at: next?.toISOString() ?? null,
      },
      at: now,
    });
  }

  return { chargeFailed };
}
