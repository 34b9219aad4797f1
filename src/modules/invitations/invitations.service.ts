import type { Tx } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import { addMs } from '../../kernel/clock.js';
import { AppError, conflict, forbidden, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { iso } from '../../kernel/time.js';
import type { Role } from '../identity/index.js';
import type { InvitationsDeps } from './invitations.deps.js';
import type { InvitationRow } from './invitations.repository.js';
import { hashToken, INVITATION_TTL_MS, invitationLink, invitationMail, invitationState, isTokenShaped, newToken, normalizeEmail } from './invitations.rules.js';
import { invitationView } from './invitations.views.js';

export type InvitationsService = ReturnType<typeof createInvitationsService>;

const gone = (): AppError => new AppError('invitation_expired', 'This invitation was used, revoked or replaced, or has expired');

/**
 * Invitations to a workspace (contract 26.4). An admin invites an e-mail with a role; the invitation holds a seat
 * while pending and mails a single-use link. The link's token (32 random bytes) is stored only as its sha256; a
 * resend replaces it and restarts the 7 days. Accepting makes the membership, for the signed-in account of that
 * e-mail, or for an account created through the link (also with public sign-up off).
 */
export function createInvitationsService(deps: InvitationsDeps) {
  const { db, repo, clock, identity, planGate, mail, notifier } = deps;

  /** Queues the invitation's mail with its link in `tx`. */
  async function sendMail(tx: Tx, row: InvitationRow, token: string, inviterId: string, existingUserId: string | null) {
    const workspace = await repo.workspace(tx, row.workspace_id);
    const inviter = await repo.user(tx, inviterId);
    const content = invitationMail({
      workspace,
      inviter: inviter?.display_name ?? null,
      role: row.role,
      link: invitationLink(deps.publicBaseUrl, token),
      expiresAt: row.expires_at,
      hasAccount: existingUserId !== null,
    });
    await mail.enqueue(tx, { to: row.email, ...content, category: 'invitation', userId: existingUserId, workspaceId: row.workspace_id });
    return workspace;
  }

  /** The invitation of a token that is still pending: 404 for an unknown token, 410 for a used, revoked, replaced or expired one. */
  async function pendingByToken(tx: Tx, token: string, lock: boolean) {
    if (!isTokenShaped(token)) throw notFound('Invitation');
    const hash = hashToken(token);
    const row = await repo.findByTokenHash(tx, hash, lock);
    if (!row) {
      if (await repo.isRetiredToken(tx, hash)) throw gone();
      throw notFound('Invitation');
    }
    if (invitationState(row, clock.now()) !== 'pending') throw gone();
    return row;
  }

  return {
    async create(actor: Actor, slug: string, input: { email: string; role: Role }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        const email = normalizeEmail(input.email);
        const now = clock.now();
        const existing = await identity.findUserByEmail(tx, email);
        if (existing && (await identity.findMembership(tx, ws.workspaceId, existing.id))) throw conflict('This e-mail is already a member of the workspace');
        const open = await repo.findOpenByEmail(tx, ws.workspaceId, email);
        if (open && invitationState(open, now) === 'pending') throw conflict('This e-mail has a pending invitation; resend or revoke it');
        // An expired one holds no seat and blocks nothing: the new invitation takes its place.
        if (open) await repo.revoke(tx, ws.workspaceId, open.id, now);
        await planGate.assertCanAddMember(tx, ws.workspaceId);
        const { token, hash } = newToken();
        const row = await repo.insert(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          email,
          role: input.role,
          token_hash: hash,
          invited_by: actor.userId,
          created_at: now,
          expires_at: addMs(now, INVITATION_TTL_MS),
        });
        if (!row) throw conflict('This e-mail has a pending invitation; resend or revoke it');
        const workspace = await sendMail(tx, row, token, actor.userId, existing?.id ?? null);
        if (existing) {
          await notifier.notify(tx, [
            {
              workspaceId: ws.workspaceId,
              userId: existing.id,
              issueId: null,
              kind: 'invited',
              actorId: actor.userId,
              data: { workspace: { name: workspace.name, slug: workspace.slug }, role: row.role, invitation_id: row.id },
            },
          ]);
        }
        return invitationView(row);
      });
    },

    async list(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'manage');
      return (await repo.listPending(db, ws.workspaceId, clock.now())).map(invitationView);
    },

    /** Revokes a pending or expired invitation; an accepted or revoked one is no longer there (404). */
    async revoke(actor: Actor, slug: string, invitationId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        const row = await repo.find(tx, ws.workspaceId, invitationId);
        if (!row || row.accepted_at || row.revoked_at) throw notFound('Invitation');
        await repo.revoke(tx, ws.workspaceId, row.id, clock.now());
      });
    },

    /** A new token and a new mail; the old token dies (410) and the 7 days start again. */
    async resend(actor: Actor, slug: string, invitationId: string) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        const row = await repo.find(tx, ws.workspaceId, invitationId);
        if (!row || row.accepted_at || row.revoked_at) throw notFound('Invitation');
        const now = clock.now();
        // An expired invitation held no seat: sending it again takes one.
        if (invitationState(row, now) === 'expired') await planGate.assertCanAddMember(tx, ws.workspaceId);
        const { token, hash } = newToken();
        const oldHash = await repo.tokenHashOf(tx, ws.workspaceId, row.id);
        const updated = await repo.replaceToken(tx, ws.workspaceId, row.id, oldHash, hash, addMs(now, INVITATION_TTL_MS), now);
        const existing = await identity.findUserByEmail(tx, row.email);
        await sendMail(tx, updated, token, actor.userId, existing?.id ?? null);
        return invitationView(updated);
      });
    },

    /** What the link shows before signing in. */
    async preview(token: string) {
      return db.transaction().execute(async (tx) => {
        const row = await pendingByToken(tx, token, false);
        return { workspace: { name: row.workspace_name, slug: row.workspace_slug }, email: row.email, role: row.role, expires_at: iso(row.expires_at) };
      });
    },

    /** The caller of the accept route, when it sent a token (a token that is unknown, expired or revoked: 401). */
    async actorOfToken(token: string): Promise<Actor> {
      const actor = await identity.resolveToken(token);
      if (!actor) throw new AppError('unauthenticated', 'The token is unknown, expired or revoked');
      return actor;
    },

    /**
     * Accepts the invitation of a token, in one transaction with the invitation locked (two concurrent accepts make
     * one membership). Signed in: as the invited e-mail (any case) → 200 and the membership; another account: 403.
     * Not signed in with `{password, display_name}`: the account for the invited e-mail is created → 201
     * `{user, token, membership}`; an account that exists already must sign in (409); without them: 401.
     */
    async accept(
      actor: Actor | null,
      token: string,
      body: { password?: string; display_name?: string } | undefined,
    ): Promise<
      | { status: 200; body: Awaited<ReturnType<typeof identity.addMembership>> }
      | { status: 201; body: Awaited<ReturnType<typeof identity.createAccount>> & { membership: Awaited<ReturnType<typeof identity.addMembership>> } }
    > {
      const signUp =
        !actor && body?.password !== undefined && body.display_name !== undefined ? { password: body.password, display_name: body.display_name } : null;
      if (!actor && !signUp) {
        // Say which is missing: a person without an account sends both, one with an account signs in.
        if (body?.password !== undefined || body?.display_name !== undefined) {
          throw new AppError('validation_failed', 'Send both password and display_name to create the account', [
            { path: body.password === undefined ? '/password' : '/display_name', message: 'is required to create the account' },
          ]);
        }
        throw new AppError('unauthenticated', 'Sign in as the invited e-mail, or send {password, display_name} to create the account');
      }
      // argon2 is slow: hashed before the transaction holds the invitation's lock.
      const passwordHash = signUp ? await identity.hashPassword(signUp.password) : null;
      return db.transaction().execute(async (tx) => {
        const row = await pendingByToken(tx, token, true);
        const now = clock.now();
        if (actor) {
          const user = await repo.user(tx, actor.userId);
          if (!user || normalizeEmail(user.email) !== row.email) throw forbidden('This invitation is for another e-mail address');
          // Added meanwhile by hand: the invitation is used up and the membership stays as it is.
          const membership =
            (await identity.findMembership(tx, row.workspace_id, user.id)) ?? (await identity.addMembership(tx, row.workspace_id, user.id, row.role));
          await repo.markAccepted(tx, row.workspace_id, row.id, user.id, now);
          return { status: 200 as const, body: membership };
        }
        if (await identity.findUserByEmail(tx, row.email)) throw conflict('An account with this e-mail exists: sign in and accept the invitation');
        const account = await identity.createAccount(tx, { email: row.email, display_name: signUp!.display_name, passwordHash: passwordHash! });
        const membership = await identity.addMembership(tx, row.workspace_id, account.user.id, row.role);
        await repo.markAccepted(tx, row.workspace_id, row.id, account.user.id, now);
        return { status: 201 as const, body: { ...account, membership } };
      });
    },
  };
}
