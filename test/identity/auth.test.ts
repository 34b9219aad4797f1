import { describe, expect, it } from 'vitest';
import { expectProblem, signUp, unique } from '../helpers/factories.js';
import { startTestApp, useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('sign-up, sign-in, sign-out', () => {
  it('signs up, returns the user and a working token', async () => {
    const { api } = ctx();
    const email = `${unique('alice')}@Example.com`;
    const res = await api.post('/api/auth/sign-up/', { email, password: 'longenough', display_name: 'Alice' });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ email: email.toLowerCase(), display_name: 'Alice' });
    expect(res.body.user).not.toHaveProperty('password_hash');
    const me = await api.get('/api/users/me/', { token: res.body.token });
    expect(me.body.id).toBe(res.body.user.id);
  });

  it('refuses a short password, a bad e-mail and a duplicate e-mail', async () => {
    const { api } = ctx();
    expectProblem(await api.post('/api/auth/sign-up/', { email: 'a@b.co', password: 'short', display_name: 'A' }), 400, 'validation_failed');
    expectProblem(await api.post('/api/auth/sign-up/', { email: 'not-an-email', password: 'longenough', display_name: 'A' }), 400, 'validation_failed');
    const { user } = await signUp(api);
    expectProblem(await api.post('/api/auth/sign-up/', { email: user.email.toUpperCase(), password: 'longenough', display_name: 'A' }), 409, 'conflict');
  });

  it('signs in with the right password only', async () => {
    const { api } = ctx();
    const { user } = await signUp(api);
    const ok = await api.post('/api/auth/sign-in/', { email: user.email, password: 'correct horse battery' });
    expect(ok.status).toBe(200);
    expect(ok.body.token).toMatch(/^wis_/);
    expectProblem(await api.post('/api/auth/sign-in/', { email: user.email, password: 'wrong password' }), 401, 'unauthenticated');
    expectProblem(await api.post('/api/auth/sign-in/', { email: 'nobody@example.com', password: 'whatever1' }), 401, 'unauthenticated');
  });

  it('revokes the token on sign-out', async () => {
    const { api } = ctx();
    const { token } = await signUp(api);
    expect((await api.post('/api/auth/sign-out/', undefined, { token })).status).toBe(204);
    expectProblem(await api.get('/api/users/me/', { token }), 401, 'unauthenticated');
  });

  it('expires session tokens after their lifetime', async () => {
    const { api, clock, config } = ctx();
    const { token } = await signUp(api);
    clock.advanceDays(config.sessionTtlDays + 1);
    expectProblem(await api.get('/api/users/me/', { token }), 401, 'unauthenticated');
    clock.advanceDays(-(config.sessionTtlDays + 1));
  });
});

describe('personal API tokens', () => {
  it('shows the secret once, authenticates with X-API-Key and Bearer, and stops working when deleted', async () => {
    const { api } = ctx();
    const { token } = await signUp(api);
    const created = await api.post('/api/users/me/api-tokens/', { name: 'CI' }, { token });
    expect(created.status).toBe(201);
    const secret = created.body.token as string;
    expect(secret).toMatch(/^wis_/);
    const list = await api.get('/api/users/me/api-tokens/', { token });
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).not.toHaveProperty('token');
    expect(secret.startsWith(list.body[0].prefix)).toBe(true);
    expect((await api.get('/api/users/me/', { headers: { 'x-api-key': secret } })).status).toBe(200);
    expect((await api.get('/api/users/me/', { token: secret })).status).toBe(200);
    expect((await api.delete(`/api/users/me/api-tokens/${created.body.id}/`, { token })).status).toBe(204);
    expectProblem(await api.get('/api/users/me/', { headers: { 'x-api-key': secret } }), 401);
  });

  it('does not let a user delete the token of another user', async () => {
    const { api } = ctx();
    const a = await signUp(api);
    const b = await signUp(api);
    const created = await api.post('/api/users/me/api-tokens/', { name: 'mine' }, { token: a.token });
    expectProblem(await api.delete(`/api/users/me/api-tokens/${created.body.id}/`, { token: b.token }), 404, 'not_found');
  });

  it('expires a token created with expires_in_days', async () => {
    const { api, clock } = ctx();
    const { token } = await signUp(api);
    const created = await api.post('/api/users/me/api-tokens/', { name: 'short', expires_in_days: 1 }, { token });
    clock.advanceDays(2);
    expectProblem(await api.get('/api/users/me/', { token: created.body.token }), 401);
    clock.advanceDays(-2);
  });
});

describe('instance admin and configuration', () => {
  it('makes the first user of an empty instance its instance admin, and nobody after', async () => {
    const t = await startTestApp();
    try {
      const first = await signUp(t.api);
      const second = await signUp(t.api);
      expect(first.user.is_instance_admin).toBe(true);
      expect(second.user.is_instance_admin).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('refuses sign-up when it is turned off', async () => {
    const t = await startTestApp({ allowSignup: false });
    try {
      expectProblem(await t.api.post('/api/auth/sign-up/', { email: 'x@example.com', password: 'longenough', display_name: 'X' }), 403, 'forbidden');
    } finally {
      await t.close();
    }
  });

  it('rate-limits failed sign-ins per e-mail with 429 and Retry-After, and forgets them after the window', async () => {
    // The limiter's store keeps real time: a short window instead of the test clock.
    const t = await startTestApp({ rateLimits: { signInFailures: 3, signInWindowMs: 1500 } });
    try {
      const { user } = await signUp(t.api);
      for (let i = 0; i < 3; i++) {
        expect((await t.api.post('/api/auth/sign-in/', { email: user.email, password: 'wrong-one' })).status).toBe(401);
      }
      const limited = await t.api.post('/api/auth/sign-in/', { email: user.email, password: 'correct horse battery' });
      expectProblem(limited, 429, 'rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 1550));
      expect((await t.api.post('/api/auth/sign-in/', { email: user.email, password: 'correct horse battery' })).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('rate-limits sign-ups per client address', async () => {
    const t = await startTestApp({ rateLimits: { signUps: 2 } });
    try {
      await signUp(t.api);
      await signUp(t.api);
      const res = await t.api.post('/api/auth/sign-up/', { email: `${unique('x')}@example.com`, password: 'longenough', display_name: 'X' });
      expectProblem(res, 429, 'rate_limited');
      expect(res.headers.get('retry-after')).toBeTruthy();
    } finally {
      await t.close();
    }
  });
});
