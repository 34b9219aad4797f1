import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { actorOf } from '../../../http/auth.js';
import { errorResponses, PageQuery, pageSchema } from '../../../http/schemas.js';
import { Invoice, WorkspaceParams } from '../billing.schemas.js';
import type { BillingService } from '../billing.service.js';
import type { RefundsService } from '../refunds/refunds.service.js';
import { CreditNote, CreditNoteParams, InvoiceDetail, InvoiceParams, PdfFile } from './invoices.schemas.js';

type Opts = { billing: BillingService; refunds: RefundsService };

/** A PDF with its own content type is sent as it is (no JSON schema applies to it). */
const sendPdf = (reply: unknown, file: { filename: string; pdf: Buffer }) =>
  (reply as FastifyReply)
    .type('application/pdf')
    .header('content-disposition', `inline; filename="${file.filename}"`)
    .header('cache-control', 'private, no-store')
    .send(file.pdf);

/** The workspace's invoices (of its payments) and credit notes (of its refunds), and their documents (contract 19.6). */
export const invoicesRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { billing, refunds }) => {
  const tags = ['billing'];

  app.get(
    '/api/workspaces/:slug/billing/invoices/',
    {
      schema: {
        tags,
        summary: 'Invoices, newest first (admin)',
        params: WorkspaceParams,
        querystring: PageQuery,
        response: { 200: pageSchema(Invoice), ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => billing.listInvoices(actorOf(req), req.params.slug, req.query),
  );
  app.get(
    '/api/workspaces/:slug/billing/credit-notes/',
    {
      schema: {
        tags,
        summary: 'Credit notes of the refunds, newest first (admin)',
        params: WorkspaceParams,
        querystring: PageQuery,
        response: { 200: pageSchema(CreditNote), ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => refunds.listCreditNotes(actorOf(req), req.params.slug, req.query),
  );
  app.get(
    '/api/workspaces/:slug/billing/invoices/:invoiceId/',
    {
      schema: {
        tags,
        summary: 'An invoice with its lines, buyer, seller and tax split (admin)',
        params: InvoiceParams,
        response: { 200: InvoiceDetail, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => billing.getInvoice(actorOf(req), req.params.slug, req.params.invoiceId),
  );
  app.get(
    '/api/workspaces/:slug/billing/invoices/:invoiceId/pdf/',
    {
      schema: {
        tags,
        summary: 'The invoice as PDF (admin)',
        params: InvoiceParams,
        response: { 200: PdfFile, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => sendPdf(reply, await billing.invoicePdf(actorOf(req), req.params.slug, req.params.invoiceId)),
  );
  app.get(
    '/api/workspaces/:slug/billing/credit-notes/:creditNoteId/pdf/',
    {
      schema: {
        tags,
        summary: 'The credit note of a refund as PDF (admin)',
        params: CreditNoteParams,
        response: { 200: PdfFile, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => sendPdf(reply, await billing.creditNotePdf(actorOf(req), req.params.slug, req.params.creditNoteId)),
  );
};
