import type { Executor, Tx } from '../../../db/database.js';
import { newId } from '../../../kernel/ids.js';
import type { DocumentSettings, BillingDeps } from '../billing.deps.js';
import { invoiceNumber } from '../billing.domain.js';
import type { PaymentRow } from '../billing.repository.js';
import { profileView } from '../profile/profile.service.js';
import { invoiceLines, type SellerParty } from './invoices.lines.js';
import { splitTax } from './invoices.tax.js';
import { invoiceDetailView } from './invoices.views.js';

/** The seller of documents issued now. */
export const sellerParty = (documents: DocumentSettings): SellerParty => ({ ...documents.seller });

/**
 * What a document issued now freezes besides its own amounts: the tax split of `gross` at the rate in force, the
 * workspace's billing profile (null when it has none) and the seller. Later edits of either never reach it.
 */
export async function documentFields(repo: BillingDeps['repo'], tx: Executor, documents: DocumentSettings, workspaceId: string, gross: number) {
  const profile = await repo.findBillingProfile(tx, workspaceId);
  return {
    ...splitTax(gross, documents.taxRateBp),
    bill_to: profile ? JSON.stringify(profileView(profile)) : null,
    seller: JSON.stringify(sellerParty(documents)),
  };
}

export interface IssueInvoiceInput {
  payment: PaymentRow;
  plan: { slug: string; name: string };
  periodStart: Date;
  periodEnd: Date;
  now: Date;
}

export type InvoiceIssuer = ReturnType<typeof createInvoiceIssuer>;

/**
 * The one way an invoice comes to be, for every paid payment (checkout today; renewals and retries later): the next
 * gapless number of the year, the lines, the tax split, buyer and seller frozen, and `invoice.created` recorded, all
 * in the caller's transaction.
 */
export function createInvoiceIssuer(deps: Pick<BillingDeps, 'repo' | 'outbox' | 'documents'>) {
  const { repo } = deps;

  async function issueInvoice(tx: Executor, input: IssueInvoiceInput) {
    const { payment, plan, periodStart, periodEnd, now } = input;
    const year = now.getUTCFullYear();
    const amounts = {
      plan_name: plan.name,
      billing_interval: payment.billing_interval,
      subtotal_amount: payment.list_amount,
      discount_amount: payment.discount_amount,
      coupon_code: payment.coupon_code,
      proration_credit: payment.proration_credit,
      period_start: periodStart,
      period_end: periodEnd,
    };
    const invoice = await repo.insertInvoice(tx, {
      id: newId(),
      workspace_id: payment.workspace_id,
      payment_id: payment.id,
      invoice_number: invoiceNumber(year, await repo.nextInvoiceNumber(tx, year)),
      plan_slug: plan.slug,
      ...amounts,
      total_amount: payment.amount,
      currency: payment.currency,
      lines: JSON.stringify(invoiceLines(amounts)),
      ...(await documentFields(repo, tx, deps.documents, payment.workspace_id, payment.amount)),
      created_at: now,
    });
    await deps.outbox.record(tx as Tx, { workspaceId: payment.workspace_id, type: 'invoice.created', data: invoiceDetailView(invoice) });
    return invoice;
  }

  return { issueInvoice };
}
