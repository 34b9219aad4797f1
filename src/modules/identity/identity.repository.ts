import { sql } from 'kysely';
import type { Db, Executor } from '../../db/database.js';
import { prepared, queryBuilder as qb } from '../../db/prepared.js';
import type { Role } from './permissions.js';

export type IdentityRepository = ReturnType<typeof identityRepository>;

const userColumns = ['id', 'email', 'display_name', 'is_instance_admin', 'created_at'] as const;
const tokenColumns = ['id', 'name', 'prefix', 'kind', 'created_at', 'expires_at', 'last_used_at'] as const;

const activeToken = prepared(
  (tokenHash: string, now: Date) =>
    qb
      .selectFrom('api_tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select(['t.id', 't.user_id', 't.last_used_at', 'u.is_instance_admin'])
      .where('t.token_hash', '=', tokenHash)
      .where('t.revoked_at', 'is', null)
      .where((eb) => eb.or([eb('t.expires_at', 'is', null), eb('t.expires_at', '>', now)])),
  2,
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
export function identityRepository(db: Db) {
  return {
    /** Serialises "is this the first user?" across concurrent sign-ups. */
    async lockFirstUser(tx: Executor) {
      await sql`SELECT pg_advisory_xact_lock(hashtext('identity.first-user'))`.execute(tx);
    },

    async countUsers(tx: Executor = db) {
      const row = await tx.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return row.n;
    },

    async insertUser(
      tx: Executor,
      user: { id: string; email: string; display_name: string; password_hash: string; is_instance_admin: boolean; now: Date },
    ) {
      const { now, ...values } = user;
      return tx
        .insertInto('users')
        .values({ ...values, created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('email').doNothing())
        .returning(userColumns)
        .executeTakeFirst();
    },

    findUserById(id: string, tx: Executor = db) {
      return tx.selectFrom('users').select(userColumns).where('id', '=', id).executeTakeFirst();
    },

    findUserByEmail(email: string, tx: Executor = db) {
      return tx
        .selectFrom('users')
        .select([...userColumns, 'password_hash'])
        .where('email', '=', email)
        .executeTakeFirst();
    },

    setInstanceAdmin(userId: string, value: boolean, now: Date, tx: Executor = db) {
      return tx
        .updateTable('users')
        .set({ is_instance_admin: value, updated_at: now })
        .where('id', '=', userId)
        .returning(userColumns)
        .executeTakeFirst();
    },

    insertToken(
      token: {
        id: string;
        user_id: string;
        kind: 'session' | 'personal';
        name: string;
        token_hash: string;
        prefix: string;
        created_at: Date;
        expires_at: Date | null;
      },
      tx: Executor = db,
    ) {
      return tx.insertInto('api_tokens').values(token).returning(tokenColumns).executeTakeFirstOrThrow();
    },

    /** The live token with this hash, with its user (runs on every request: compiled once). */
    async findActiveToken(tokenHash: string, now: Date, tx: Executor = db) {
      return (await activeToken(tx, tokenHash, now))[0];
    },

    touchToken(id: string, now: Date, tx: Executor = db) {
      return tx.updateTable('api_tokens').set({ last_used_at: now }).where('id', '=', id).execute();
    },

    listPersonalTokens(userId: string, now: Date, tx: Executor = db) {
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

    async revokeToken(userId: string, tokenId: string, kind: 'session' | 'personal' | null, now: Date, tx: Executor = db) {
      let q = tx
        .updateTable('api_tokens')
        .set({ revoked_at: now })
        .where('id', '=', tokenId)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null);
      if (kind) q = q.where('kind', '=', kind);
      const result = await q.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** The caller's role in the workspace with this slug, or nothing when it does not exist or they are no member. */
    async findWorkspaceBySlug(slug: string, tx: Executor = db) {
      return tx.selectFrom('workspaces').select(['id', 'slug']).where('slug', '=', slug).executeTakeFirst();
    },

    async findMembershipBySlug(slug: string, userId: string, tx: Executor = db) {
      return (await membershipBySlug(tx, slug, userId))[0];
    },

    listMembers(workspaceId: string, tx: Executor = db) {
      return tx
        .selectFrom('workspace_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['m.user_id', 'u.email', 'u.display_name', 'm.role', 'm.created_at'])
        .where('m.workspace_id', '=', workspaceId)
        .orderBy('m.created_at')
        .orderBy('m.user_id')
        .execute();
    },

    findMember(workspaceId: string, userId: string, tx: Executor = db) {
      return tx
        .selectFrom('workspace_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['m.user_id', 'u.email', 'u.display_name', 'm.role', 'm.created_at'])
        .where('m.workspace_id', '=', workspaceId)
        .where('m.user_id', '=', userId)
        .executeTakeFirst();
    },

    async insertMember(tx: Executor, member: { workspace_id: string; user_id: string; role: Role; created_at: Date }) {
      const result = await tx
        .insertInto('workspace_members')
        .values(member)
        .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    updateMemberRole(tx: Executor, workspaceId: string, userId: string, role: Role) {
      return tx
        .updateTable('workspace_members')
        .set({ role })
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', userId)
        .execute();
    },

    deleteMember(tx: Executor, workspaceId: string, userId: string) {
      return tx
        .deleteFrom('workspace_members')
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', userId)
        .execute();
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
    async membersAmong(workspaceId: string, userIds: string[], tx: Executor = db) {
      if (userIds.length === 0) return [];
      const rows = await tx
        .selectFrom('workspace_members')
        .select('user_id')
        .where('workspace_id', '=', workspaceId)
        .where('user_id', 'in', userIds)
        .execute();
      return rows.map((r) => r.user_id);
    },
  };
}
