import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { SearchPage, SearchParams, SearchQuery, SimilarIssue, SimilarParams, SimilarQuery } from './search.schemas.js';
import type { SearchService } from './search.service.js';

/** Workspace search (contract 23.1) and similar issues while typing (23.4). */
export const searchRoutes: FastifyPluginAsyncTypebox<{ search: SearchService }> = async (app, { search }) => {
  app.get(
    '/api/workspaces/:slug/search/',
    {
      schema: {
        tags: ['search'],
        summary: "Search the workspace's issues by key, name, description, comments and text custom values",
        description:
          'Ranked: the issue named by key first, then name over description over comments and custom values, then the ' +
          'most recently updated. When more than 1,000 issues match, the 1,000 newest are ranked. When the words find ' +
          'nothing, names like them are answered (`fuzzy: true`). Every member (guests too) searches the workspace.',
        params: SearchParams,
        querystring: SearchQuery,
        response: { 200: SearchPage, ...errorResponses(400, 404) },
      },
    },
    async (req) => search.search(actorOf(req), req.params.slug, req.query),
  );
  app.get(
    '/api/workspaces/:slug/projects/:projectId/issues/similar/',
    {
      schema: {
        tags: ['search'],
        summary: 'Up to 5 issues like a new one (open, or completed in the last 90 days), most similar first',
        description: 'Trigram and full-text similarity of names (and descriptions); no model. Only similarity 0.3 and above.',
        params: SimilarParams,
        querystring: SimilarQuery,
        response: { 200: Type.Array(SimilarIssue), ...errorResponses(400, 404) },
      },
    },
    async (req) => search.similar(actorOf(req), req.params.slug, req.params.projectId, req.query),
  );
};
