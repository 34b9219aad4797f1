import { type Insertable, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { prepared, queryBuilder as qb } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { Role } from './permissions.js';

export type IdentityRepository = ReturnType<typeof identityRepository>;

const userColumns = ['id', 'email', 'display_name', 'is_instance_admin', 'time_zone', 'created_at'] as const;
const tokenColumns = ['id', 'name', 'prefix', 'kind', 'created_at', 'expires_at', 'last_used_at'] as const;

const activeToken = prepared(
  (tokenHash: string, now: Date, slug: string | null) =>
    qb
      .selectFrom('api_tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      // The membership of the workspace in the request's path, in the same round trip (null without one).
      .leftJoin('workspaces as w', (join) => join.on('w.slug', '=', slug))
      .leftJoin('workspace_members as m', (join) => join.onRef('m.workspace_id', '=', 'w.id').onRef('m.user_id', '=', 't.user_id'))
      .select(['t.id', 't.user_id', 't.last_used_at', 'u.is_instance_admin', 'm.workspace_id', 'm.role'])
      .where('t.token_hash', '=', tokenHash)
      .where('t.revoked_at', 'is', null)
      .where((eb) => eb.or([eb('t.expires_at', 'is', null), eb('t.expires_at', '>', now)])),
  3,
);

const membershipBySlug = prepared(
  (slug: string, userId: string) =>
    qb
      .selectFrom('workspaces as w')
      .innerJoin('workspace_members as m', 'm.workspace_id', 'w.id')
      .select(['w.id as workspace_id', 'w.slug', 'm.role'])
      .where('w.slug', '=', slug)
      .where('m.user_id', '=', userId),
  2,
);

/** Users, tokens and workspace memberships: Kysely queries only. */
export function identityRepository() {
  return {
    /** Serialises "is this the first user?" across concurrent sign-ups. */
    async lockFirstUser(tx: Executor) {
      await sql`SELECT pg_advisory_xact_lock(hashtext('identity.first-user'))`.execute(tx);
    },

    async countUsers(tx: Executor) {
      const row = await tx
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return row.n;
    },

    async insertUser(tx: Executor, user: Insertable<Database['users']>) {
      return tx
        .insertInto('users')
        .values(user)
        .onConflict((oc) => oc.column('email').doNothing())
        .returning(userColumns)
        .executeTakeFirst();
    },

    findUserById(tx: Executor, id: string) {
      return tx.selectFrom('users').select(userColumns).where('id', '=', id).executeTakeFirst();
    },

    findUserByEmail(tx: Executor, email: string) {
      return tx
        .selectFrom('users')
        .select([...userColumns, 'password_hash'])
        .where('email', '=', email)
        .executeTakeFirst();
    },

    /** `PATCH /api/users/me/`: the display name and time zone (26.3). */
    updateProfile(tx: Executor, userId: string, patch: { display_name?: string; time_zone?: string }, now: Date) {
      return tx
        .updateTable('users')
        .set({ ...patch, updated_at: now })
        .where('id', '=', userId)
        .returning(userColumns)
        .executeTakeFirst();
    },

    setInstanceAdmin(tx: Executor, userId: string, value: boolean, now: Date) {
      return tx.updateTable('users').set({ is_instance_admin: value, updated_at: now }).where('id', '=', userId).returning(userColumns).executeTakeFirst();
    },

    insertToken(tx: Executor, token: Insertable<Database['api_tokens']>) {
      return tx.insertInto('api_tokens').values(token).returning(tokenColumns).executeTakeFirstOrThrow();
    },

    /**
     * The live token with this hash, with its user and, given a slug, the user's membership of that workspace
     * (`workspace_id` and `role` null when none). Runs on every request: compiled once.
     */
    async findActiveToken(tx: Executor, tokenHash: string, now: Date, slug: string | null = null) {
      return (await activeToken(tx, tokenHash, now, slug))[0];
    },

    touchToken(tx: Executor, id: string, now: Date) {
      return tx.updateTable('api_tokens').set({ last_used_at: now }).where('id', '=', id).execute();
    },

    listPersonalTokens(tx: Executor, userId: string, now: Date) {
      return tx
        .selectFrom('api_tokens')
        .select(tokenColumns)
        .where('user_id', '=', userId)
        .where('kind', '=', 'personal')
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
    },

    setPasswordHash(tx: Executor, userId: string, passwordHash: string, now: Date) {
      return tx.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', userId).execute();
    },

    /** Revokes every live session token of the user (personal API tokens stay). */
    revokeSessions(tx: Executor, userId: string, now: Date) {
      return tx
        .updateTable('api_tokens')
        .set({ revoked_at: now })
        .where('user_id', '=', userId)
        .where('kind', '=', 'session')
        .where('revoked_at', 'is', null)
        .execute();
    },

    async revokeToken(tx: Executor, userId: string, tokenId: string, kind: 'session' | 'personal' | null, now: Date) {
      let q = tx.updateTable('api_tokens').set({ revoked_at: now }).where('id', '=', tokenId).where('user_id', '=', userId).where('revoked_at', 'is', null);
      if (kind) q = q.where('kind', '=', kind);
      const result = await q.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** The caller's role in the workspace with this slug, or nothing when it does not exist or they are no member. */
    async findWorkspaceBySlug(tx: Executor, slug: string) {
      return tx.selectFrom('workspaces').select(['id', 'slug']).where('slug', '=', slug).executeTakeFirst();
    },

    async findMembershipBySlug(tx: Executor, slug: string, userId: string) {
      return (await membershipBySlug(tx, slug, userId))[0];
    },

    listMembers(tx: Executor, workspaceId: string) {
      return tx
        .selectFrom('workspace_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['m.user_id', 'u.email', 'u.display_name', 'm.role', 'm.created_at'])
        .where('m.workspace_id', '=', workspaceId)
        .orderBy('m.created_at')
        .orderBy('m.user_id')
        .execute();
    },

    findMember(tx: Executor, workspaceId: string, userId: string) {
      return tx
        .selectFrom('workspace_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['m.user_id', 'u.email', 'u.display_name', 'm.role', 'm.created_at'])
        .where('m.workspace_id', '=', workspaceId)
        .where('m.user_id', '=', userId)
        .executeTakeFirst();
    },

    async insertMember(tx: Executor, member: Insertable<Database['workspace_members']>) {
      const result = await tx
        .insertInto('workspace_members')
        .values(member)
        .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    updateMemberRole(tx: Executor, workspaceId: string, userId: string, role: Role) {
      return tx.updateTable('workspace_members').set({ role }).where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
    },

    deleteMember(tx: Executor, workspaceId: string, userId: string) {
      return tx.deleteFrom('workspace_members').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
    },

    /** Locks the workspace's admin rows so that two demotions cannot both see "another admin is left". */
    async lockAdmins(tx: Executor, workspaceId: string) {
      const rows = await tx
        .selectFrom('workspace_members')
        .select('user_id')
        .where('workspace_id', '=', workspaceId)
        .where('role', '=', 'admin')
        .forUpdate()
        .execute();
      return rows.map((r) => r.user_id);
    },

    /** Which of these users are members of the workspace. */
    async membersAmong(tx: Executor, workspaceId: string, userIds: string[]) {
      if (userIds.length === 0) return [];
      const rows = await tx.selectFrom('workspace_members').select('user_id').where('workspace_id', '=', workspaceId).where('user_id', 'in', userIds).execute();
      return rows.map((r) => r.user_id);
    },
  };
}
