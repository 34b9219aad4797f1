import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, NoContent, SlugParams } from '../../http/schemas.js';
import { CreateWorkspaceBody, UpdateWorkspaceBody, Workspace } from './workspaces.schemas.js';
import type { WorkspacesService } from './workspaces.service.js';

export const workspacesRoutes: FastifyPluginAsyncTypebox<{ workspaces: WorkspacesService }> = async (app, { workspaces }) => {
  const tags = ['workspaces'];

  app.post(
    '/api/workspaces/',
    {
      schema: {
        tags,
        summary: 'Create a workspace; you become its admin',
        body: CreateWorkspaceBody,
        response: { 201: Workspace, ...errorResponses(400, 409) },
      },
    },
    async (req, reply) => reply.status(201).send(await workspaces.create(actorOf(req), req.body)),
  );

  app.get(
    '/api/workspaces/',
    { schema: { tags, summary: 'Workspaces you are a member of', response: { 200: Type.Array(Workspace), ...errorResponses() } } },
    async (req) => workspaces.list(actorOf(req)),
  );

  app.get(
    '/api/workspaces/:slug/',
    { schema: { tags, summary: 'One workspace', params: SlugParams, response: { 200: Workspace, ...errorResponses(404) } } },
    async (req) => workspaces.get(actorOf(req), req.params.slug),
  );

  app.patch(
    '/api/workspaces/:slug/',
    {
      schema: {
        tags,
        summary: 'Rename a workspace (admin)',
        params: SlugParams,
        body: UpdateWorkspaceBody,
        response: { 200: Workspace, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => workspaces.update(actorOf(req), req.params.slug, req.body),
  );

  app.delete(
    '/api/workspaces/:slug/',
    {
      schema: {
        tags,
        summary: 'Delete a workspace and everything in it (admin)',
        params: SlugParams,
        response: { 204: NoContent, ...errorResponses(403, 404) },
      },
    },
    async (req, reply) => {
      await workspaces.remove(actorOf(req), req.params.slug);
      return reply.status(204).send();
    },
  );
};
