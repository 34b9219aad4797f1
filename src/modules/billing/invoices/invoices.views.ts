import { invoiceView } from '../billing.views.js';
import type { InvoiceRow } from '../billing.repository.js';
import { invoiceLines } from './invoices.lines.js';

/** The lines of an invoice: as written at issue, or derived from its fields for invoices issued before 1050. */
export const linesOf = (i: InvoiceRow) => i.lines ?? invoiceLines(i);

/** Contract 19.6: the invoice record with its lines (also the data of `invoice.created`). */
export const invoiceDetailView = (i: InvoiceRow) => ({ ...invoiceView(i), lines: linesOf(i) });
