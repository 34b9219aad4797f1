import type { Executor } from '../../../db/database.js';
import { newId } from '../../../kernel/ids.js';
import type { BillingRepository } from '../billing.repository.js';

/** One row of the billing audit trail (`billing_events`): what changed, from which status to which, and why. */
export async function recordEvent(
  repo: Pick<BillingRepository, 'insertEvent'>,
  tx: Executor,
  e: {
    workspaceId: string;
    type: string;
    subscriptionId?: string | null;
    paymentId?: string | null;
    from?: string | null;
    to?: string | null;
    data?: Record<string, unknown>;
    at: Date;
  },
): Promise<void> {
  await repo.insertEvent(tx, {
    id: newId(),
    workspace_id: e.workspaceId,
    subscription_id: e.subscriptionId ?? null,
    payment_id: e.paymentId ?? null,
    type: e.type,
    from_status: e.from ?? null,
    to_status: e.to ?? null,
    data: JSON.stringify(e.data ?? {}),
    at: e.at,
  });
}
