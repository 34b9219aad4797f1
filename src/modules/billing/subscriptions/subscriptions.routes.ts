import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../http/auth.js';
import { errorResponses } from '../../../http/schemas.js';
import { CancelBody, SubscriptionResponse, TrialBody, WorkspaceParams } from '../billing.schemas.js';
import type { BillingService } from '../billing.service.js';

type Opts = { billing: BillingService };

/** The workspace's subscription: what it has, a trial, a cancellation. */
export const subscriptionsRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { billing }) => {
  const tags = ['billing'];

  app.get(
    '/api/workspaces/:slug/billing/subscription/',
    {
      schema: {
        tags,
        summary: 'Subscription and limits of the workspace (every role)',
        params: WorkspaceParams,
        response: { 200: SubscriptionResponse, ...errorResponses(404) },
      },
    },
    async (req) => billing.getSubscription(actorOf(req), req.params.slug),
  );
  app.post(
    '/api/workspaces/:slug/billing/trial/',
    {
      schema: {
        tags,
        summary: 'Start the free trial of a plan (admin; once per workspace)',
        params: WorkspaceParams,
        body: TrialBody,
        response: { 201: SubscriptionResponse, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.status(201).send(await billing.startTrial(actorOf(req), req.params.slug, req.body)),
  );
  app.post(
    '/api/workspaces/:slug/billing/cancel/',
    {
      schema: {
        tags,
        summary: 'Cancel now or at the end of the period (admin)',
        params: WorkspaceParams,
        body: CancelBody,
        response: { 200: SubscriptionResponse, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req) => billing.cancel(actorOf(req), req.params.slug, req.body),
  );
};
