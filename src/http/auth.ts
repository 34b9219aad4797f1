import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor } from '../kernel/actor.js';
import { AppError } from '../kernel/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null;
  }
  interface FastifyContextConfig {
    /** A route anyone may call without a token. */
    public?: boolean;
  }
}

/** The actor of a token; with `workspaceSlug`, also the caller's membership of that workspace (when there is one). */
export type TokenResolver = (token: string, workspaceSlug?: string) => Promise<Actor | null>;

const PLAIN_SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1] ?? null;
  }
  const key = request.headers['x-api-key'];
  return typeof key === 'string' && key.trim() ? key.trim() : null;
}

/**
 * Every route under /api/ needs a token unless its config says `public: true`. The actor is resolved once per request and
 * handed to services; routes never look at headers themselves.
 */
export function registerAuthentication(app: FastifyInstance, resolve: TokenResolver): void {
  app.decorateRequest('actor', null);
  app.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url;
    // Only the API needs a token; health, OpenAPI, docs and the sandbox payment pages are public.
    if (!url?.startsWith('/api/') || request.routeOptions.config.public) return;
    const token = bearerToken(request);
    if (!token) throw new AppError('unauthenticated', 'Send a token as "Authorization: Bearer <token>" or X-API-Key');
    const slug = (request.params as { slug?: unknown } | undefined)?.slug;
    // Params are not validated yet: only a slug that could be a workspace's is looked up with the token.
    const actor = await resolve(token, typeof slug === 'string' && PLAIN_SLUG.test(slug) ? slug : undefined);
    if (!actor) throw new AppError('unauthenticated', 'The token is unknown, expired or revoked');
    request.actor = actor;
  });
}

/** The authenticated caller of a route that is not public. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new AppError('unauthenticated', 'Authentication required');
  return request.actor;
}
