import type { FastifyInstance } from 'fastify';
import { AppError } from '../kernel/errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
// In a `u` regex a valid surrogate pair is one astral code point; only a lone surrogate is of category Cs.
const LONE_SURROGATE = /\p{Cs}/u;
const isWellFormed = (s: string): boolean => !LONE_SURROGATE.test(s);

/** True when every string (and key) holds well-formed UTF-16: `"\ud800"` escapes parse, but cannot be stored as text. */
function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return isWellFormed(value);
  if (Array.isArray(value)) return value.every(wellFormed);
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) if (!isWellFormed(key) || !wellFormed(v)) return false;
  }
  return true;
}

const notJson = (detail: string) => new AppError('invalid_json', detail);

/**
 * Fastify's own JSON parser (which refuses prototype poisoning), except that an empty body is "no body": clients
 * that always send `Content-Type: application/json` (also on DELETE) should not get a 400 for it. The body must be
 * valid UTF-8 and hold no lone surrogates (contract section 1: JSON is UTF-8); anything else is `invalid_json`
 * instead of being stored with replacement characters.
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
    parse(request, body, (error, value) => {
      if (error) return done(error, undefined);
      if (!wellFormed(value)) return done(notJson('The body holds a lone UTF-16 surrogate (\\ud800-\\udfff escape)'), undefined);
      done(null, value);
    });
  });
}
