import { performance } from 'node:perf_hooks';
import { setTimeout as wait } from 'node:timers/promises';
import { addMs } from '../../kernel/clock.js';
import { invalid } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { PasswordResetDeps } from './invitations.deps.js';
import { hashToken, isTokenShaped, newToken, normalizeEmail, RESET_ANSWER_MS, RESET_TTL_MS, resetLink, resetMail } from './invitations.rules.js';

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;

/**
 * Password reset (contract 26.5): a request always answers 202 after the same time (no account enumeration) and, for
 * an account, queues a mail with a single-use link valid one hour (32 random bytes, stored as sha256). Confirming sets
 * the password (the sign-up rules), revokes every session of the user (personal API tokens stay) and uses up every
 * other open reset of the user, in one transaction.
 */
export function createPasswordResetService(deps: PasswordResetDeps) {
  const { db, repo, clock, identity, mail, limiters } = deps;
  const sleep = deps.sleep ?? ((ms: number) => wait(ms));

  return {
    async request(input: { email: string }, clientIp: string) {
      const started = performance.now();
      const email = normalizeEmail(input.email);
      await limiters.byEmail.assertAllowed(email, 'password resets for this e-mail');
      await limiters.byIp.assertAllowed(clientIp, 'password resets from this address');
      await Promise.all([limiters.byEmail.record(email), limiters.byIp.record(clientIp)]);
      // The same work up to the look-up either way; then the answer waits until RESET_ANSWER_MS have passed.
      const { token, hash } = newToken();
      await db.transaction().execute(async (tx) => {
        const user = await identity.findUserByEmail(tx, email);
        if (!user) return;
        const now = clock.now();
        await repo.insert(tx, { id: newId(), user_id: user.id, token_hash: hash, created_at: now, expires_at: addMs(now, RESET_TTL_MS) });
        const content = resetMail({ link: resetLink(deps.publicBaseUrl, token), displayName: user.display_name });
        await mail.enqueue(tx, { to: user.email, ...content, category: 'password_reset', userId: user.id });
      });
      const left = RESET_ANSWER_MS - (performance.now() - started);
      if (left > 0) await sleep(left);
    },

    /** 400 `/token` for an unknown, used, expired or altered token (nothing changes then). */
    async confirm(input: { token: string; password: string }, clientIp: string) {
      await limiters.byIp.assertAllowed(clientIp, 'password resets from this address');
      const refuse = async () => {
        await limiters.byIp.record(clientIp);
        return invalid('/token', 'The reset link is invalid, used or expired; ask for a new one');
      };
      if (!isTokenShaped(input.token)) throw await refuse();
      const passwordHash = await identity.hashPassword(input.password);
      const userId = await db.transaction().execute(async (tx) => {
        const now = clock.now();
        const owner = await repo.claim(tx, hashToken(input.token), now);
        if (!owner) return null;
        await identity.resetPassword(tx, owner, passwordHash);
        await repo.useAllOf(tx, owner, now);
        return owner;
      });
      if (!userId) throw await refuse();
    },
  };
}
