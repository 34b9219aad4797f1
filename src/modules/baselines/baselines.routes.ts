import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, NoContent, pageSchema } from '../../http/schemas.js';
import {
  Baseline,
  BaselineParams,
  ChangeItem,
  ChangesQuery,
  CreateBaselineBody,
  DeviationQuery,
  DeviationResponse,
  ProjectParams,
  BaselineSchedule,
  CreateScheduleBody,
  ScheduleParams,
  UpdateScheduleBody,
} from './baselines.schemas.js';
import type { BaselinesService } from './baselines.service.js';

export const baselinesRoutes: FastifyPluginAsyncTypebox<{ baselines: BaselinesService }> = async (app, { baselines }) => {
  const tags = ['baselines'];

  app.get(
    '/api/workspaces/:slug/projects/:projectId/baselines/',
    {
      schema: {
        tags,
        summary: 'Baselines of the project, newest first',
        params: ProjectParams,
        response: { 200: Type.Array(Baseline), ...errorResponses(400, 404) },
      },
    },
    async (req) => baselines.list(actorOf(req), req.params.slug, req.params.projectId),
  );
  app.post(
    '/api/workspaces/:slug/projects/:projectId/baselines/',
    {
      schema: {
        tags,
        summary: 'Snapshot the project now (admin)',
        description:
          'Counts the issues of the project by state group and by priority at one instant, and keeps each ' +
          "issue's state group and priority so that the deviation can name the issues added, removed or changed since.",
        params: ProjectParams,
        body: CreateBaselineBody,
        response: { 201: Baseline, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => reply.status(201).send(await baselines.create(actorOf(req), req.params.slug, req.params.projectId, req.body)),
  );
  app.get(
    '/api/workspaces/:slug/baselines/:baselineId/',
    { schema: { tags, summary: 'One baseline', params: BaselineParams, response: { 200: Baseline, ...errorResponses(400, 404) } } },
    async (req) => baselines.get(actorOf(req), req.params.slug, req.params.baselineId),
  );
  app.delete(
    '/api/workspaces/:slug/baselines/:baselineId/',
    { schema: { tags, summary: 'Delete a baseline (admin)', params: BaselineParams, response: { 204: NoContent, ...errorResponses(400, 403, 404) } } },
    async (req, reply) => {
      await baselines.remove(actorOf(req), req.params.slug, req.params.baselineId);
      return reply.status(204).send();
    },
  );
  app.get(
    '/api/workspaces/:slug/baselines/:baselineId/deviation/',
    {
      schema: {
        tags,
        summary: 'Compare a baseline with the project now, or with another baseline (?against=)',
        description:
          'Totals and per-group deltas (current minus baseline), and issue by issue: the issues added since, removed ' +
          'since, and changed (state group or priority) since, each list cut at `items_limit` with its full count; ' +
          '`transitions` counts the changed issues by "from->to" of state group and of priority.',
        params: BaselineParams,
        querystring: DeviationQuery,
        response: { 200: DeviationResponse, ...errorResponses(400, 404) },
      },
    },
    async (req) => baselines.deviation(actorOf(req), req.params.slug, req.params.baselineId, req.query),
  );
  app.get(
    '/api/workspaces/:slug/baselines/:baselineId/changes/',
    {
      schema: {
        tags,
        summary: 'The issues added, removed or changed since a baseline (one kind, paginated by sequence_id)',
        params: BaselineParams,
        querystring: ChangesQuery,
        response: { 200: pageSchema(ChangeItem), ...errorResponses(400, 404) },
      },
    },
    async (req) => baselines.changes(actorOf(req), req.params.slug, req.params.baselineId, req.query),
  );

  app.get(
    '/api/workspaces/:slug/projects/:projectId/baseline-schedules/',
    {
      schema: {
        tags,
        summary: 'Baseline schedules of the project (every role)',
        params: ProjectParams,
        response: { 200: Type.Array(BaselineSchedule), ...errorResponses(400, 404) },
      },
    },
    async (req) => baselines.listSchedules(actorOf(req), req.params.slug, req.params.projectId),
  );
  app.post(
    '/api/workspaces/:slug/projects/:projectId/baseline-schedules/',
    {
      schema: {
        tags,
        summary: 'Take a baseline of the project every day or week at a local time (admin)',
        params: ProjectParams,
        body: CreateScheduleBody,
        response: { 201: BaselineSchedule, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => reply.status(201).send(await baselines.createSchedule(actorOf(req), req.params.slug, req.params.projectId, req.body)),
  );
  app.patch(
    '/api/workspaces/:slug/projects/:projectId/baseline-schedules/:scheduleId/',
    {
      schema: {
        tags,
        summary: 'Change a baseline schedule (admin); next_run_at is recomputed',
        params: ScheduleParams,
        body: UpdateScheduleBody,
        response: { 200: BaselineSchedule, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => baselines.updateSchedule(actorOf(req), req.params.slug, req.params.projectId, req.params.scheduleId, req.body),
  );
  app.delete(
    '/api/workspaces/:slug/projects/:projectId/baseline-schedules/:scheduleId/',
    {
      schema: {
        tags,
        summary: 'Delete a baseline schedule (admin); its baselines stay, with schedule_id null',
        params: ScheduleParams,
        response: { 204: NoContent, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => {
      await baselines.removeSchedule(actorOf(req), req.params.slug, req.params.projectId, req.params.scheduleId);
      return reply.status(204).send();
    },
  );
};
