import { conflict } from '../kernel/errors.js';

/** The PostgreSQL error codes (SQLSTATE) the service reacts to; PGlite reports the same codes. */
export const PG_ERROR = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  serializationFailure: '40001',
  /** `DROP DATABASE` of a database another session still uses (test helpers). */
  objectInUse: '55006',
  /** `lock_timeout` ran out. */
  lockNotAvailable: '55P03',
} as const;

export type PgErrorCode = (typeof PG_ERROR)[keyof typeof PG_ERROR];

/** True when `error` is a database error with this SQLSTATE. */
export function isPgError(error: unknown, code: PgErrorCode): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/**
 * "Unique violation -> 409": the error to throw for `error` caught around a write, a `conflict` with `message` when the
 * write broke a unique constraint, else `error` itself. The check before the write gives the friendly answer; this
 * one closes the race between two concurrent writes. Use: `catch (error) { throw conflictIfUnique(error, '...'); }`.
 */
export function conflictIfUnique(error: unknown, message: string): unknown {
  return isPgError(error, PG_ERROR.uniqueViolation) ? conflict(message) : error;
}
