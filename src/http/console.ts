import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PROJECT_ROOT } from '../config/paths.js';

/** Where `npm run build:web` writes the console (`web/dist`, not committed). */
export const DEFAULT_CONSOLE_DIR = join(PROJECT_ROOT, 'web', 'dist');

/** Hashed file names (`index-B3xY9a.js`): the content never changes under that name. */
const HASHED = /[.-][A-Za-z0-9_-]{8,}\.(js|css|svg|woff2?)$/;

function notBuilt(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply
    .status(503)
    .type('application/problem+json')
    .header('cache-control', 'no-store')
    .send({
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      code: 'console_not_built',
      detail: 'the console is not built: run npm run build:web',
      request_id: String(request.id),
    });
}

/**
 * The web console (a single-page application) at `/app/`: public (it signs in by itself, with the API), files from
 * `web/dist`; any `/app/...` path that is not a file answers index.html (history routing). Hashed assets are cached
 * for a year (immutable), index.html never. Without a build, `/app/` answers 503 problem+json instead of failing.
 */
export async function registerConsole(app: FastifyInstance, dir: string = DEFAULT_CONSOLE_DIR): Promise<void> {
  const built = () => existsSync(join(dir, 'index.html'));
  if (!built()) {
    app.get('/app/', { schema: { hide: true } }, async (request, reply) => notBuilt(request, reply));
    app.get('/app/*', { schema: { hide: true } }, async (request, reply) => notBuilt(request, reply));
    return;
  }
  await app.register(async (scope) => {
    // serve: false: one route below decides between a file and index.html, so a rebuild needs no restart.
    await scope.register(fastifyStatic, { root: dir, serve: false, cacheControl: false });
    const sendIndex = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!built()) return notBuilt(request, reply);
      return reply.header('cache-control', 'no-cache').sendFile('index.html', dir, { cacheControl: false });
    };
    scope.get('/app/', { schema: { hide: true } }, sendIndex);
    scope.get('/app/*', { schema: { hide: true } }, async (request, reply) => {
      const rest = (request.params as { '*': string })['*'];
      const isFile = /^[\w./-]+\.[a-z0-9]+$/i.test(rest) && !rest.split('/').includes('..') && existsSync(join(dir, rest));
      if (isFile && rest !== 'index.html') {
        const cache = HASHED.test(rest) ? 'public, max-age=31536000, immutable' : 'no-cache';
        return reply.header('cache-control', cache).sendFile(rest, dir, { cacheControl: false });
      }
      // A missing hashed asset is a 404 (an old index.html asks for a file a new build removed), not the page.
      if (rest.startsWith('assets/')) return reply.status(404).type('text/plain').send('not found');
      return sendIndex(request, reply);
    });
  });
}
