import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, NoContent, pageSchema } from '../../http/schemas.js';
import {
  CreateWorklogBody,
  StartTimerBody,
  Timer,
  TimerOrNull,
  Timesheet,
  TimesheetQuery,
  UpdateWorklogBody,
  Worklog,
  WorklogListQuery,
  WorklogParams,
  WorklogsParams,
  WorkspaceParams,
} from './time-tracking.schemas.js';
import type { TimeTrackingService } from './time-tracking.service.js';

export const timeTrackingRoutes: FastifyPluginAsyncTypebox<{ timeTracking: TimeTrackingService }> = async (app, { timeTracking }) => {
  const tags = ['time tracking'];

  app.get(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/worklogs/',
    {
      schema: {
        tags,
        summary: 'Worklogs of an issue, newest started_at first',
        params: WorklogsParams,
        querystring: WorklogListQuery,
        response: { 200: pageSchema(Worklog), ...errorResponses(400, 404) },
      },
    },
    async (req) => timeTracking.listWorklogs(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.query),
  );
  app.post(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/worklogs/',
    {
      schema: {
        tags,
        summary: 'Log time on an issue (admin, member; an admin may log for another member); needs time_tracking in the plan',
        params: WorklogsParams,
        body: CreateWorklogBody,
        response: { 201: Worklog, ...errorResponses(400, 402, 403, 404) },
      },
    },
    async (req, reply) =>
      reply.status(201).send(await timeTracking.createWorklog(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.body)),
  );
  app.patch(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/worklogs/:worklogId/',
    {
      schema: {
        tags,
        summary: 'Edit a worklog (its author or an admin); needs time_tracking in the plan',
        params: WorklogParams,
        body: UpdateWorklogBody,
        response: { 200: Worklog, ...errorResponses(400, 402, 403, 404) },
      },
    },
    async (req) => timeTracking.updateWorklog(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.params.worklogId, req.body),
  );
  app.delete(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/worklogs/:worklogId/',
    {
      schema: {
        tags,
        summary: 'Delete a worklog (its author or an admin); needs time_tracking in the plan',
        params: WorklogParams,
        response: { 204: NoContent, ...errorResponses(400, 402, 403, 404) },
      },
    },
    async (req, reply) => {
      await timeTracking.deleteWorklog(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.params.worklogId);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/workspaces/:slug/timer/',
    { schema: { tags, summary: 'Your running timer, or null', params: WorkspaceParams, response: { 200: TimerOrNull, ...errorResponses(404) } } },
    async (req) => timeTracking.getTimer(actorOf(req), req.params.slug),
  );
  app.post(
    '/api/workspaces/:slug/timer/start/',
    {
      schema: {
        tags,
        summary: 'Start a timer on an issue (a running one is stopped and logged first); needs time_tracking in the plan',
        params: WorkspaceParams,
        body: StartTimerBody,
        response: { 201: Timer, ...errorResponses(400, 402, 403, 404) },
      },
    },
    async (req, reply) => reply.status(201).send(await timeTracking.startTimer(actorOf(req), req.params.slug, req.body)),
  );
  app.post(
    '/api/workspaces/:slug/timer/stop/',
    {
      schema: {
        tags,
        summary: 'Stop your timer and log its run (whole minutes; runs over 1440 minutes become consecutive worklogs, the last answered)',
        params: WorkspaceParams,
        response: { 201: Worklog, ...errorResponses(402, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.status(201).send(await timeTracking.stopTimer(actorOf(req), req.params.slug)),
  );

  app.get(
    '/api/workspaces/:slug/timesheet/',
    {
      schema: {
        tags,
        summary: 'Minutes logged per user, project or issue and local day (admin, member)',
        description:
          'Days are those of the workspace time zone: a worklog counts on the local day of its started_at. At most 366 ' +
          'days. `format=csv` or `Accept: text/csv` answers text/csv: key, label, one column per day, total.',
        params: WorkspaceParams,
        querystring: TimesheetQuery,
        response: {
          200: {
            description: 'The timesheet (JSON), or the same rows as CSV',
            content: { 'application/json': { schema: Timesheet }, 'text/csv': { schema: Type.String() } },
          },
          ...errorResponses(400, 403, 404),
        },
      },
    },
    async (req, reply) => {
      const sheet = await timeTracking.timesheet(actorOf(req), req.params.slug, req.query);
      const csv = req.query.format === 'csv' || (req.query.format === undefined && /\btext\/csv\b/i.test(req.headers.accept ?? ''));
      if (!csv) return sheet;
      // A string with its own content type is sent as it is (the JSON schema of 200 does not apply to it).
      return (reply as unknown as FastifyReply)
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="timesheet-${sheet.from}-${sheet.to}.csv"`)
        .send(timeTracking.timesheetCsv(sheet.days, sheet.rows));
    },
  );
};
