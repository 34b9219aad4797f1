import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../http/auth.js';
import { errorResponses } from '../../../http/schemas.js';
import { AdvanceClockBody, AdvanceClockResponse, TestClock, WorkspaceParams } from '../billing.schemas.js';
import type { TestClockService } from './test-clock.service.js';

type Opts = { testClock: TestClockService };

/** Test clocks (contract 19.7; admins; 404 unless PAYMENT_PROVIDER=sandbox). */
export const testClockRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { testClock }) => {
  const tags = ['billing'];
  app.get(
    '/api/workspaces/:slug/billing/test-clock/',
    {
      schema: {
        tags,
        summary: "The workspace's billing time on the sandbox (admin)",
        params: WorkspaceParams,
        response: { 200: TestClock, ...errorResponses(403, 404) },
      },
    },
    async (req) => testClock.get(actorOf(req), req.params.slug),
  );
  app.post(
    '/api/workspaces/:slug/billing/test-clock/advance/',
    {
      schema: {
        tags,
        summary: "Move the workspace's billing time forward, running every billing duty due meanwhile (admin, sandbox)",
        params: WorkspaceParams,
        body: AdvanceClockBody,
        response: { 200: AdvanceClockResponse, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => testClock.advance(actorOf(req), req.params.slug, req.body),
  );
};
