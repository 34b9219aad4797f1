/** Password reset (contract 26.5) through HTTP: the mail and its link, sessions revoked, API tokens kept, single use, one hour. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectProblem, signUp, unique } from '../helpers/factories.js';
import { startTestApp, useTestApp } from '../helpers/test-app.js';
import { linkToken, mailsTo } from './helpers.js';

const ctx = useTestApp({ publicBaseUrl: 'https://work.example.com' });
const PASSWORD = 'correct horse battery';

/** Asks for a reset of `email` (202) and answers the token of the mail it queued. */
async function requestReset(email: string, sentAs = email) {
  const { api, database } = ctx();
  const before = (await mailsTo(database, email)).length;
  const res = await api.post('/api/auth/password-reset/', { email: sentAs });
  expect(res.status, res.text).toBe(202);
  expect(res.text).toBe('');
  const mails = await mailsTo(database, email);
  expect(mails).toHaveLength(before + 1);
  expect(mails.at(-1)).toMatchObject({ category: 'password_reset', subject: 'Reset your password' });
  return linkToken(mails.at(-1)!, 'password-reset');
}

describe('password reset', () => {
  it('end to end: the mailed link sets the password, every session dies, personal API tokens keep working, the link is single use', async () => {
    const { api, database } = ctx();
    const user = await signUp(api, 'Forgetful');
    const second = await api.post('/api/auth/sign-in/', { email: user.user.email, password: PASSWORD });
    expect(second.status).toBe(200);
    const apiToken = await api.post('/api/users/me/api-tokens/', { name: 'CI' }, { token: user.token });
    expect(apiToken.status).toBe(201);

    // Any case finds the account; the mail goes to its address, with a link to the console.
    const earlier = await requestReset(user.user.email, user.user.email.toUpperCase());
    const token = await requestReset(user.user.email);
    const mail = (await mailsTo(database, user.user.email)).at(-1)!;
    expect(mail.user_id).toBe(user.user.id);
    expect(mail.text_body).toContain(`https://work.example.com/app/password-reset/${token}`);

    // Nothing changes before the confirm.
    expect((await api.get('/api/users/me/', { token: user.token })).status).toBe(200);

    const confirmed = await api.post('/api/auth/password-reset/confirm/', { token, password: 'a brand new secret' });
    expect(confirmed.status, confirmed.text).toBe(204);

    expectProblem(await api.get('/api/users/me/', { token: user.token }), 401, 'unauthenticated');
    expectProblem(await api.get('/api/users/me/', { token: second.body.token }), 401, 'unauthenticated');
    expect((await api.get('/api/users/me/', { token: apiToken.body.token })).status).toBe(200);
    expectProblem(await api.post('/api/auth/sign-in/', { email: user.user.email, password: PASSWORD }), 401, 'unauthenticated');
    const signedIn = await api.post('/api/auth/sign-in/', { email: user.user.email, password: 'a brand new secret' });
    expect(signedIn.status).toBe(200);

    // Single use, and the other open reset of the user died with it.
    expectProblem(await api.post('/api/auth/password-reset/confirm/', { token, password: 'yet another secret' }), 400, 'validation_failed');
    const stale = await api.post('/api/auth/password-reset/confirm/', { token: earlier, password: 'yet another secret' });
    expectProblem(stale, 400, 'validation_failed');
    expect(stale.body.errors).toEqual([{ path: '/token', message: expect.any(String) }]);
    expect((await api.post('/api/auth/sign-in/', { email: user.user.email, password: 'a brand new secret' })).status).toBe(200);
    expect((await api.get('/api/users/me/', { token: signedIn.body.token })).status).toBe(200);
  });

  it('a token is valid one hour', async () => {
    const { api, clock } = ctx();
    const start = clock.now();
    try {
      const user = await signUp(api, 'Slow');
      const fresh = await requestReset(user.user.email);
      const late = await requestReset(user.user.email);
      clock.advance(59 * 60_000);
      expect((await api.post('/api/auth/password-reset/confirm/', { token: fresh, password: 'within the hour' })).status).toBe(204);
      const other = await requestReset(user.user.email);
      clock.advance(60 * 60_000 + 1);
      expectProblem(await api.post('/api/auth/password-reset/confirm/', { token: other, password: 'after the hour' }), 400, 'validation_failed');
      expectProblem(await api.post('/api/auth/password-reset/confirm/', { token: late, password: 'after the hour' }), 400, 'validation_failed');
      expect((await api.post('/api/auth/sign-in/', { email: user.user.email, password: 'within the hour' })).status).toBe(200);
    } finally {
      clock.set(start);
    }
  });

  it('answers 202 for an unknown e-mail, queues nothing, and takes the same time as for an account', async () => {
    const { api, database } = ctx();
    const user = await signUp(api, 'Known');
    const nobody = `${unique('nobody')}@example.com`;
    const times = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < 3; i++) {
      for (const [kind, email] of [
        ['known', user.user.email],
        ['unknown', nobody],
      ] as const) {
        const started = performance.now();
        const res = await api.post('/api/auth/password-reset/', { email });
        times[kind].push(performance.now() - started);
        expect(res.status).toBe(202);
        expect(res.text).toBe('');
      }
    }
    expect(await mailsTo(database, nobody)).toEqual([]);
    expect(await mailsTo(database, user.user.email)).toHaveLength(3);
    // Both wait for the same floor (200 ms); what is left is noise of a few milliseconds.
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
    expect(median(times.unknown)).toBeGreaterThanOrEqual(195);
    expect(median(times.known)).toBeGreaterThanOrEqual(195);
    expect(Math.abs(median(times.known) - median(times.unknown))).toBeLessThan(100);
  });

  it('refuses bad input with a 4xx and changes nothing: malformed e-mail, bad, tampered or unknown token, short password', async () => {
    const { api, database } = ctx();
    const user = await signUp(api, 'Careful');
    for (const body of [{}, { email: '' }, { email: 'not-an-email' }, { email: `${'a'.repeat(990)}@example.com` }, { email: 42 }]) {
      expectProblem(await api.post('/api/auth/password-reset/', body), 400, 'validation_failed');
    }
    expect(await mailsTo(database, user.user.email)).toEqual([]);
    const token = await requestReset(user.user.email);
    const tampered = (token[0] === 'A' ? 'B' : 'A') + token.slice(1);
    for (const body of [
      { token: tampered, password: 'a fine new password' },
      { token: randomBytes(32).toString('base64url'), password: 'a fine new password' },
      { token: 'short', password: 'a fine new password' },
      { token: `${token}x`, password: 'a fine new password' },
      { token, password: 'short' },
      { token },
      { password: 'a fine new password' },
    ]) {
      expectProblem(await api.post('/api/auth/password-reset/confirm/', body), 400, 'validation_failed');
    }
    // Nothing changed: the session and password stand, and the real token still works.
    expect((await api.get('/api/users/me/', { token: user.token })).status).toBe(200);
    expect((await api.post('/api/auth/sign-in/', { email: user.user.email, password: PASSWORD })).status).toBe(200);
    expect((await api.post('/api/auth/password-reset/confirm/', { token, password: 'a fine new password' })).status).toBe(204);
  });

  it('is rate limited as sign-in: per e-mail and per client address, 429 with Retry-After', async () => {
    const { database } = ctx();
    const limited = await startTestApp({ rateLimits: { signInFailures: 3 } }, database);
    try {
      const email = `${unique('target')}@example.com`;
      for (let i = 0; i < 3; i++) expect((await limited.api.post('/api/auth/password-reset/', { email })).status).toBe(202);
      const refused = await limited.api.post('/api/auth/password-reset/', { email });
      expectProblem(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // The client address has used its budget too; failed confirms count against it as well.
      expectProblem(await limited.api.post('/api/auth/password-reset/', { email: `${unique('other')}@example.com` }), 429, 'rate_limited');
      expectProblem(
        await limited.api.post('/api/auth/password-reset/confirm/', { token: randomBytes(32).toString('base64url'), password: 'a fine new password' }),
        429,
        'rate_limited',
      );
    } finally {
      await limited.close();
    }
  });
});
