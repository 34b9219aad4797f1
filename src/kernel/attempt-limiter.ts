/**
 * Counts attempts per key within a window (failed sign-ins per e-mail, sign-ups per address). Implemented in
 * `http/rate-limit.ts` on the store of `@fastify/rate-limit` (memory, or Redis shared by every instance).
 */
export interface AttemptLimiter {
  /** Throws `rate_limited` (429, Retry-After) when `key` has used up its window; does not count. */
  assertAllowed(key: string, what: string): Promise<void>;
  /** Counts one attempt against `key`. */
  record(key: string): Promise<void>;
}

/** For callers that never sign anyone in (the CLI, seeders). */
export const NO_ATTEMPT_LIMIT: AttemptLimiter = { assertAllowed: async () => undefined, record: async () => undefined };
export const NO_AUTH_LIMITS = { signInByEmail: NO_ATTEMPT_LIMIT, signInByIp: NO_ATTEMPT_LIMIT, signUpByIp: NO_ATTEMPT_LIMIT };
