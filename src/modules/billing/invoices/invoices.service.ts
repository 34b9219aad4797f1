import type { BillingParty } from '../../../db/tables/billing.js';
import type { Actor } from '../../../kernel/actor.js';
import { notFound } from '../../../kernel/errors.js';
import type { BillingDeps } from '../billing.deps.js';
import { linesOf, invoiceDetailView } from './invoices.views.js';
import { type PdfParty, renderPdf } from './invoices.pdf.js';

const value = (p: BillingParty, key: string): string | null => p[key] ?? null;

/** A buyer frozen on a document (the billing profile's fields) as the PDF prints it. */
export function buyerOf(p: BillingParty | null): PdfParty | null {
  if (!p) return null;
  const cityLine = [value(p, 'postal_code'), value(p, 'city')].filter(Boolean).join(' ');
  return {
    name: value(p, 'legal_name'),
    taxId: value(p, 'tax_id'),
    taxOffice: value(p, 'tax_office'),
    address: [value(p, 'address_line'), [cityLine, value(p, 'country')].filter(Boolean).join(', ')].filter((l): l is string => !!l),
    email: value(p, 'email'),
  };
}

/** A seller frozen on a document as the PDF prints it. */
export function sellerOf(p: BillingParty | null): PdfParty | null {
  if (!p) return null;
  return {
    name: value(p, 'name'),
    taxId: value(p, 'tax_id'),
    taxOffice: value(p, 'tax_office'),
    address: [value(p, 'address')].filter((l): l is string => !!l),
  };
}

export type InvoicesService = ReturnType<typeof createInvoicesService>;

/** Contract 19.6: an invoice with its lines, and the PDFs of invoices and credit notes (workspace admins). */
export function createInvoicesService(deps: Pick<BillingDeps, 'db' | 'repo' | 'identity'>) {
  const { db, repo, identity } = deps;

  async function invoiceOf(actor: Actor, slug: string, invoiceId: string) {
    const ws = await identity.access(actor, slug, 'billing');
    const invoice = await repo.findInvoice(db, ws.workspaceId, invoiceId);
    if (!invoice) throw notFound('Invoice');
    return invoice;
  }

  return {
    async getInvoice(actor: Actor, slug: string, invoiceId: string) {
      return invoiceDetailView(await invoiceOf(actor, slug, invoiceId));
    },

    /** `{filename, pdf}` of the invoice. */
    async invoicePdf(actor: Actor, slug: string, invoiceId: string) {
      const i = await invoiceOf(actor, slug, invoiceId);
      const pdf = await renderPdf({
        kind: 'invoice',
        number: i.invoice_number,
        issuedAt: i.created_at,
        reference: null,
        seller: sellerOf(i.seller),
        buyer: buyerOf(i.bill_to),
        lines: linesOf(i).map((l) => ({
          description: l.description,
          periodStart: l.period_start ? new Date(l.period_start) : null,
          periodEnd: l.period_end ? new Date(l.period_end) : null,
          quantity: l.quantity,
          amount: l.amount,
        })),
        split: { net_amount: i.net_amount, tax_rate_bp: i.tax_rate_bp, tax_amount: i.tax_amount },
        total: i.total_amount,
        currency: i.currency,
      });
      return { filename: `${i.invoice_number}.pdf`, pdf };
    },

    /** `{filename, pdf}` of the credit note of a refund. */
    async creditNotePdf(actor: Actor, slug: string, creditNoteId: string) {
      const ws = await identity.access(actor, slug, 'billing');
      const cn = await repo.findCreditNote(db, ws.workspaceId, creditNoteId);
      if (!cn || cn.credit_note_number === null || cn.net_amount === null || cn.tax_rate_bp === null || cn.tax_amount === null) throw notFound('Credit note');
      const invoice = await repo.findInvoiceOfPayment(db, ws.workspaceId, cn.payment_id);
      const pdf = await renderPdf({
        kind: 'credit_note',
        number: cn.credit_note_number,
        issuedAt: cn.issued_at ?? cn.created_at,
        reference: invoice?.invoice_number ?? null,
        seller: sellerOf(cn.seller),
        buyer: buyerOf(cn.bill_to),
        lines: [
          {
            description: cn.reason ? `İade / Refund: ${cn.reason}` : `İade / Refund${invoice ? ` (${invoice.invoice_number})` : ''}`,
            periodStart: null,
            periodEnd: null,
            quantity: 1,
            amount: cn.amount,
          },
        ],
        split: { net_amount: cn.net_amount, tax_rate_bp: cn.tax_rate_bp, tax_amount: cn.tax_amount },
        total: cn.amount,
        currency: cn.currency,
      });
      return { filename: `${cn.credit_note_number}.pdf`, pdf };
    },
  };
}
