/** Every error the API can answer with: a stable snake_case code and its HTTP status. */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  value_required: 400,
  coupon_invalid: 400,
  unauthenticated: 401,
  plan_limit_reached: 402,
  feature_not_in_plan: 402,
  /** An upload would take the workspace over its plan's storage (25.3): `used_bytes` and `limit_bytes` in the problem. */
  storage_limit_reached: 402,
  forbidden: 403,
  not_found: 404,
  sla_not_applicable: 404,
  method_not_allowed: 405,
  conflict: 409,
  option_in_use: 409,
  /** An invitation's token that was used, revoked, replaced by a resend, or has expired (26.4). */
  invitation_expired: 410,
  payload_too_large: 413,
  /** A file over `ATTACHMENT_MAX_MB` (25.1). */
  file_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  payment_provider_error: 502,
  /** The database cannot be reached (a restart, failover or outage): the answer carries Retry-After (27.1). */
  database_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  /** JSON pointer into the request part, e.g. `/rules/0/priority`. */
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
    /** Extension members of the problem (RFC 9457 §3.2), beside its standard ones: `{used_bytes, limit_bytes}`. */
    readonly extensions?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`);
export const conflict = (message: string): AppError => new AppError('conflict', message);
export const forbidden = (message = 'Your role does not allow this action'): AppError => new AppError('forbidden', message);
export const invalid = (path: string, message: string): AppError => new AppError('validation_failed', message, [{ path, message }]);
