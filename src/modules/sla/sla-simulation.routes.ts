import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, SlugParams } from '../../http/schemas.js';
import { SimulateBody, SimulationResult } from './sla-simulation.schemas.js';
import type { SlaSimulationService } from './sla-simulation.service.js';

export const slaSimulationRoutes: FastifyPluginAsyncTypebox<{ simulation: SlaSimulationService }> = async (app, { simulation }) => {
  app.post(
    '/api/workspaces/:slug/sla-policies/simulate/',
    {
      schema: {
        tags: ['sla'],
        operationId: 'simulateSlaPolicy',
        summary: 'Simulate a draft SLA policy against the issues of a period (admin); changes nothing',
        description:
          'Replays every issue created in [from, to] (local dates in the workspace time_zone, at most 366 days and 100,000 issues) ' +
          'under its real history (states, pauses, priority changes, responses, resolution), once under the policy that applies to ' +
          'it now and once under the draft, as of the moment of the request, with the same working-time clock as the trackers. ' +
          'Blocks count targets met, breached and open; changed lists the first 100 targets whose outcome differs. ' +
          'A draft equal to the current policy gives identical blocks and no changed targets.',
        params: SlugParams,
        body: SimulateBody,
        response: { 200: SimulationResult, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => simulation.simulate(actorOf(req), req.params.slug, req.body),
  );
};
