import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../../http/auth.js';
import { errorResponses, NoContent } from '../../../http/schemas.js';
import { PaymentMethod, PaymentMethodParams, WorkspaceParams } from '../billing.schemas.js';
import type { BillingService } from '../billing.service.js';

type Opts = { billing: BillingService };

/** Stored cards (contract 19.1; admins). */
export const paymentMethodsRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { billing }) => {
  const tags = ['billing'];

  app.get(
    '/api/workspaces/:slug/billing/payment-methods/',
    {
      schema: {
        tags,
        summary: 'Stored cards of the workspace, newest first (admin)',
        params: WorkspaceParams,
        response: { 200: Type.Array(PaymentMethod), ...errorResponses(403, 404) },
      },
    },
    async (req) => billing.listPaymentMethods(actorOf(req), req.params.slug),
  );
  app.delete(
    '/api/workspaces/:slug/billing/payment-methods/:methodId/',
    {
      schema: {
        tags,
        summary: 'Remove a stored card at the provider and here; the newest remaining card becomes the default (admin)',
        params: PaymentMethodParams,
        response: { 204: NoContent, ...errorResponses(403, 404, 502) },
      },
    },
    async (req, reply) => {
      await billing.removePaymentMethod(actorOf(req), req.params.slug, req.params.methodId);
      return reply.status(204).send();
    },
  );
  app.post(
    '/api/workspaces/:slug/billing/payment-methods/:methodId/default/',
    {
      schema: {
        tags,
        summary: 'Make a stored card the default that renewals and retries charge (admin)',
        params: PaymentMethodParams,
        response: { 200: PaymentMethod, ...errorResponses(403, 404) },
      },
    },
    async (req) => billing.makeDefaultPaymentMethod(actorOf(req), req.params.slug, req.params.methodId),
  );
};
