import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { expectProblem, signUp } from '../helpers/factories.js';
import { startTestApp } from '../helpers/test-app.js';

const REDIS_URL = process.env.REDIS_URL;

describe('per-token rate limit (memory store)', () => {
  it('counts every authenticated request against its token, with RateLimit-* headers, and answers 429 rate_limited with Retry-After over the limit', async () => {
    const t = await startTestApp({ apiRateLimit: 5, redisUrl: null });
    try {
      const alice = await signUp(t.api, 'Alice');
      const bob = await signUp(t.api, 'Bob');
      for (let i = 1; i <= 5; i++) {
        const res = await t.api.get('/api/users/me/', { token: alice.token });
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBe('5');
        expect(res.headers.get('ratelimit-remaining')).toBe(String(5 - i));
        expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
        expect(Number(res.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60);
      }
      const limited = await t.api.get('/api/workspaces/', { token: alice.token });
      expectProblem(limited, 429, 'rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      // Another token has its own budget; public routes and requests without a token are not counted.
      expect((await t.api.get('/api/users/me/', { token: bob.token })).status).toBe(200);
      const plans = await t.api.get('/api/billing/plans/');
      expect(plans.status).toBe(200);
      expect(plans.headers.get('ratelimit-limit')).toBeNull();
      expect((await t.api.get('/api/users/me/')).status).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('is off when API_RATE_LIMIT is 0', async () => {
    const t = await startTestApp({ apiRateLimit: 0, redisUrl: null });
    try {
      const alice = await signUp(t.api, 'Alice');
      const res = await t.api.get('/api/users/me/', { token: alice.token });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    } finally {
      await t.close();
    }
  });
});

describe.runIf(REDIS_URL)('rate limits in Redis (REDIS_URL set)', () => {
  it('shares the counters of one token between two instances, keyed by the token hash', async () => {
    const prefix = `wis-test-shared:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
    const a = await startTestApp({ apiRateLimit: 6, redisUrl: REDIS_URL!, redisPrefix: prefix });
    const b = await startTestApp({ apiRateLimit: 6, redisUrl: REDIS_URL!, redisPrefix: prefix }, a.database);
    const redis = new Redis(REDIS_URL!);
    try {
      const alice = await signUp(a.api, 'Alice');
      for (let i = 0; i < 3; i++) {
        expect((await a.api.get('/api/users/me/', { token: alice.token })).status).toBe(200);
        expect((await b.api.get('/api/users/me/', { token: alice.token })).status).toBe(200);
      }
      expectProblem(await b.api.get('/api/users/me/', { token: alice.token }), 429, 'rate_limited');
      expectProblem(await a.api.get('/api/users/me/', { token: alice.token }), 429, 'rate_limited');
      const keys = await redis.keys(`${prefix}*`);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.some((k) => k.includes(alice.token))).toBe(false);
    } finally {
      await b.close();
      await a.close();
      redis.disconnect();
    }
  });

  it('limits failed sign-ins across instances', async () => {
    const prefix = `wis-test-signin:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
    const a = await startTestApp({ redisUrl: REDIS_URL!, redisPrefix: prefix, rateLimits: { signInFailures: 2 } });
    const b = await startTestApp({ redisUrl: REDIS_URL!, redisPrefix: prefix, rateLimits: { signInFailures: 2 } }, a.database);
    try {
      const { user } = await signUp(a.api);
      expect((await a.api.post('/api/auth/sign-in/', { email: user.email, password: 'wrong-one' })).status).toBe(401);
      expect((await b.api.post('/api/auth/sign-in/', { email: user.email, password: 'wrong-one' })).status).toBe(401);
      const limited = await a.api.post('/api/auth/sign-in/', { email: user.email, password: 'correct horse battery' });
      expectProblem(limited, 429, 'rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
