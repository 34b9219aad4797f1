import type { FastifyInstance } from 'fastify';

/**
 * Fastify's own JSON parser (which refuses prototype poisoning), except that an empty body is "no body": clients
 * that always send `Content-Type: application/json` (also on DELETE) should not get a 400 for it.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  // JSON only: the provider callback registers its own form parser in its own scope.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    parse(request, body as string, done);
  });
}
