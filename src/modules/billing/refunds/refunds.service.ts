import type { Db, Executor, Tx } from '../../../db/database.js';
import type { Actor } from '../../../kernel/actor.js';
import type { Clock } from '../../../kernel/clock.js';
import { AppError, conflict, invalid, notFound } from '../../../kernel/errors.js';
import { newId } from '../../../kernel/ids.js';
import type { Outbox } from '../../../kernel/outbox.js';
import { iso } from '../../../kernel/time.js';
import { pageOf, type PageQuery } from '../../../kernel/pagination.js';
import type { IdentityService } from '../../identity/index.js';
import type { BillingRepository } from '../billing.repository.js';
import type { RefundRow } from './refunds.repository.js';
import type { BillingLogger, DocumentSettings } from '../billing.deps.js';
import { documentFields } from '../invoices/invoices.issue.js';
import type { BillingService } from '../billing.service.js';
import { billToView, paymentView, sellerView } from '../billing.views.js';
import { type PaytrClient, PaytrError } from '../provider/paytr/index.js';

/** `CN-2026-000001`: gapless within a year, like invoice numbers. */
export const creditNoteNumber = (year: number, n: number): string => `CN-${year}-${String(n).padStart(6, '0')}`;

export const creditNoteView = (r: RefundRow) => ({
  id: r.id,
  payment_id: r.payment_id,
  amount: r.amount,
  currency: r.currency,
  reason: r.reason,
  credit_note_number: r.credit_note_number as string,
  created_at: iso(r.created_at),
  net_amount: r.net_amount as number,
  tax_rate_bp: r.tax_rate_bp as number,
  tax_amount: r.tax_amount as number,
  bill_to: billToView(r.bill_to),
  seller: sellerView(r.seller),
});

export interface RefundDeps {
  db: Db;
  repo: BillingRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
  provider: PaytrClient;
  outbox: Outbox<Tx>;
  log: BillingLogger;
  billing: BillingService;
  /** Tax rate and seller frozen on the credit notes issued now (contract 19.4, 19.5). */
  documents: DocumentSettings;
}

export interface RefundInput {
  amount?: number;
  reason?: string | null;
  cancel_subscription?: boolean;
}

export type RefundsService = ReturnType<typeof createRefundsService>;

/**
 * Refunds through the provider. The provider is asked outside any transaction, so a refund is done in three steps:
 * 1. reserve (one short transaction): the payment row's conditional update adds the amount to
 *    `refund_reserved_amount` only while refunded + reserved + amount <= amount, and a `reserved` refund row is
 *    written (its unique Idempotency-Key makes a second request with the same key find the first one);
 * 2. ask the provider (no transaction held);
 * 3a. accepted: one transaction moves the reservation to `refunded_amount`, issues the credit note, records
 *     `payment.refunded` and, if asked, cancels the subscription;
 * 3b. refused or failed: one transaction releases the reservation and deletes the row: nothing changed, 502.
 * Two concurrent refunds therefore never over-refund: the second reservation fails (400) while the first holds the
 * money. A process that dies between 2 and 3 leaves a `reserved` row and its reservation: the amount stays blocked
 * until an operator checks the provider's panel (logged; see the README).
 */
