import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { AttachmentsTable } from '../../db/tables/attachments.js';
import type { Insertable } from 'kysely';

export type AttachmentsRepository = ReturnType<typeof attachmentsRepository>;
export type AttachmentRow = Awaited<ReturnType<AttachmentsRepository['findAttachment']>> & object;

const ATTACHMENT_COLUMNS = [
  'id',
  'workspace_id',
  'issue_id',
  'comment_id',
  'filename',
  'content_type',
  'size_bytes',
  'sha256',
  'storage_key',
  'image_width',
  'image_height',
  'thumbnail_key',
  'thumbnail_bytes',
  'created_by',
  'created_at',
] as const;

/** The SQL of attachments and the storage quota (contract 25), and nothing else. */
export function attachmentsRepository() {
  return {
    async insertAttachment(tx: Executor, row: Insertable<AttachmentsTable>) {
      return tx.insertInto('attachments').values(row).returning(ATTACHMENT_COLUMNS).executeTakeFirstOrThrow();
    },

    async findAttachment(tx: Executor, workspaceId: string, attachmentId: string) {
      return tx.selectFrom('attachments').select(ATTACHMENT_COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', attachmentId).executeTakeFirst();
    },

    /** An issue's attachments with those of its comments, newest first. */
    async listOfIssue(tx: Executor, workspaceId: string, issueId: string) {
      return tx
        .selectFrom('attachments')
        .select(ATTACHMENT_COLUMNS)
        .where('workspace_id', '=', workspaceId)
        .where('issue_id', '=', issueId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
    },

    /** The attachments of these comments, oldest first (as a comment shows them). */
    async listOfComments(tx: Executor, workspaceId: string, commentIds: string[]) {
      if (commentIds.length === 0) return [];
      return tx
        .selectFrom('attachments')
        .select(ATTACHMENT_COLUMNS)
        .where('workspace_id', '=', workspaceId)
        .where('comment_id', 'in', commentIds)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    /** Removes the record; its stored files are queued for the deletion duty by the table's trigger (migration 1093). */
    async deleteAttachment(tx: Executor, workspaceId: string, attachmentId: string) {
      return tx
        .deleteFrom('attachments')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', attachmentId)
        .returning(ATTACHMENT_COLUMNS)
        .executeTakeFirst();
    },

    /** The workspace's counters, locked for the rest of the transaction (the row is made on first use). */
    async lockUsage(tx: Executor, workspaceId: string): Promise<{ used_bytes: number; reserved_bytes: number }> {
      await tx
        .insertInto('storage_usage')
        .values({ workspace_id: workspaceId })
        .onConflict((oc) => oc.column('workspace_id').doNothing())
        .execute();
      const row = await tx
        .selectFrom('storage_usage')
        .select(['used_bytes', 'reserved_bytes'])
        .where('workspace_id', '=', workspaceId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      return { used_bytes: Number(row.used_bytes), reserved_bytes: Number(row.reserved_bytes) };
    },

    async usage(tx: Executor, workspaceId: string): Promise<{ used_bytes: number; reserved_bytes: number }> {
      const row = await tx.selectFrom('storage_usage').select(['used_bytes', 'reserved_bytes']).where('workspace_id', '=', workspaceId).executeTakeFirst();
      return { used_bytes: Number(row?.used_bytes ?? 0), reserved_bytes: Number(row?.reserved_bytes ?? 0) };
    },

    /** Moves bytes between the counters: `used` and `reserved` are deltas (the caller holds the row's lock). */
    async addUsage(tx: Executor, workspaceId: string, delta: { used: number; reserved: number }) {
      await tx
        .updateTable('storage_usage')
        .set({
          used_bytes: sql`used_bytes + ${delta.used}::bigint`,
          reserved_bytes: sql`reserved_bytes + ${delta.reserved}::bigint`,
        })
        .where('workspace_id', '=', workspaceId)
        .execute();
    },

    async insertReservation(tx: Executor, row: { id: string; workspace_id: string; bytes: number; storage_key: string; created_at: Date; expires_at: Date }) {
      await tx.insertInto('storage_reservations').values(row).execute();
    },

    /** Grows a reservation (the caller holds the usage lock and has checked the limit); false if it is gone. */
    async growReservation(tx: Executor, workspaceId: string, id: string, bytes: number, expiresAt: Date): Promise<boolean> {
      const row = await tx
        .updateTable('storage_reservations')
        .set({ bytes: sql`bytes + ${bytes}::bigint`, expires_at: expiresAt })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },

    async touchReservation(tx: Executor, workspaceId: string, id: string, expiresAt: Date) {
      await tx.updateTable('storage_reservations').set({ expires_at: expiresAt }).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
    },

    async findReservation(tx: Executor, workspaceId: string, id: string) {
      return tx
        .selectFrom('storage_reservations')
        .select(['id', 'bytes', 'storage_key', 'expires_at'])
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** Removes a reservation, answering the bytes it held, or null when the expiry duty took it already. */
    async deleteReservation(tx: Executor, workspaceId: string, id: string): Promise<number | null> {
      const row = await tx
        .deleteFrom('storage_reservations')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returning('bytes')
        .executeTakeFirst();
      return row ? Number(row.bytes) : null;
    },

    /** Reservations past their expiry, claimed (SKIP LOCKED: each taken by one instance). Across workspaces. */
    async claimExpiredReservations(tx: Executor, now: Date, limit: number) {
      return tx
        .selectFrom('storage_reservations')
        .select(['id', 'workspace_id', 'bytes', 'storage_key'])
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
    },

    /** Files to remove, claimed (SKIP LOCKED). Across workspaces: the duty works for all of them. */
    async claimDeletions(tx: Executor, limit: number) {
      return tx.selectFrom('storage_deletions').select(['id', 'workspace_id', 'storage_key']).orderBy('id').limit(limit).forUpdate().skipLocked().execute();
    },

    async queueDeletion(tx: Executor, workspaceId: string, storageKey: string) {
      await tx.insertInto('storage_deletions').values({ workspace_id: workspaceId, storage_key: storageKey }).execute();
    },

    async deleteDeletions(tx: Executor, ids: number[]) {
      if (ids.length > 0) await tx.deleteFrom('storage_deletions').where('id', 'in', ids).execute();
    },

    /** The counters of workspaces that no longer exist and have no reservation nor file left to remove. */
    async deleteOrphanUsage(tx: Executor): Promise<void> {
      await sql`DELETE FROM storage_usage u
        WHERE NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = u.workspace_id)
          AND NOT EXISTS (SELECT 1 FROM storage_reservations r WHERE r.workspace_id = u.workspace_id)
          AND NOT EXISTS (SELECT 1 FROM storage_deletions d WHERE d.workspace_id = u.workspace_id)`.execute(tx);
    },

    async setThumbnail(tx: Executor, workspaceId: string, attachmentId: string, key: string, bytes: number) {
      await tx
        .updateTable('attachments')
        .set({ thumbnail_key: key, thumbnail_bytes: bytes })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', attachmentId)
        .execute();
    },
  };
}
