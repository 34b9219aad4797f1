import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Db } from '../db/database.js';

const Health = Type.Object({ status: Type.String() });

export const healthRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'The process is up', response: { 200: Health } } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { tags: ['operations'], summary: 'The database answers', response: { 200: Health, 503: Health } } }, async (_req, reply) => {
    try {
      await sql`SELECT 1`.execute(db);
      return { status: 'ok' };
    } catch {
      return reply.status(503).send({ status: 'database unavailable' });
    }
  });
};
