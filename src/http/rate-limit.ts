import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { RateLimitConfig } from '../config/config.js';
import type { AttemptLimiter } from '../kernel/attempt-limiter.js';
import { AppError } from '../kernel/errors.js';
import { bearerToken } from './auth.js';

export interface RateLimitOptions {
  /** Requests per minute per token; 0 turns the per-token limit off. */
  apiRateLimit: number;
  redisUrl: string | null;
  /** Prefix of every Redis key, so that several deployments (or test runs) can share one Redis. */
  redisPrefix: string;
  rateLimits: RateLimitConfig;
}

export interface AuthLimiters {
  signInByEmail: AttemptLimiter;
  signInByIp: AttemptLimiter;
  signUpByIp: AttemptLimiter;
  /** Password reset requests per e-mail, and requests and failed confirms per client address: as sign-in's (26.5). */
  passwordResetByEmail: AttemptLimiter;
  passwordResetByIp: AttemptLimiter;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');

/** The request `createRateLimit` is called with for an attempt limiter: only the key is read from it. */
interface KeyedRequest {
  rateLimitKey: string;
  routeOptions: { config: Record<string, never> };
}

/**
 * Rate limits on `@fastify/rate-limit` (contract section 15), in process memory, or in Redis when `REDIS_URL` is set
 * so that every instance shares the counters:
 * - every authenticated request (a token on an /api/ route that is not public) counts against that token, keyed by
 *   the token's hash (never the token itself), `API_RATE_LIMIT` per minute, with the draft-spec `RateLimit-*` headers;
 * - the sign-in and sign-up limits of section 3 are attempt limiters on the same store (`createRateLimit`), because
 *   only failed sign-ins count: the service reads the counter before, and counts after a failure.
 * Over a limit: 429 `rate_limited` with `Retry-After`. If Redis is unreachable the limits fail open (logged),
 * rather than refusing every request.
 */
export async function registerRateLimits(app: FastifyInstance, options: RateLimitOptions): Promise<AuthLimiters> {
  let redis: Redis | undefined;
  if (options.redisUrl) {
    redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, enableAutoPipelining: true });
    redis.on('error', (err) => app.log.warn({ err }, 'redis (rate limits) unavailable'));
    app.addHook('onClose', async () => {
      await redis?.quit().catch(() => redis?.disconnect());
    });
  }
  await app.register(rateLimit, {
    global: options.apiRateLimit > 0,
    max: options.apiRateLimit,
    timeWindow: 60_000,
    enableDraftSpec: true,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: options.redisPrefix } : {}),
    keyGenerator: (req) => `token:${sha256(bearerToken(req) ?? '')}`,
    // Only authenticated requests count: public routes and requests without a token are not limited here.
    allowList: (req) => !req.routeOptions.url?.startsWith('/api/') || req.routeOptions.config.public === true || !bearerToken(req),
    errorResponseBuilder: (_req, context) =>
      new AppError('rate_limited', `Too many requests for this token: ${context.max} a minute; retry in ${context.after}`),
  });

  const limiter = (name: string, max: number, timeWindow: number): AttemptLimiter => {
    const limit = app.createRateLimit({
      max,
      timeWindow,
      skipOnError: true,
      // The per-token allow list is inherited otherwise: an attempt limiter counts every key it is given.
      allowList: () => false,
      keyGenerator: (req) => `${name}:${(req as unknown as KeyedRequest).rateLimitKey}`,
    });
    const request = (key: string) => ({ rateLimitKey: key, routeOptions: { config: {} } }) as unknown as FastifyRequest;
    return {
      async assertAllowed(key, what) {
        const state = await limit(request(key), { increment: false });
        if (state.isAllowed || state.remaining > 0) return;
        const retryAfter = Math.max(1, state.ttlInSeconds);
        throw new AppError('rate_limited', `Too many ${what}; try again in ${retryAfter} s`, undefined, {
          'retry-after': String(retryAfter),
        });
      },
      async record(key) {
        await limit(request(key));
      },
    };
  };
  const { rateLimits } = options;
  return {
    signInByEmail: limiter('signin-email', rateLimits.signInFailures, rateLimits.signInWindowMs),
    signInByIp: limiter('signin-ip', rateLimits.signInFailures, rateLimits.signInWindowMs),
    signUpByIp: limiter('signup-ip', rateLimits.signUps, rateLimits.signUpWindowMs),
    passwordResetByEmail: limiter('reset-email', rateLimits.signInFailures, rateLimits.signInWindowMs),
    passwordResetByIp: limiter('reset-ip', rateLimits.signInFailures, rateLimits.signInWindowMs),
  };
}
