import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, NoContent, PageQuery, pageSchema, SlugParams } from '../../http/schemas.js';
import {
  HistoryEntry,
  HistoryParams,
  Calendar,
  CalendarParams,
  CreateCalendarBody,
  UpdateCalendarBody,
  AtRiskQuery,
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

  app.get(
    '/api/workspaces/:slug/sla-policies/',
    { schema: { tags, summary: 'SLA policies of the workspace', params: SlugParams, response: { 200: Type.Array(Policy), ...errorResponses(404) } } },
    async (req) => sla.listPolicies(actorOf(req), req.params.slug),
  );
  app.post(
    '/api/workspaces/:slug/sla-policies/',
    {
      schema: {
        tags,
        summary: 'Create an SLA policy (admin)',
        params: SlugParams,
        body: CreatePolicyBody,
        response: { 201: Policy, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => reply.status(201).send(await sla.createPolicy(actorOf(req), req.params.slug, req.body)),
  );
  app.patch(
    '/api/workspaces/:slug/sla-policies/:policyId/',
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
    '/api/workspaces/:slug/sla-policies/:policyId/',
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
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/history/',
    {
      schema: {
        tags,
        summary: 'History of an issue, oldest first: what moves its SLA clocks',
        description:
          'Append-only: creation, state moves (with the state group and pauses_sla at the time), priority changes, ' +
          'comments that count as a response, and changes of the project policy.',
        params: HistoryParams,
        querystring: PageQuery,
        response: { 200: pageSchema(HistoryEntry), ...errorResponses(400, 404) },
      },
    },
    async (req) => sla.listHistory(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.query),
  );

  app.get(
    '/api/workspaces/:slug/sla-calendars/',
    { schema: { tags, summary: 'SLA calendars of the workspace', params: SlugParams, response: { 200: Type.Array(Calendar), ...errorResponses(404) } } },
    async (req) => sla.listCalendars(actorOf(req), req.params.slug),
  );
  app.post(
    '/api/workspaces/:slug/sla-calendars/',
    {
      schema: {
        tags,
        summary: 'Create an SLA calendar (admin)',
        description:
          'Working hours are local wall-clock intervals in the calendar time zone; holidays remove the whole local day. ' +
          'Policies that name the calendar count only its working time: Mon-Fri 09:00-17:00 Europe/Istanbul, an issue ' +
          'created Friday 16:00 local with a 4-hour response target is due Monday 12:00 local (09:00 UTC).',
        params: SlugParams,
        body: CreateCalendarBody,
        response: { 201: Calendar, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => reply.status(201).send(await sla.createCalendar(actorOf(req), req.params.slug, req.body)),
  );
  app.get(
    '/api/workspaces/:slug/sla-calendars/:calendarId/',
    { schema: { tags, summary: 'An SLA calendar', params: CalendarParams, response: { 200: Calendar, ...errorResponses(400, 404) } } },
    async (req) => sla.getCalendar(actorOf(req), req.params.slug, req.params.calendarId),
  );
  app.patch(
    '/api/workspaces/:slug/sla-calendars/:calendarId/',
    {
      schema: {
        tags,
        summary: 'Update an SLA calendar (admin); only the fields sent change',
        params: CalendarParams,
        body: UpdateCalendarBody,
        response: { 200: Calendar, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => sla.updateCalendar(actorOf(req), req.params.slug, req.params.calendarId, req.body),
  );
  app.delete(
    '/api/workspaces/:slug/sla-calendars/:calendarId/',
    {
      schema: {
        tags,
        summary: 'Delete an SLA calendar (admin); 409 while a policy uses it',
        params: CalendarParams,
        response: { 204: NoContent, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req, reply) => {
      await sla.deleteCalendar(actorOf(req), req.params.slug, req.params.calendarId);
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
  app.get(
    '/api/workspaces/:slug/sla-at-risk/',
    {
      schema: {
        tags,
        summary: 'Trackers at risk, the soonest due first',
        description:
          'A tracker is at risk when it is not paused and an unmet, unbreached target has counted at least the policy ' +
          'at_risk_percent of its working time. Computed at the moment of the read; ordered by the instant the at-risk ' +
          'target would be breached, soonest first. The page is cut from an index: its cost grows with the page, not the workspace.',
        params: SlugParams,
        querystring: AtRiskQuery,
        response: { 200: pageSchema(BreachedTracker), ...errorResponses(400, 404) },
      },
    },
    async (req) => sla.listAtRisk(actorOf(req), req.params.slug, req.query),
  );
};
