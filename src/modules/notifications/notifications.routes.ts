import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, NoContent } from '../../http/schemas.js';
import {
  InboxPage,
  InboxQuery,
  IssueWatchParams,
  Notification,
  NotificationParams,
  ReadBody,
  ReadResult,
  SnoozeBody,
  UnreadCount,
  UnreadQuery,
  Watcher,
  Watching,
} from './notifications.schemas.js';
import type { NotificationsService } from './notifications.service.js';

/** Watchers (contract 26.1) and the inbox (26.2). */
export const notificationsRoutes: FastifyPluginAsyncTypebox<{ notifications: NotificationsService }> = async (app, { notifications }) => {
  const watchers = { tags: ['watchers'] };
  const inbox = { tags: ['notifications'] };

  app.post(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/watch/',
    {
      schema: {
        ...watchers,
        summary: 'Watch the issue (the caller; every role)',
        description: 'Watchers are told of comments and of changes of state, priority and due date. Watching twice is no error.',
        params: IssueWatchParams,
        response: { 200: Watching, ...errorResponses(400, 404) },
      },
    },
    async (req) => notifications.watch(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId),
  );
  app.delete(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/watch/',
    {
      schema: {
        ...watchers,
        summary: 'Stop watching the issue (the caller)',
        operationId: 'unwatchIssue',
        description: 'Kept: commenting or editing it later does not make you watch it again; being assigned or mentioned does.',
        params: IssueWatchParams,
        response: { 204: NoContent, ...errorResponses(400, 404) },
      },
    },
    async (req, reply) => {
      await notifications.unwatch(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId);
      return reply.status(204).send();
    },
  );
  app.get(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/watchers/',
    {
      schema: {
        ...watchers,
        summary: 'Who watches the issue (members), by name',
        operationId: 'listIssueWatchers',
        params: IssueWatchParams,
        response: { 200: Type.Array(Watcher), ...errorResponses(400, 404) },
      },
    },
    async (req) => notifications.listWatchers(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId),
  );

  app.get(
    '/api/users/me/notifications/',
    {
      schema: {
        ...inbox,
        summary: 'Your notifications, newest first',
        description:
          'Not archived by default (`archived=true`: the archive); `unread=true`: unread only; `workspace`: one workspace. ' +
          'Snoozed ones are hidden and counted nowhere until they wake; those of a workspace you left are gone.',
        querystring: InboxQuery,
        response: { 200: InboxPage, ...errorResponses(400, 404) },
      },
    },
    async (req) => notifications.list(actorOf(req), req.query),
  );
  app.get(
    '/api/users/me/notifications/unread-count/',
    {
      schema: {
        ...inbox,
        summary: 'How many unread notifications you have (the bell)',
        operationId: 'getUnreadNotificationCount',
        querystring: UnreadQuery,
        response: { 200: UnreadCount, ...errorResponses(400, 404) },
      },
    },
    async (req) => notifications.unreadCount(actorOf(req), req.query.workspace),
  );
  app.post(
    '/api/users/me/notifications/read/',
    {
      schema: {
        ...inbox,
        summary: 'Mark notifications read',
        operationId: 'markNotificationsRead',
        description: '`{ids}` (yours; others are ignored) or `{all: true, workspace?}` (every unread one that is not snoozed).',
        body: ReadBody,
        response: { 200: ReadResult, ...errorResponses(400, 404) },
      },
    },
    async (req) => notifications.markRead(actorOf(req), req.body),
  );
  app.post(
    '/api/users/me/notifications/:notificationId/archive/',
    {
      schema: { ...inbox, summary: 'Archive a notification', params: NotificationParams, response: { 200: Notification, ...errorResponses(400, 404) } },
    },
    async (req) => notifications.archive(actorOf(req), req.params.notificationId),
  );
  app.post(
    '/api/users/me/notifications/:notificationId/unarchive/',
    {
      schema: { ...inbox, summary: 'Back to the inbox', params: NotificationParams, response: { 200: Notification, ...errorResponses(400, 404) } },
    },
    async (req) => notifications.unarchive(actorOf(req), req.params.notificationId),
  );
  app.post(
    '/api/users/me/notifications/:notificationId/snooze/',
    {
      schema: {
        ...inbox,
        summary: 'Snooze a notification until a later instant',
        description: 'Hidden and unread until `until` (in the past: 400); `until: null` wakes it now.',
        params: NotificationParams,
        body: SnoozeBody,
        response: { 200: Notification, ...errorResponses(400, 404) },
      },
    },
    async (req) => notifications.snooze(actorOf(req), req.params.notificationId, req.body.until),
  );
};
