import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, NoContent, pageSchema, SlugParams } from '../../http/schemas.js';
import {
  BreachedQuery,
  BreachedTracker,
  CreatePolicyBody,
  IssueSlaParams,
  Policy,
  PolicyParams,
  Tracker,
  UpdatePolicyBody,
} from './sla.schemas.js';
import type { SlaService } from './sla.service.js';

export const slaRoutes: FastifyPluginAsyncTypebox<{ sla: SlaService }> = async (app, { sla }) => {
  const tags = ['sla'];
  const P = '/api/workspaces/:slug/sla-policies/';

  app.get(P, { schema: { tags, summary: 'SLA policies of the workspace', params: SlugParams, response: { 200: Type.Array(Policy), ...errorResponses(404) } } }, async (req) =>
    sla.listPolicies(actorOf(req), req.params.slug),
  );
  app.post(
    P,
    { schema: { tags, summary: 'Create an SLA policy (admin)', params: SlugParams, body: CreatePolicyBody, response: { 201: Policy, ...errorResponses(400, 403, 404) } } },
    async (req, reply) => reply.status(201).send(await sla.createPolicy(actorOf(req), req.params.slug, req.body)),
  );
  app.patch(
    `${P}:policyId/`,
    {
      schema: {
        tags,
        summary: 'Update an SLA policy (admin); only the fields sent change, `rules` replaces all rules',
        params: PolicyParams,
        body: UpdatePolicyBody,
        response: { 200: Policy, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => sla.updatePolicy(actorOf(req), req.params.slug, req.params.policyId, req.body),
  );
  app.delete(
    `${P}:policyId/`,
    {
      schema: {
        tags,
        summary: 'Delete an SLA policy (admin); its trackers go, projects that named it fall back to the default',
        params: PolicyParams,
        response: { 204: NoContent, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => {
      await sla.deletePolicy(actorOf(req), req.params.slug, req.params.policyId);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/workspaces/:slug/issues/:issueId/sla/',
    {
      schema: {
        tags,
        summary: 'SLA tracker of an issue; 404 `sla_not_applicable` when no policy or rule applies',
        params: IssueSlaParams,
        response: { 200: Tracker, ...errorResponses(400, 404) },
      },
    },
    async (req) => sla.getIssueTracker(actorOf(req), req.params.slug, req.params.issueId),
  );
  app.get(
    '/api/workspaces/:slug/sla-breached/',
    {
      schema: {
        tags,
        summary: 'Trackers with a breached target, most overdue first',
        description: 'Breach flags are computed at the moment of the read. Ordered by the instant of the first breach, oldest first.',
        params: SlugParams,
        querystring: BreachedQuery,
        response: { 200: pageSchema(BreachedTracker), ...errorResponses(400, 404) },
      },
    },
    async (req) => sla.listBreached(actorOf(req), req.params.slug, req.query),
  );
};
