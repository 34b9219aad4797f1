import type { FastifyInstance } from 'fastify';
import { AppError } from '../kernel/errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

const notJson = (detail: string) => new AppError('invalid_json', detail);

/**
 * Fastify's own JSON parser (which refuses prototype poisoning), except that an empty body is "no body": clients
 * that always send `Content-Type: application/json` (also on DELETE) should not get a 400 for it. The body must be
 * valid UTF-8 (contract section 1), else `invalid_json` instead of text stored with replacement characters. Strings
 * that hold U+0000 or a lone surrogate (`"\ud800"` escapes are valid JSON) are refused by the validator, naming
 * the field.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  // JSON only: the provider callback registers its own form parser in its own scope.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    let body: string;
    try {
      body = utf8.decode(raw as Buffer);
    } catch {
      return done(notJson('The body is not valid UTF-8'), undefined);
    }
    if (body.trim() === '') return done(null, undefined);
    parse(request, body, done);
  });
}
