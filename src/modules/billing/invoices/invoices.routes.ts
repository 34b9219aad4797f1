import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../http/auth.js';
import { errorResponses, PageQuery, pageSchema } from '../../../http/schemas.js';
import { Invoice, WorkspaceParams } from '../billing.schemas.js';
import type { BillingService } from '../billing.service.js';
import type { RefundsService } from '../refunds/refunds.service.js';
import { CreditNote } from './invoices.schemas.js';

type Opts = { billing: BillingService; refunds: RefundsService };

/** The workspace's invoices (of its payments) and credit notes (of its refunds). */
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
};
