import { type TSchema, Type } from 'typebox';
import { DEFAULT_PER_PAGE, MAX_OFFSET, MAX_PER_PAGE } from '../kernel/pagination.js';

/** Shared building blocks of the route schemas, which are also the OpenAPI document. */
export const Uuid = Type.String({ format: 'uuid', description: 'UUID v7 identifier' });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC, e.g. 2026-11-21T09:30:00.000Z' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
/** A calendar date without time (issue dates, timesheet ranges); the services also refuse impossible ones (02-30). */
export const LOCAL_DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';
export const LocalDate = Type.String({ pattern: LOCAL_DATE_PATTERN, description: 'A date, YYYY-MM-DD' });
export const Slug = Type.String({ description: 'Workspace slug', minLength: 1, maxLength: 64 });

export const SlugParams = Type.Object({ slug: Slug });

export const FieldErrorSchema = Type.Object({
  path: Type.String({ description: 'JSON pointer into the request part that failed' }),
  message: Type.String(),
});

export const Problem = Type.Object(
  {
    type: Type.String({ description: 'Always about:blank' }),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.String({ description: 'Stable snake_case error code' }),
    detail: Type.String(),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
    request_id: Type.Optional(Type.String()),
    used_bytes: Type.Optional(Type.Integer({ description: 'storage_limit_reached: the bytes the workspace stores and reserves now' })),
    limit_bytes: Type.Optional(Type.Integer({ description: "storage_limit_reached: the plan's storage in bytes" })),
  },
  { description: 'RFC 9457 problem details (application/problem+json)' },
);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Validation failed or the body is not JSON',
  401: 'Missing, unknown, expired or revoked token',
  402: 'The workspace plan does not allow this',
  403: 'Your role does not allow this action',
  404: 'Not found, or not visible to you',
  409: 'Conflicts with the current state',
  410: 'Gone: the token was used, revoked or replaced, or has expired',
  413: 'Body over 1 MiB',
  415: 'Content type is not application/json',
  429: 'Too many requests; see Retry-After',
  500: 'Internal error',
  502: 'The payment provider failed or refused',
  503: 'The database cannot be reached at the moment (a restart, failover or outage); see Retry-After',
};

/** The problem responses of a route, for the OpenAPI document (401, 500 and 503 are always possible). */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const all = new Set([...statuses, 401, 500, 503]);
  return Object.fromEntries([...all].map((s) => [s, { ...Problem, description: ERROR_DESCRIPTIONS[s] ?? 'Error' }]));
}

export const PageQuery = Type.Object({
  offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: `Items to skip, 0..${MAX_OFFSET} (default 0)` }),
  per_page: Type.Integer({
    minimum: 1,
    maximum: MAX_PER_PAGE,
    default: DEFAULT_PER_PAGE,
    description: `Page size, 1..${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE})`,
  }),
});

export const pageSchema = <T extends TSchema>(item: T) =>
  Type.Object({
    results: Type.Array(item),
    total: Type.Integer(),
    offset: Type.Integer(),
    per_page: Type.Integer(),
  });

export const NoContent = Type.Unsafe<undefined>({ description: 'No content' });
