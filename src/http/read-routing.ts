import type { FastifyInstance } from 'fastify';
import type { ReplicaRouting } from '../db/replicas.js';

/**
 * The reads that tolerate a replica (contract 27.3): lists, reports, timesheets, the forecast, baseline deviation
 * and changes, histories. Each is a GET whose handler only reads (a replica refuses writes); the authentication
 * before it (with a token's `last_used_at`) runs on the primary, outside the routing.
 */
export const REPLICA_ROUTES: ReadonlySet<string> = new Set([
  '/api/workspaces/:slug/projects/:projectId/issues/',
  '/api/workspaces/:slug/issues/',
  '/api/workspaces/:slug/projects/:projectId/issues/:issueId/history/',
  '/api/workspaces/:slug/projects/:projectId/issues/:issueId/comments/',
  '/api/workspaces/:slug/projects/:projectId/issues/:issueId/worklogs/',
  '/api/workspaces/:slug/timesheet/',
  '/api/workspaces/:slug/projects/:projectId/forecast/',
  '/api/workspaces/:slug/baselines/:baselineId/deviation/',
  '/api/workspaces/:slug/baselines/:baselineId/changes/',
  '/api/workspaces/:slug/sla-reports/',
  '/api/workspaces/:slug/custom-properties/:propertyId/usage/',
  '/api/workspaces/:slug/views/:viewId/issues/',
]);

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Reads of `REPLICA_ROUTES` run with their connections from a replica that has replayed the client's last write;
 * after a write request of an authenticated client, its WAL position is noted before the answer leaves, so its very
 * next read cannot miss the write.
 */
export function registerReadRouting(app: FastifyInstance, routing: ReplicaRouting): void {
  app.addHook('preHandler', (request, _reply, done) => {
    if (request.method === 'GET' && REPLICA_ROUTES.has(request.routeOptions.url ?? '')) {
      routing.readsFromReplica(request.actor?.userId, done);
    } else done();
  });
  app.addHook('onSend', async (request) => {
    if (request.actor && WRITES.has(request.method)) await routing.noteWrite(request.actor.userId);
  });
}
