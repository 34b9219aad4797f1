import { Type } from 'typebox';
import { Slug, Timestamp, Uuid } from '../../../http/schemas.js';
import { BillTo, Invoice, Seller, TaxSplitFields } from '../billing.schemas.js';

/** The credit note of a refund (contract section 13, with 19.4-19.5); invoices share `Invoice` of `billing.schemas.ts`. */

export const CreditNote = Type.Object({
  id: Uuid,
  payment_id: Uuid,
  amount: Type.Integer({ description: 'Refunded, in minor units (the gross, tax included)' }),
  currency: Type.String(),
  reason: Type.Union([Type.String(), Type.Null()]),
  credit_note_number: Type.String({ description: 'CN-YYYY-NNNNNN, gapless within a year' }),
  created_at: Timestamp,
  ...TaxSplitFields,
  bill_to: BillTo,
  seller: Seller,
});

export const InvoiceLine = Type.Object({
  description: Type.String(),
  period_start: Type.Union([Timestamp, Type.Null()]),
  period_end: Type.Union([Timestamp, Type.Null()]),
  quantity: Type.Integer(),
  amount: Type.Integer({ description: 'Tax included, in minor units; negative for a discount or a credit' }),
});

/** Contract 19.6: the invoice with its lines (they add up to total_amount). */
export const InvoiceDetail = Type.Object({
  ...Invoice.properties,
  lines: Type.Array(InvoiceLine, { description: 'The plan for the period first, then a coupon discount and a proration credit (negative)' }),
});

export const InvoiceParams = Type.Object({ slug: Slug, invoiceId: Uuid });
export const CreditNoteParams = Type.Object({ slug: Slug, creditNoteId: Uuid });

export const PdfFile = {
  description: 'The document as PDF (fonts embedded, text extractable)',
  content: { 'application/pdf': { schema: Type.String({ format: 'binary' }) } },
};
