import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { IANAZone } from 'luxon';
import type { Db, Executor, Tx } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import type { AttemptLimiter } from '../../kernel/attempt-limiter.js';
import { addMs, type Clock, DAY_MS } from '../../kernel/clock.js';
import { AppError, conflict, forbidden, invalid, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { PlanGate } from '../../kernel/plan-gate.js';
import type { IdentityRepository } from './identity.repository.js';
import { type Permission, type Role, roleAllows } from './permissions.js';
import { memberView, tokenView, userView } from './identity.views.js';

export { userView };

export interface WorkspaceAccess {
  workspaceId: string;
  slug: string;
  userId: string;
  role: Role;
}

export interface IdentityDeps {
  db: Db;
  repo: IdentityRepository;
  clock: Clock;
  planGate: PlanGate<Tx>;
  allowSignup: boolean;
  sessionTtlDays: number;
  /** Failed sign-ins per e-mail and per client address; sign-ups per client address (contract section 3). */
  limiters: { signInByEmail: AttemptLimiter; signInByIp: AttemptLimiter; signUpByIp: AttemptLimiter };
}

const TOKEN_PREFIX = 'wis_';
const TOKEN_TOUCH_MS = 5 * 60_000;
// A real argon2id hash to verify against when the e-mail is unknown, so both paths take the same time.
const DUMMY_HASH = await hash('not-a-real-password');

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');
const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export type IdentityService = ReturnType<typeof createIdentityService>;

export function createIdentityService(deps: IdentityDeps) {
  const { db, repo, clock } = deps;
  const { signInByEmail, signInByIp, signUpByIp } = deps.limiters;

  async function issueToken(userId: string, kind: 'session' | 'personal', name: string, expiresAt: Date | null, tx: Executor = db) {
    const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const row = await repo.insertToken(tx, {
      id: newId(),
      user_id: userId,
      kind,
      name,
      token_hash: sha256(secret),
      prefix: secret.slice(0, TOKEN_PREFIX.length + 6),
      created_at: clock.now(),
      expires_at: expiresAt,
    });
    return { row, secret };
  }

  /** Inserts an account in `tx` (the first one is the instance admin); 409 when the e-mail has one. */
  async function insertAccount(tx: Tx, input: { email: string; display_name: string; passwordHash: string }) {
    await repo.lockFirstUser(tx);
    const first = (await repo.countUsers(tx)) === 0;
    const now = clock.now();
    const user = await repo.insertUser(tx, {
      id: newId(),
      email: normalizeEmail(input.email),
      display_name: input.display_name.trim(),
      password_hash: input.passwordHash,
      is_instance_admin: first,
      created_at: now,
      updated_at: now,
    });
    if (!user) throw conflict('A user with this e-mail already exists');
    return user;
  }

  async function createUser(input: { email: string; password: string; display_name: string }) {
    const passwordHash = await hash(input.password);
    return db.transaction().execute((tx) => insertAccount(tx, { ...input, passwordHash }));
  }

  async function access(actor: Actor, slug: string, permission: Permission, tx: Executor = db): Promise<WorkspaceAccess> {
    if (actor.isOperator) {
      const ws = await repo.findWorkspaceBySlug(tx, slug);
      if (!ws) throw notFound('Workspace');
      return { workspaceId: ws.id, slug: ws.slug, userId: actor.userId, role: 'admin' };
    }
    // The membership read with the token (same request, same slug) stands for this lookup.
    const membership =
      actor.membership?.slug === slug
        ? { workspace_id: actor.membership.workspaceId, slug, role: actor.membership.role as Role }
        : await repo.findMembershipBySlug(tx, slug, actor.userId);
    // Not a member looks exactly like "no such workspace": existence never leaks across workspaces.
    if (!membership) throw notFound('Workspace');
    if (!roleAllows(membership.role, permission)) throw forbidden();
    return { workspaceId: membership.workspace_id, slug: membership.slug, userId: actor.userId, role: membership.role };
  }

  return {
    createUser,
    access,

    async signUp(input: { email: string; password: string; display_name: string }, clientIp: string) {
      if (!deps.allowSignup) throw forbidden('Sign-up is turned off on this instance');
      await signUpByIp.assertAllowed(clientIp, 'sign-ups from this address');
      await signUpByIp.record(clientIp);
      const user = await createUser(input);
      const { secret } = await issueToken(user.id, 'session', 'session', addMs(clock.now(), deps.sessionTtlDays * DAY_MS));
      return { user: userView(user), token: secret };
    },

    async signIn(input: { email: string; password: string }, clientIp: string) {
      const email = normalizeEmail(input.email);
      await signInByEmail.assertAllowed(email, 'failed sign-ins for this e-mail');
      await signInByIp.assertAllowed(clientIp, 'failed sign-ins from this address');
      const user = await repo.findUserByEmail(db, email);
      const ok = await verify(user?.password_hash ?? DUMMY_HASH, input.password);
      if (!user || !ok) {
        await Promise.all([signInByEmail.record(email), signInByIp.record(clientIp)]);
        throw new AppError('unauthenticated', 'E-mail or password is wrong');
      }
      const { secret } = await issueToken(user.id, 'session', 'session', addMs(clock.now(), deps.sessionTtlDays * DAY_MS));
      const { password_hash: _, ...rest } = user;
      return { user: userView(rest), token: secret };
    },

    async signOut(actor: Actor) {
      await repo.revokeToken(db, actor.userId, actor.tokenId, null, clock.now());
    },

    async resolveToken(token: string, workspaceSlug?: string): Promise<Actor | null> {
      if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
      const now = clock.now();
      const row = await repo.findActiveToken(db, sha256(token), now, workspaceSlug ?? null);
      if (!row) return null;
      if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > TOKEN_TOUCH_MS) {
        await repo.touchToken(db, row.id, now);
      }
      const actor: Actor = { userId: row.user_id, tokenId: row.id, isInstanceAdmin: row.is_instance_admin };
      if (workspaceSlug !== undefined && row.workspace_id && row.role) {
        actor.membership = { slug: workspaceSlug, workspaceId: row.workspace_id, role: row.role };
      }
      return actor;
    },

    async me(actor: Actor) {
      const user = await repo.findUserById(db, actor.userId);
      if (!user) throw new AppError('unauthenticated', 'The user of this token no longer exists');
      return userView(user);
    },

    /** `PATCH /api/users/me/` (26.3): the display name and the IANA time zone (an unknown zone: 400). */
    async updateMe(actor: Actor, patch: { display_name?: string; time_zone?: string }) {
      if (patch.time_zone !== undefined && !IANAZone.isValidZone(patch.time_zone)) throw invalid('/time_zone', `Unknown time zone "${patch.time_zone}"`);
      const change = {
        ...(patch.display_name !== undefined ? { display_name: patch.display_name.trim() } : {}),
        ...(patch.time_zone !== undefined ? { time_zone: patch.time_zone } : {}),
      };
      const user = await repo.updateProfile(db, actor.userId, change, clock.now());
      if (!user) throw new AppError('unauthenticated', 'The user of this token no longer exists');
      return userView(user);
    },

    async listTokens(actor: Actor) {
      return (await repo.listPersonalTokens(db, actor.userId, clock.now())).map(tokenView);
    },

    async createToken(actor: Actor, input: { name: string; expires_in_days?: number }) {
      const expiresAt = input.expires_in_days ? addMs(clock.now(), input.expires_in_days * DAY_MS) : null;
      const { row, secret } = await issueToken(actor.userId, 'personal', input.name.trim(), expiresAt);
      return { ...tokenView(row), token: secret };
    },

    async deleteToken(actor: Actor, tokenId: string) {
      if (!(await repo.revokeToken(db, actor.userId, tokenId, 'personal', clock.now()))) throw notFound('API token');
    },

    async grantInstanceAdmin(email: string, value = true) {
      const user = await repo.findUserByEmail(db, normalizeEmail(email));
      if (!user) throw notFound('User');
      const updated = await repo.setInstanceAdmin(db, user.id, value, clock.now());
      return userView(updated!);
    },

    /** The creator of a workspace becomes its admin (called inside the workspace's creating transaction). */
    async addOwner(tx: Tx, workspaceId: string, userId: string) {
      await repo.insertMember(tx, { workspace_id: workspaceId, user_id: userId, role: 'admin', created_at: clock.now() });
    },

    // ---- accounts for invitations and password reset (contract 26.4, 26.5), inside the caller's transaction ----

    /** An argon2id hash of a password (slow: call it before opening a transaction). */
    hashPassword: (password: string): Promise<string> => hash(password),

    /** The account with this e-mail (any case), without its password hash. */
    async findUserByEmail(tx: Executor, email: string) {
      const user = await repo.findUserByEmail(tx, normalizeEmail(email));
      if (!user) return undefined;
      const { password_hash: _, ...rest } = user;
      return rest;
    },

    /** Creates an account and a session for it, as sign-up answers them (`{user, token}`), also with sign-up off. */
    async createAccount(tx: Tx, input: { email: string; display_name: string; passwordHash: string }) {
      const user = await insertAccount(tx, input);
      const { secret } = await issueToken(user.id, 'session', 'session', addMs(clock.now(), deps.sessionTtlDays * DAY_MS), tx);
      return { user: userView(user), token: secret };
    },

    /** Sets a new password and revokes every session of the user; personal API tokens stay. */
    async resetPassword(tx: Tx, userId: string, passwordHash: string) {
      const now = clock.now();
      await repo.setPasswordHash(tx, userId, passwordHash, now);
      await repo.revokeSessions(tx, userId, now);
    },

    /** The membership as the members routes show it, or undefined. */
    async findMembership(tx: Executor, workspaceId: string, userId: string) {
      const member = await repo.findMember(tx, workspaceId, userId);
      return member ? memberView(member) : undefined;
    },

    /** Adds a membership without asking the plan (an accepted invitation was counted while pending); 409 if one exists. */
    async addMembership(tx: Tx, workspaceId: string, userId: string, role: Role) {
      if (!(await repo.insertMember(tx, { workspace_id: workspaceId, user_id: userId, role, created_at: clock.now() }))) {
        throw conflict('This user is already a member');
      }
      return memberView((await repo.findMember(tx, workspaceId, userId))!);
    },

    /** Throws 400 unless every id is a member of the workspace. */
    async assertMembers(tx: Executor, workspaceId: string, userIds: string[], path: string) {
      const unique = [...new Set(userIds)];
      const found = new Set(await repo.membersAmong(tx, workspaceId, unique));
      const missing = unique.filter((id) => !found.has(id));
      if (missing.length) {
        throw new AppError('validation_failed', 'Assignees must be members of the workspace', [
          { path, message: `not a member of the workspace: ${missing.join(', ')}` },
        ]);
      }
    },

    async listMembers(actor: Actor, slug: string) {
      const ws = await access(actor, slug, 'read');
      return (await repo.listMembers(db, ws.workspaceId)).map(memberView);
    },

    async addMember(actor: Actor, slug: string, input: { email: string; role: Role }) {
      return db.transaction().execute(async (tx) => {
        const ws = await access(actor, slug, 'manage', tx);
        const user = await repo.findUserByEmail(tx, normalizeEmail(input.email));
        if (!user) throw notFound('User with this e-mail');
        if (await repo.findMember(tx, ws.workspaceId, user.id)) throw conflict('This user is already a member');
        await deps.planGate.assertCanAddMember(tx, ws.workspaceId);
        if (!(await repo.insertMember(tx, { workspace_id: ws.workspaceId, user_id: user.id, role: input.role, created_at: clock.now() }))) {
          throw conflict('This user is already a member');
        }
        return memberView((await repo.findMember(tx, ws.workspaceId, user.id))!);
      });
    },

    async updateMember(actor: Actor, slug: string, userId: string, input: { role: Role }) {
      return db.transaction().execute(async (tx) => {
        const ws = await access(actor, slug, 'manage', tx);
        const admins = await repo.lockAdmins(tx, ws.workspaceId);
        const member = await repo.findMember(tx, ws.workspaceId, userId);
        if (!member) throw notFound('Member');
        if (member.role === 'admin' && input.role !== 'admin' && admins.length <= 1) {
          throw conflict('The last admin of a workspace cannot be demoted');
        }
        await repo.updateMemberRole(tx, ws.workspaceId, userId, input.role);
        return memberView({ ...member, role: input.role });
      });
    },

    async removeMember(actor: Actor, slug: string, userId: string) {
      await db.transaction().execute(async (tx) => {
        // Leaving a workspace yourself needs no manage right.
        const ws = await access(actor, slug, userId === actor.userId ? 'read' : 'manage', tx);
        const admins = await repo.lockAdmins(tx, ws.workspaceId);
        const member = await repo.findMember(tx, ws.workspaceId, userId);
        if (!member) throw notFound('Member');
        if (member.role === 'admin' && admins.length <= 1) throw conflict('The last admin of a workspace cannot be removed');
        await repo.deleteMember(tx, ws.workspaceId, userId);
      });
    },
  };
}
