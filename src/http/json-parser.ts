import type { FastifyInstance } from 'fastify';
import { AppError } from '../kernel/errors.js';
import { decodeUtf8, MAX_JSON_DEPTH, nestsDeeperThan } from './body-guards.js';

const notJson = (detail: string) => new AppError('invalid_json', detail);

/**
 * Fastify's own JSON parser (which refuses prototype poisoning), except that an empty body is "no body": clients
 * that always send `Content-Type: application/json` (also on DELETE) should not get a 400 for it. The body must be
 * valid UTF-8 (contract section 1), else `invalid_json` instead of text stored with replacement characters. Strings
 * that hold U+0000 or a lone surrogate (`"\ud800"` escapes are valid JSON) are refused by the validator, naming
 * the field. Nesting deeper than 32 levels is `validation_failed` before parsing (contract 21): every recursive walk
 * of the value after it would otherwise overflow the stack.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  // JSON only: the provider callback registers its own form parser in its own scope.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    const body = decodeUtf8(raw as Buffer);
    if (body === null) return done(notJson('The body is not valid UTF-8'), undefined);
    if (body.trim() === '') return done(null, undefined);
    if (nestsDeeperThan(raw as Buffer)) {
      const message = `The body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`;
      return done(new AppError('validation_failed', message, [{ path: '', message }]), undefined);
    }
    parse(request, body, done);
  });
}
