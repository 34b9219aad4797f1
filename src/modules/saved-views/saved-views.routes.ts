import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, NoContent, PageQuery, pageSchema } from '../../http/schemas.js';
import { IssueSchema } from '../work-items/index.js';
import { CreateViewBody, SavedView, UpdateViewBody, ViewParams, ViewsParams } from './saved-views.schemas.js';
import type { SavedViewsService } from './saved-views.service.js';

/** Saved views of the issue list (contract 23.3). */
export const savedViewsRoutes: FastifyPluginAsyncTypebox<{ views: SavedViewsService }> = async (app, { views }) => {
  const tags = ['views'];

  app.get(
    '/api/workspaces/:slug/views/',
    {
      schema: {
        tags,
        summary: "Your views and the workspace's shared views, by name",
        params: ViewsParams,
        response: { 200: Type.Array(SavedView), ...errorResponses(404) },
      },
    },
    async (req) => views.list(actorOf(req), req.params.slug),
  );
  app.post(
    '/api/workspaces/:slug/views/',
    {
      schema: {
        tags,
        summary: 'Save a view (admin, member)',
        description:
          'Filters are checked as the issue list checks them (400 naming `/filters/<key>` or `/order_by`); ' +
          '`project_id` must be a project of the workspace (400). Not `shared`: only you see it.',
        params: ViewsParams,
        body: CreateViewBody,
        response: { 201: SavedView, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => reply.status(201).send(await views.create(actorOf(req), req.params.slug, req.body)),
  );
  app.get(
    '/api/workspaces/:slug/views/:viewId/',
    {
      schema: {
        tags,
        summary: 'A view (yours, or a shared one)',
        params: ViewParams,
        response: { 200: SavedView, ...errorResponses(404) },
      },
    },
    async (req) => views.get(actorOf(req), req.params.slug, req.params.viewId),
  );
  app.patch(
    '/api/workspaces/:slug/views/:viewId/',
    {
      schema: {
        tags,
        summary: "Change a view (its owner; an admin also a shared one; a member on another's shared view: 403)",
        params: ViewParams,
        body: UpdateViewBody,
        response: { 200: SavedView, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => views.update(actorOf(req), req.params.slug, req.params.viewId, req.body),
  );
  app.delete(
    '/api/workspaces/:slug/views/:viewId/',
    {
      schema: {
        tags,
        summary: 'Delete a view (its owner; an admin also a shared one)',
        params: ViewParams,
        response: { 204: NoContent, ...errorResponses(403, 404) },
      },
    },
    async (req, reply) => {
      await views.remove(actorOf(req), req.params.slug, req.params.viewId);
      return reply.status(204).send();
    },
  );
  app.get(
    '/api/workspaces/:slug/views/:viewId/issues/',
    {
      schema: {
        tags,
        summary: 'Run a view: the issue list with its filters and sort (`me` is you), paginated as the list',
        params: ViewParams,
        querystring: PageQuery,
        response: { 200: pageSchema(IssueSchema), ...errorResponses(400, 404) },
      },
    },
    async (req) => views.issues(actorOf(req), req.params.slug, req.params.viewId, req.query),
  );
};