export function createRefundsService(deps: RefundDeps) {
  const { db, repo, clock, identity, log } = deps;
  const { assertInstanceAdmin, subscriptionUpdated, lockedSubscription } = deps.billing.internals;

  async function sameAnswer(existing: RefundRow, paymentId: string) {
    if (existing.payment_id !== paymentId) throw conflict('This Idempotency-Key was used for another payment');
    if (existing.status !== 'succeeded') throw conflict('A refund with this Idempotency-Key is in progress');
    return { replay: true, refund: creditNoteView(existing) };
  }

  async function cancelNow(tx: Executor, workspaceId: string, now: Date) {
    await repo.lockWorkspace(tx, workspaceId);
    const current = await lockedSubscription(tx, workspaceId, now);
    if (!current || current.status === 'canceled' || current.status === 'expired') return;
    const end = current.current_period_end > now ? now : current.current_period_end;
    const sub = await repo.updateSubscription(tx, workspaceId, current.id, {
      status: 'canceled',
      canceled_at: now,
      current_period_end: end < current.current_period_start ? current.current_period_start : end,
      updated_at: now,
    });
    await subscriptionUpdated(tx, sub, current.status, now);
    await repo.insertEvent(tx, {
      id: newId(),
      workspace_id: workspaceId,
      subscription_id: sub.id,
      payment_id: null,
      type: 'subscription.canceled',
      from_status: current.status,
      to_status: 'canceled',
      data: JSON.stringify({ immediate: true, reason: 'refund' }),
      at: now,
    });
  }

  return {
    async listAllPayments(actor: Actor, query: PageQuery & { status?: string; workspace?: string }) {
      assertInstanceAdmin(actor);
      const { rows, total } = await repo.listAllPayments(db, { status: query.status, workspace: query.workspace }, query.offset, query.per_page);
      return pageOf(
        rows.map((r) => ({ ...paymentView(r), workspace_id: r.workspace_id, workspace_slug: r.workspace_slug })),
        total,
        query,
      );
    },

    async listCreditNotes(actor: Actor, slug: string, page: PageQuery) {
      const ws = await identity.access(actor, slug, 'billing');
      const { rows, total } = await repo.listCreditNotes(db, ws.workspaceId, page.offset, page.per_page);
      return pageOf(rows.map(creditNoteView), total, page);
    },

    /** Answers `{replay, refund}`: `replay` when the Idempotency-Key was seen before (same answer, no new refund). */
    async refund(actor: Actor, paymentId: string, input: RefundInput, idempotencyKey: string | undefined) {
      assertInstanceAdmin(actor);
      if (idempotencyKey !== undefined && (idempotencyKey.length < 1 || idempotencyKey.length > 255)) {
        throw invalid('/headers/idempotency-key', 'must be 1-255 characters');
      }
      if (idempotencyKey) {
        const existing = await repo.findRefundByKey(db, idempotencyKey);
        if (existing) return sameAnswer(existing, paymentId);
      }
      const workspaceId = await repo.workspaceOfPayment(db, paymentId);
      if (!workspaceId) throw notFound('Payment');

      // 1. reserve
      const reserved = await db.transaction().execute(async (tx) => {
        const now = clock.now();
        const payment = await repo.findPayment(tx, workspaceId, paymentId, true);
        if (!payment) throw notFound('Payment');
        if (idempotencyKey) {
          // Checked again under the payment's row lock: a concurrent request with the same key has committed by now.
          const existing = await repo.findRefundByKey(tx, idempotencyKey);
          if (existing) return { existing };
        }
        if (payment.status !== 'success') throw conflict(`Only a successful payment can be refunded (this one is ${payment.status})`);
        const left = payment.amount - payment.refunded_amount - payment.refund_reserved_amount;
        const amount = input.amount ?? left;
        if (left <= 0) throw conflict('Nothing is left to refund on this payment (a refund may be in progress)');
        if (!Number.isSafeInteger(amount) || amount < 1 || amount > left) throw invalid('/amount', `must be between 1 and ${left}`);
        if (!(await repo.reserveRefund(tx, workspaceId, payment.id, amount))) throw invalid('/amount', `must be between 1 and ${left}`);
        const row = await repo.insertRefund(tx, {
          id: newId(),
          payment_id: payment.id,
          workspace_id: payment.workspace_id,
          amount,
          currency: payment.currency,
          reason: input.reason?.trim() || null,
          cancel_subscription: input.cancel_subscription ?? false,
          status: 'reserved',
          credit_note_number: null,
          idempotency_key: idempotencyKey ?? null,
          created_by: actor.isOperator ? null : actor.userId, // the CLI operator is no user
          created_at: now,
        });
        return { row, merchantOid: payment.merchant_oid };
      });
      if ('existing' in reserved) return sameAnswer(reserved.existing!, paymentId);
      const { row, merchantOid } = reserved;

      // 2. the provider, outside any transaction
      try {
        await deps.provider.refund({ merchantOid, amount: row.amount, referenceNo: row.id });
      } catch (error) {
        const reason = error instanceof PaytrError ? error.reason : 'unexpected error';
        if (!(error instanceof PaytrError)) log.error({ err: error, merchantOid }, 'billing: refund request crashed');
        log.warn({ merchantOid, refundId: row.id, amount: row.amount, reason }, 'billing: the payment provider refused or failed the refund');
        await db.transaction().execute(async (tx) => {
          await repo.releaseReservation(tx, row.workspace_id, row.payment_id, row.amount);
          await repo.deleteRefund(tx, row.workspace_id, row.id);
        });
        throw new AppError('payment_provider_error', `The payment provider did not refund: ${reason}`);
      }

      // 3. confirm, in one transaction
      const done = await db.transaction().execute(async (tx) => {
        const now = clock.now();
        const year = now.getUTCFullYear();
        const payment = await repo.confirmReservation(tx, row.workspace_id, row.payment_id, row.amount, now);
        const refund = await repo.completeRefund(tx, row.workspace_id, row.id, {
          credit_note_number: creditNoteNumber(year, await repo.nextCreditNoteNumber(tx, year)),
          ...(await documentFields(repo, tx, deps.documents, row.workspace_id, row.amount)),
          issued_at: now,
        });
        await repo.insertEvent(tx, {
          id: newId(),
          workspace_id: payment.workspace_id,
          subscription_id: null,
          payment_id: payment.id,
          type: 'payment.refunded',
          from_status: 'success',
          to_status: payment.status,
          data: JSON.stringify({ refund_id: refund.id, amount: refund.amount, credit_note_number: refund.credit_note_number }),
          at: now,
        });
        await deps.outbox.record(tx, {
          workspaceId: payment.workspace_id,
          type: 'payment.refunded',
          data: { ...paymentView(payment), refund: creditNoteView(refund) },
        });
        if (refund.cancel_subscription) await cancelNow(tx, payment.workspace_id, now);
        return refund;
      });
      log.info({ merchantOid, refundId: done.id, amount: done.amount, creditNote: done.credit_note_number }, 'billing: refund done');
      return { replay: false, refund: creditNoteView(done) };
    },
  };
}
