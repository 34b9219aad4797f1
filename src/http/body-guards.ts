import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { findBadText } from './validation.js';

/** Deepest nesting of arrays and objects a JSON body may have (contract 21); no schema here comes near it. */
export const MAX_JSON_DEPTH = 32;

const OPEN_BRACKET = 0x5b; // [
const OPEN_BRACE = 0x7b; // {
const CLOSE_BRACKET = 0x5d; // ]
const CLOSE_BRACE = 0x7d; // }
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * True when the JSON text in `raw` nests arrays and objects deeper than `max`: one pass over the bytes counting the
 * brackets outside strings, before anything parses it. Deep nesting is valid JSON, but every recursive walk of the
 * parsed value (the validator, the U+0000 check) would overflow the stack on it, a 500 instead of a 400. Bytes,
 * not characters: none of the four brackets, the quote or the backslash can occur inside a multi-byte UTF-8
 * sequence, so the scan is right for any text that later decodes as UTF-8. About a millisecond for a 1 MB body.
 */
export function nestsDeeperThan(raw: Uint8Array, max: number = MAX_JSON_DEPTH): boolean {
  // Cannot nest deeper than the number of bytes: the common small body skips the scan.
  if (raw.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) depth--;
  }
  return false;
}

/** How much of a refused body is read and dropped before the answer, and for how long at most. */
export const DISCARD_LIMITS = { maxBytes: 16 * 1024 * 1024, maxMs: 5_000 };

/**
 * Reads and drops what is left of a request body, resolving once it has ended, the connection is gone, or a bound
 * is reached (`announced`, the Content-Length, over `maxBytes`: at once). Fastify refuses an over-limit body as soon
 * as the limit is crossed (or, for a Content-Length over it, before reading any) and closes the connection with its
 * answer; a client still sending then meets a reset (EPIPE, ECONNRESET) and often never reads the 413. Answering
 * only after the body is in lets every ordinary client read it; past the bounds, closing is the lesser harm.
 */
export function discardBody(stream: Readable & { complete?: boolean }, announced: number, limits = DISCARD_LIMITS): Promise<void> {
  // `complete`: the HTTP parser has every byte of the body already, nothing is left unread on the socket.
  if (stream.complete === true || stream.readableEnded || stream.destroyed || announced > limits.maxBytes) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const onData = (chunk: Uint8Array | string) => {
      seen += chunk.length;
      if (seen > limits.maxBytes) finish();
    };
    const finish = () => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', finish);
      stream.off('close', finish);
      stream.off('error', finish);
      resolve();
    };
    const timer = setTimeout(finish, limits.maxMs);
    timer.unref();
    stream.on('data', onData);
    stream.on('end', finish);
    stream.on('close', finish);
    stream.on('error', finish);
    stream.resume();
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text, or null when its bytes are not UTF-8 (a lone `ff`, `c0 af` over-long, `ed a0 80` surrogate). */
export function decodeUtf8(raw: Uint8Array): string | null {
  try {
    return utf8.decode(raw);
  } catch {
    return null;
  }
}

/**
 * `application/x-www-form-urlencoded` to an object, strictly: the bytes and every percent-decoded value must be
 * UTF-8 (`%FF` and `%ED%A0%80` are refused, where the usual parsers put U+FFFD in the value). A repeated field gives
 * an array of its values, as @fastify/formbody does. Null for a body that is not such a form.
 */
export function parseStrictForm(text: string): Record<string, string | string[]> | null {
  const fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  if (text === '') return fields;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent((at < 0 ? pair : pair.slice(0, at)).replace(/\+/g, ' '));
      value = at < 0 ? '' : decodeURIComponent(pair.slice(at + 1).replace(/\+/g, ' '));
    } catch {
      return null; // URIError: bad percent-encoding, or bytes that are not UTF-8
    }
    const seen = fields[key];
    fields[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return fields;
}

/** A 400 that a scope's own error handler (the provider callback's plain-text one) reads by its `statusCode`. */
function badRequest(message: string): Error {
  return Object.assign(new Error(message), { statusCode: 400, code: 'bad_body' });
}

/**
 * The provider callback's body parsers (form, as PayTR sends it, and JSON), replacing the inherited ones in its
 * scope: anything that is not a well-formed body of UTF-8 text is a 400 that the callback answers in plain text,
 * before any of it reaches the handler (so it changes nothing): bytes that are not UTF-8 (also percent-encoded),
 * U+0000 or a lone surrogate (`"\ud800"` is valid JSON), JSON nested deeper than 32 levels, broken JSON.
 */
export function registerProviderCallbackParsers(app: FastifyInstance, bodyLimit = 64 * 1024): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'application/x-www-form-urlencoded']);
  const check = (value: unknown) => (findBadText(value) === null ? null : badRequest('The body holds U+0000 or a lone surrogate'));
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer', bodyLimit }, (_request, raw, done) => {
    const text = decodeUtf8(raw as Buffer);
    const form = text === null ? null : parseStrictForm(text);
    if (form === null) return done(badRequest('The body is not a form of UTF-8 text'), undefined);
    const bad = check(form);
    return bad ? done(bad, undefined) : done(null, form);
  });
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (request, raw, done) => {
    const text = decodeUtf8(raw as Buffer);
    if (text === null) return done(badRequest('The body is not valid UTF-8'), undefined);
    if (nestsDeeperThan(raw as Buffer)) return done(badRequest(`The body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    parseJson(request, text, (error, value) => {
      if (error) return done(badRequest('The body is not valid JSON'), undefined);
      const bad = check(value);
      return bad ? done(bad, undefined) : done(null, value);
    });
  });
}
