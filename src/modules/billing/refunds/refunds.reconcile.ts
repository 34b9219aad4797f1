import type { Db } from '../../../db/database.js';
import type { Actor } from '../../../kernel/actor.js';
import { addMs, type Clock } from '../../../kernel/clock.js';
import { AppError, notFound } from '../../../kernel/errors.js';
import { newId } from '../../../kernel/ids.js';
import type { Outbox } from '../../../kernel/outbox.js';
import type { Tx } from '../../../db/database.js';
import type { BillingRepository } from '../billing.repository.js';
import type { BillingLogger } from '../billing.deps.js';
import type { BillingService } from '../billing.service.js';
import { paymentView } from '../billing.views.js';
import { DEFAULT_TIMEOUT_LIMIT_MINUTES, type PaytrClient, PaytrError } from '../provider/paytr/index.js';

export interface ReconcileDeps {
  db: Db;
  repo: BillingRepository;
  clock: Clock;
  provider: PaytrClient;
  outbox: Outbox<Tx>;
  log: BillingLogger;
  billing: BillingService;
  /** A pending payment older than this is asked about (PAYMENT_RECONCILE_AFTER_S). */
  reconcileAfterMs: number;
}

const BATCH = 50;
/** How long the checkout's payment page stays usable: the `timeout_limit` every checkout sends. */
export const CHECKOUT_TIMEOUT_MS = DEFAULT_TIMEOUT_LIMIT_MINUTES * 60_000;

export type ReconcileOutcome = 'fulfilled' | 'failed' | 'expired' | 'still_pending' | 'already_settled' | 'provider_error';

export type ReconcileService = ReturnType<typeof createReconcileService>;

/**
 * Reconciliation with the provider's status query. A paid order goes through `billing.settle`, the very code path of
 * the callback (its conditional update is the one transition, whoever comes first). An order the provider does not
 * know (status `error`) once the payment page has timed out becomes `failed` with `failure_reason: "expired"`; the
 * callback's conditional update still accepts a first genuine notification for such a payment.
 */
export function createReconcileService(deps: ReconcileDeps) {
  const { db, repo, clock, log } = deps;

  async function reconcileOne(payment: { id: string; workspace_id: string; merchant_oid: string }): Promise<ReconcileOutcome> {
    let answer;
    try {
      answer = await deps.provider.status(payment.merchant_oid);
    } catch (error) {
      const reason = error instanceof PaytrError ? error.reason : 'unexpected error';
      log.warn({ merchantOid: payment.merchant_oid, reason }, 'billing: status query failed; the payment stays pending');
      return 'provider_error';
    }
    if (answer.state === 'paid') {
      const result = await deps.billing.settle(payment.merchant_oid, {
        status: 'success',
        totalAmount: answer.paymentAmount,
        currency: answer.currency,
        failedReason: null,
        source: 'reconciliation',
      });
      if (result !== 'settled') return 'already_settled';
      const after = await repo.findPayment(db, payment.workspace_id, payment.id);
      if (after?.status === 'success') {
        log.info({ merchantOid: payment.merchant_oid }, 'billing: reconciliation fulfilled a payment whose callback never came');
        return 'fulfilled';
      }
      return 'failed';
    }
    return db.transaction().execute(async (tx) => {
      const now = clock.now();
      const row = await repo.findPayment(tx, payment.workspace_id, payment.id, true);
      if (!row || row.status !== 'pending') return 'already_settled' as const;
      if (now.getTime() - row.created_at.getTime() < CHECKOUT_TIMEOUT_MS) return 'still_pending' as const;
      const failed = await repo.expirePending(tx, row.workspace_id, row.id, now);
      if (!failed) return 'already_settled' as const;
      await deps.repo.insertEvent(tx, {
        id: newId(),
        workspace_id: failed.workspace_id,
        subscription_id: null,
        payment_id: failed.id,
        type: 'payment.failed',
        from_status: 'pending',
        to_status: 'failed',
        data: JSON.stringify({ reason: 'expired', source: 'reconciliation', provider: `${answer.errNo} ${answer.errMsg}`.trim() }),
        at: now,
      });
      await deps.outbox.record(tx, { workspaceId: failed.workspace_id, type: 'payment.failed', data: paymentView(failed) });
      // A renewal or retry the provider never took: a failed charge for dunning (19.2), never charged again blindly.
      await deps.billing.internals.chargeFailed(tx, failed, { reason: 'expired', tryAgain: true }, now);
      log.info({ merchantOid: row.merchant_oid }, 'billing: pending payment expired (unknown to the provider after the timeout)');
      return 'expired' as const;
    });
  }

  return {
    /** `POST /api/admin/payments/{id}/reconcile/`: asks the provider now and answers the payment record. */
    async reconcileNow(actor: Actor, paymentId: string) {
      deps.billing.internals.assertInstanceAdmin(actor);
      const workspaceId = await repo.workspaceOfPayment(db, paymentId);
      const payment = workspaceId ? await repo.findPayment(db, workspaceId, paymentId) : undefined;
      if (!payment) throw notFound('Payment');
      if (payment.status === 'pending' || (payment.status === 'failed' && payment.failure_reason === 'expired')) {
        const outcome = await reconcileOne(payment);
        if (outcome === 'provider_error') throw new AppError('payment_provider_error', 'The payment provider could not be asked; the payment is unchanged');
      }
      return paymentView((await repo.findPayment(db, payment.workspace_id, paymentId))!);
    },

    /**
     * The periodic job `billing.reconcile`: claims stale pending payments in short transactions (SKIP LOCKED plus a
     * lease in `reconcile_after`, so another instance skips them), then asks the provider with no transaction open.
     */
    async run(): Promise<Record<ReconcileOutcome, number>> {
      const counts: Record<ReconcileOutcome, number> = { fulfilled: 0, failed: 0, expired: 0, still_pending: 0, already_settled: 0, provider_error: 0 };
      const seen = new Set<string>();
      for (;;) {
        const claimed = await db.transaction().execute(async (tx) => {
          const now = clock.now();
          return repo.claimStalePending(tx, addMs(now, -deps.reconcileAfterMs), now, addMs(now, deps.reconcileAfterMs), BATCH);
        });
        const fresh = claimed.filter((p) => !seen.has(p.id));
        for (const p of fresh) {
          seen.add(p.id);
          counts[await reconcileOne(p)]++;
        }
        if (claimed.length < BATCH || fresh.length === 0) break;
      }
      return counts;
    },
  };
}
