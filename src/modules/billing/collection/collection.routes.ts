import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../http/auth.js';
import { errorResponses } from '../../../http/schemas.js';
import { RetryResponse, WorkspaceParams } from '../billing.schemas.js';
import type { BillingService } from '../billing.service.js';

type Opts = { billing: BillingService };

/** Dunning's "retry now" (contract 19.3; admins). */
export const collectionRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { billing }) => {
  app.post(
    '/api/workspaces/:slug/billing/retry/',
    {
      schema: {
        tags: ['billing'],
        summary: 'Charge the default card now for a past_due or suspended subscription (admin)',
        params: WorkspaceParams,
        response: { 200: RetryResponse, ...errorResponses(403, 404, 409) },
      },
    },
    async (req) => billing.retryNow(actorOf(req), req.params.slug),
  );
};
