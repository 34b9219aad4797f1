import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { Forecast, ForecastParams, ForecastQuery } from './forecast.schemas.js';
import type { ForecastService } from './forecast.service.js';

export const forecastRoutes: FastifyPluginAsyncTypebox<{ forecast: ForecastService }> = async (app, { forecast }) => {
  app.get(
    '/api/workspaces/:slug/projects/:projectId/forecast/',
    {
      schema: {
        tags: ['forecast'],
        summary: 'When the open issues of the project will be done: a Monte-Carlo forecast from its weekly throughput',
        description:
          '10,000 runs draw weekly completions from the last `weeks` full weeks (Monday first, workspace time zone; the ' +
          'current week is not one of them) until the open issues are done. The same data gives the same answer. Read: ' +
          'every member, guests included.',
        params: ForecastParams,
        querystring: ForecastQuery,
        response: { 200: Forecast, ...errorResponses(400, 404) },
      },
    },
    async (req) => forecast.forecast(actorOf(req), req.params.slug, req.params.projectId, req.query),
  );
};
