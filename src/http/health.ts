import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { DatabaseAvailability } from '../db/availability.js';
import type { Db } from '../db/database.js';

const Health = Type.Object({ status: Type.String() });

/**
 * `/healthz`: the process is up (never touches the database, so an orchestrator does not restart a service that
 * only waits for its database). `/readyz`: the database answers a statement now, and no transaction pooler was met
 * without `DATABASE_POOLER=transaction` (contract 27.2: 503 until restart, so the misconfiguration shows at once).
 */
export const healthRoutes: FastifyPluginAsyncTypebox<{ db: Db; availability: DatabaseAvailability }> = async (app, { db, availability }) => {
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'The process is up', response: { 200: Health } } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { tags: ['operations'], summary: 'The database answers', response: { 200: Health, 503: Health } } }, async (_req, reply) => {
    if (availability.poolerMisconfigured) {
      return reply.status(503).send({ status: 'database pooler misconfigured: set DATABASE_POOLER=transaction' });
    }
    try {
      await sql`SELECT 1`.execute(db);
      return { status: 'ok' };
    } catch {
      return reply.status(503).header('retry-after', '2').send({ status: 'database unavailable' });
    }
  });
};
