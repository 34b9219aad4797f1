import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, isPoolerStatementError } from '../db/availability.js';
import { AppError, type ErrorCode, ERROR_STATUS, type FieldError } from '../kernel/errors.js';
import { discardBody } from './body-guards.js';

/** Seconds a client is asked to wait before trying again while the database is away (27.1). */
export const DATABASE_RETRY_AFTER_S = 2;

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

interface ProblemBody {
  type: 'about:blank';
  title: string;
  status: number;
  code: string;
  detail: string;
  errors?: FieldError[];
  request_id: string;
}

export function sendProblem(reply: FastifyReply, code: ErrorCode, detail: string, errors?: FieldError[], extensions?: Record<string, unknown>): FastifyReply {
  const status = ERROR_STATUS[code];
  const body: ProblemBody = {
    ...extensions,
    type: 'about:blank',
    title: TITLES[status] ?? 'Error',
    status,
    code,
    detail,
    request_id: String(reply.request.id),
  };
  if (errors?.length) body.errors = errors;
  return reply.status(status).type('application/problem+json').send(body);
}

/** One field error per path: schema unions report every branch, the reader needs one line. */
function fieldErrors(error: FastifyError): FieldError[] {
  const byPath = new Map<string, string>();
  const part = error.validationContext;
  for (const v of error.validation ?? []) {
    const path = v.instancePath || (v.params?.missingProperty ? `/${String(v.params.missingProperty)}` : '');
    const message =
      v.keyword === 'required' && v.params?.requiredProperties
        ? `must have required properties ${(v.params.requiredProperties as string[]).join(', ')}`
        : (v.message ?? 'is invalid');
    byPath.set(path, message);
  }
  return [...byPath].map(([path, message]) => ({ path: part && part !== 'body' ? `/${part}${path}` : path, message }));
}

function classify(error: FastifyError): { code: ErrorCode; detail: string; errors?: FieldError[] } {
  if (error.validation) {
    const errors = fieldErrors(error);
    const first = errors[0];
    return {
      code: 'validation_failed',
      detail: first ? `${first.path || 'request'} ${first.message}` : 'The request is invalid',
      errors,
    };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'unsupported_media_type', detail: 'Send the body as application/json' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'payload_too_large', detail: 'The body is larger than 1 MiB' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { code: 'invalid_json', detail: 'The body is not valid JSON' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { code: 'validation_failed', detail: 'Content-Length does not match the body' };
    case 'FST_ERR_BAD_URL':
      return { code: 'validation_failed', detail: 'The URL is not validly percent-encoded UTF-8' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { code: 'uri_too_long', detail: 'A path parameter is longer than the router accepts' };
  }
  // Any other framework error that blames the request keeps its status, with the code of that status.
  if (typeof error.code === 'string' && error.code.startsWith('FST_ERR_') && error.statusCode) {
    const byStatus: Record<number, ErrorCode> = {
      400: 'validation_failed',
      404: 'not_found',
      405: 'method_not_allowed',
      413: 'payload_too_large',
      414: 'uri_too_long',
      415: 'unsupported_media_type',
    };
    const code = byStatus[error.statusCode];
    if (code) return { code, detail: error.message };
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return { code: 'invalid_json', detail: 'The body is not valid JSON' };
  }
  if (error.statusCode === 413) return { code: 'payload_too_large', detail: 'The body is larger than 1 MiB' };
  if (error.statusCode === 415) return { code: 'unsupported_media_type', detail: error.message };
  if (error.statusCode === 404) return { code: 'not_found', detail: 'Not found' };
  return { code: 'internal', detail: 'An internal error occurred; it has been logged' };
}

function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<void> {
  if (error instanceof AppError) {
    if (error.headers) void reply.headers(error.headers);
    if (error.status >= 500) request.log.error({ err: error }, error.message);
    return sendProblem(reply, error.code, error.message, error.errors, error.extensions);
  }
  // The database went away under the request (restart, failover, outage), or a pooler lost a prepared statement
  // (logged once, with what to set, by the database's availability): try again shortly, nothing was acknowledged.
  if (isDatabaseUnavailable(error) || isPoolerStatementError(error)) {
    void reply.header('retry-after', String(DATABASE_RETRY_AFTER_S));
    return sendProblem(reply, 'database_unavailable', 'The database cannot be reached at the moment; try again shortly');
  }
  const { code, detail, errors } = classify(error);
  if (code === 'internal') request.log.error({ err: error }, 'unhandled error');
  if (code === 'payload_too_large') return answerTooLarge(request, reply, detail);
  return sendProblem(reply, code, detail, errors);
}

/**
 * A body over the limit: the rest of it is read and dropped first (up to 16 MiB or 5 s, `discardBody`), then the
 * 413 goes out and the connection is closed, so a client still sending reads the answer instead of a reset.
 * Resolves with nothing once sent, so Fastify does not send again.
 */
async function answerTooLarge(request: FastifyRequest, reply: FastifyReply, detail: string): Promise<void> {
  await discardBody(request.raw, Number(request.headers['content-length']));
  void reply.header('connection', 'close');
  sendProblem(reply, 'payload_too_large', detail);
}

/**
 * Fastify's `frameworkErrors` option: the router's own refusals (bad percent-encoding, over-long path parameters)
 * happen before any route or error handler, and would otherwise answer Fastify's JSON instead of problem+json.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  handleError(error, request, reply);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => sendProblem(reply, 'not_found', `No route for ${request.method} ${request.url.split('?')[0]}`));
}
