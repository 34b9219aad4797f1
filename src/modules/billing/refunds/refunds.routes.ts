import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../http/auth.js';
import { errorResponses, pageSchema } from '../../../http/schemas.js';
import { Payment } from '../billing.schemas.js';
import { CreditNote } from '../invoices/invoices.schemas.js';
import type { ReconcileService } from './refunds.reconcile.js';
import { AdminPayment, AdminPaymentsQuery, PaymentParams, RefundBody, RefundHeaders } from './refunds.schemas.js';
import type { RefundsService } from './refunds.service.js';

type Opts = { refunds: RefundsService; reconcile: ReconcileService };

/** Contract section 13: the operator's payments, refunds and reconciliation. */
export const refundsRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { refunds, reconcile }) => {
  const admin = ['billing admin'];

  app.get(
    '/api/admin/payments/',
    {
      schema: {
        tags: admin,
        summary: "Every workspace's payments, newest first (instance admin); filters status and workspace (slug)",
        querystring: AdminPaymentsQuery,
        response: { 200: pageSchema(AdminPayment), ...errorResponses(400, 403) },
      },
    },
    async (req) => refunds.listAllPayments(actorOf(req), req.query),
  );
  app.post(
    '/api/admin/payments/:paymentId/refund/',
    {
      // Every field is optional, so a request without a body is a full refund with no reason.
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
      schema: {
        tags: admin,
        summary: 'Refund a successful payment in part or in full through the provider (instance admin)',
        params: PaymentParams,
        headers: RefundHeaders,
        body: RefundBody,
        response: { 201: CreditNote, ...errorResponses(400, 403, 404, 409, 502) },
      },
    },
    async (req, reply) => {
      const { replay, refund } = await refunds.refund(actorOf(req), req.params.paymentId, req.body, req.headers['idempotency-key']);
      if (replay) void reply.header('idempotent-replayed', 'true');
      return reply.status(201).send(refund);
    },
  );
  app.post(
    '/api/admin/payments/:paymentId/reconcile/',
    {
      schema: {
        tags: admin,
        summary: 'Ask the provider about a pending payment now and apply its answer (instance admin); answers the payment',
        params: PaymentParams,
        response: { 200: Payment, ...errorResponses(403, 404, 502) },
      },
    },
    async (req) => reconcile.reconcileNow(actorOf(req), req.params.paymentId),
  );
};
