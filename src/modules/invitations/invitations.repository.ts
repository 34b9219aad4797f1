import type { Insertable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/schema.js';

export type InvitationsRepository = ReturnType<typeof invitationsRepository>;
export type InvitationRow = NonNullable<Awaited<ReturnType<InvitationsRepository['find']>>>;

const columns = ['id', 'workspace_id', 'email', 'role', 'invited_by', 'created_at', 'expires_at', 'accepted_at', 'accepted_by', 'revoked_at'] as const;

/** Invitations to workspaces (26.4): Kysely queries only. */
export function invitationsRepository() {
  return {
    /** Inserts an open invitation; undefined when the e-mail has one open already (the partial unique index). */
    insert(tx: Executor, row: Insertable<Database['invitations']>) {
      return tx
        .insertInto('invitations')
        .values(row)
        .onConflict((oc) => oc.columns(['workspace_id', 'email']).where('accepted_at', 'is', null).where('revoked_at', 'is', null).doNothing())
        .returning(columns)
        .executeTakeFirst();
    },

    find(tx: Executor, workspaceId: string, id: string) {
      return tx.selectFrom('invitations').select(columns).where('workspace_id', '=', workspaceId).where('id', '=', id).forUpdate().executeTakeFirst();
    },

    /** The open (not accepted, not revoked) invitation of this e-mail, expired or not. */
    findOpenByEmail(tx: Executor, workspaceId: string, email: string) {
      return tx
        .selectFrom('invitations')
        .select(columns)
        .where('workspace_id', '=', workspaceId)
        .where('email', '=', email)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .forUpdate()
        .executeTakeFirst();
    },

    listPending(tx: Executor, workspaceId: string, now: Date) {
      return tx
        .selectFrom('invitations')
        .select(columns)
        .where('workspace_id', '=', workspaceId)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
    },

    async revoke(tx: Executor, workspaceId: string, id: string, now: Date) {
      await tx.updateTable('invitations').set({ revoked_at: now }).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
    },

    /** A resend: the new token's hash and expiry; the old hash is kept as retired (it answers 410). */
    async replaceToken(tx: Executor, workspaceId: string, id: string, oldHash: string, newHash: string, expiresAt: Date, now: Date) {
      await tx.insertInto('invitation_retired_tokens').values({ token_hash: oldHash, workspace_id: workspaceId, invitation_id: id, retired_at: now }).execute();
      return tx
        .updateTable('invitations')
        .set({ token_hash: newHash, expires_at: expiresAt })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returning(columns)
        .executeTakeFirstOrThrow();
    },

    tokenHashOf(tx: Executor, workspaceId: string, id: string) {
      return tx
        .selectFrom('invitations')
        .select('token_hash')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
        .then((r) => r.token_hash);
    },

    /** The invitation of a token, locked (its accept runs once), with its workspace: a token names no workspace. */
    findByTokenHash(tx: Executor, tokenHash: string, lock: boolean) {
      let q = tx
        .selectFrom('invitations as i')
        .innerJoin('workspaces as w', 'w.id', 'i.workspace_id')
        .select([
          'i.id',
          'i.workspace_id',
          'i.email',
          'i.role',
          'i.expires_at',
          'i.accepted_at',
          'i.revoked_at',
          'w.name as workspace_name',
          'w.slug as workspace_slug',
        ])
        .where('i.token_hash', '=', tokenHash);
      if (lock) q = q.forUpdate('i');
      return q.executeTakeFirst();
    },

    /** Whether a resend replaced this token (410 rather than 404). */
    async isRetiredToken(tx: Executor, tokenHash: string) {
      return !!(await tx.selectFrom('invitation_retired_tokens').select('invitation_id').where('token_hash', '=', tokenHash).executeTakeFirst());
    },

    async markAccepted(tx: Executor, workspaceId: string, id: string, userId: string, now: Date) {
      await tx.updateTable('invitations').set({ accepted_at: now, accepted_by: userId }).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
    },

    /** The workspace's name and slug, for the mail and the token's preview. */
    workspace(tx: Executor, workspaceId: string) {
      return tx.selectFrom('workspaces').select(['name', 'slug']).where('id', '=', workspaceId).executeTakeFirstOrThrow();
    },

    /** The e-mail and name of a user (the inviter in the mail, the account that accepts). */
    user(tx: Executor, userId: string) {
      return tx.selectFrom('users').select(['id', 'email', 'display_name']).where('id', '=', userId).executeTakeFirst();
    },
  };
}
