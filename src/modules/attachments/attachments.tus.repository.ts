import type { Insertable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { TusUploadsTable } from '../../db/tables/attachments.js';

export type TusUploadsRepository = ReturnType<typeof tusUploadsRepository>;
export type TusUploadRow = Awaited<ReturnType<TusUploadsRepository['findUpload']>> & object;

/** The SQL of resumable (tus) uploads under way (contract 25.4), and nothing else. */
export function tusUploadsRepository() {
  return {
    async insertUpload(tx: Executor, row: Insertable<TusUploadsTable>) {
      await tx.insertInto('tus_uploads').values(row).execute();
    },

    /** An upload with its reservation (the space it holds and until when); none once the reservation is gone. */
    async findUpload(tx: Executor, workspaceId: string, uploadId: string) {
      const row = await tx
        .selectFrom('tus_uploads as u')
        .innerJoin('storage_reservations as r', (join) => join.onRef('r.workspace_id', '=', 'u.workspace_id').onRef('r.id', '=', 'u.reservation_id'))
        .select([
          'u.id',
          'u.workspace_id',
          'u.issue_id',
          'u.comment_id',
          'u.reservation_id',
          'u.storage_key',
          'u.filename',
          'u.upload_length',
          'u.created_by',
          'u.finishing_at',
          'r.bytes as reserved_bytes',
          'r.expires_at',
        ])
        .where('u.workspace_id', '=', workspaceId)
        .where('u.id', '=', uploadId)
        .executeTakeFirst();
      return row && { ...row, upload_length: Number(row.upload_length), reserved_bytes: Number(row.reserved_bytes) };
    },

    /** Marks the upload as being turned into an attachment; false when another request does it already. */
    async claimFinish(tx: Executor, workspaceId: string, uploadId: string, at: Date): Promise<boolean> {
      const row = await tx
        .updateTable('tus_uploads')
        .set({ finishing_at: at })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', uploadId)
        .where('finishing_at', 'is', null)
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Queues a stored file for the storage duty (a tus copy whose removal failed after it became an attachment). */
    async queueDeletion(tx: Executor, workspaceId: string, storageKey: string) {
      await tx.insertInto('storage_deletions').values({ workspace_id: workspaceId, storage_key: storageKey }).execute();
    },
  };
}
