import { createHash } from 'node:crypto';
import { pipeline, Readable, Transform } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import type { Executor } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import { AppError, forbidden, invalid, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { issueView } from '../work-items/index.js';
import type { AttachmentsDeps } from './attachments.deps.js';
import { imageAndThumbnail } from './attachments.images.js';
import { createQuota, RESERVATION_TTL_MS, type Reservation } from './attachments.quota.js';
import type { AttachmentRow } from './attachments.repository.js';
import { contentDisposition, isRasterImage, PRESIGNED_TTL_S, sanitizeFilename, SCRIPTABLE_TYPES, sniffText } from './attachments.rules.js';
import { storageKeys } from './attachments.storage.js';
import { attachmentView, type AttachmentView } from './attachments.views.js';

export type AttachmentsService = ReturnType<typeof createAttachmentsService>;

/** Bytes of the file's start kept for detecting its type (file-type reads at most 4,100; text sniffing 4 KiB). */
const HEAD_BYTES = 8192;
/** A file of unknown length reserves space in steps of this as its bytes arrive. */
const RESERVE_STEP = 8 * 1_048_576;
/** A long upload refreshes its reservation's expiry this often. */
const TOUCH_EVERY_MS = 10 * 60_000;

/** Where an upload goes: checked (access, issue) before a byte of the body is read. */
export interface UploadTarget {
  actor: Actor;
  workspaceId: string;
  issueId: string;
}

/** One file on its way in: its stream, and what is known of it before its bytes. */
export interface IncomingFile {
  filename: string;
  stream: Readable;
  /** Its length, when the request tells (exact for the usual multipart body, `Upload-Length` for tus). */
  declaredBytes: number | null;
  commentId: string | null;
  /** Settles when the request's body is whole (the multipart closing delimiter read); a rejection discards the file. */
  bodyComplete: Promise<void>;
  /**
   * Space already reserved for this file (a tus upload reserves at creation): used instead of a new reservation, and
   * settled or released by `store` like its own.
   */
  reservation?: Reservation;
}

/** Attachments of issues and comments, the storage quota and the duties that clean up (contract 25). */
export function createAttachmentsService(deps: AttachmentsDeps) {
  const { db, repo, clock, identity, workItems, outbox, storage, maxFileBytes, metrics } = deps;
  const quota = createQuota(deps);
  const uploaded = metrics.counter('attachments_uploaded_total', 'Attachments stored, and uploads refused or failed', ['outcome']);
  const uploadedBytes = metrics.counter('attachments_uploaded_bytes_total', 'Bytes of attachments stored');

  async function issueOf(tx: Executor, workspaceId: string, projectId: string, issueId: string) {
    const issue = await workItems.findIssue(tx, workspaceId, issueId);
    if (issue.project_id !== projectId) throw notFound('Issue');
    return issue;
  }

  async function attachmentOf(tx: Executor, workspaceId: string, projectId: string, issueId: string, attachmentId: string): Promise<AttachmentRow> {
    await issueOf(tx, workspaceId, projectId, issueId);
    const row = await repo.findAttachment(tx, workspaceId, attachmentId);
    if (!row || row.issue_id !== issueId) throw notFound('Attachment');
    return row;
  }

  const tooLarge = (): AppError =>
    new AppError('file_too_large', `The file is larger than ${maxFileBytes / 1_048_576} MB, the most one upload may store (ATTACHMENT_MAX_MB)`);

  /** The content type from the bytes (25.1): magic numbers, then a sniff of text; what the client claims is ignored. */
  async function detectType(head: Buffer): Promise<string> {
    const magic = await fileTypeFromBuffer(head).catch(() => undefined);
    if (magic && magic.mime !== 'application/xml') return magic.mime;
    return sniffText(head) ?? magic?.mime ?? 'application/octet-stream';
  }

  /**
   * Streams the file to storage through a meter that hashes it, keeps its head, caps its size and reserves space as
   * its bytes cross what is reserved. Resolves once the whole file is stored; rejects (after removing whatever was
   * written) on a refusal, an abort or a failure.
   */
  async function streamToStorage(file: IncomingFile, key: string, reservation: Reservation) {
    const hash = createHash('sha256');
    const head: Buffer[] = [];
    let headBytes = 0;
    let bytes = 0;
    let touched = clock.now().getTime();
    const ensureReserved = async (needed: number) => {
      if (needed <= reservation.bytes) {
        if (clock.now().getTime() - touched > TOUCH_EVERY_MS) {
          touched = clock.now().getTime();
          await quota.touch(reservation, RESERVATION_TTL_MS.multipart);
        }
        return;
      }
      const step = Math.min(Math.max(needed, reservation.bytes + RESERVE_STEP), maxFileBytes) - reservation.bytes;
      try {
        await quota.grow(reservation, step, RESERVATION_TTL_MS.multipart);
      } catch (error) {
        // The step did not fit; the bytes actually here may.
        if (!(error instanceof AppError) || error.code !== 'storage_limit_reached' || step === needed - reservation.bytes) throw error;
        await quota.grow(reservation, needed - reservation.bytes, RESERVATION_TTL_MS.multipart);
      }
      touched = clock.now().getTime();
    };
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > maxFileBytes) return done(tooLarge());
        hash.update(chunk);
        if (headBytes < HEAD_BYTES) {
          head.push(chunk.subarray(0, HEAD_BYTES - headBytes));
          headBytes += Math.min(chunk.length, HEAD_BYTES - headBytes);
        }
        ensureReserved(bytes).then(() => done(null, chunk), done);
      },
    });
    // pipeline, not pipe: a file stream that fails or breaks off (a client gone) fails the meter, so `put` fails too
    // instead of waiting for the rest forever, also when it broke off before this point.
    const body = pipeline(file.stream, meter, () => undefined);
    // The bytes flow into the meter at once, but the storage may start reading it only later (a folder made, a
    // connection opened): a refusal in between (quota, size cap) must not be an 'error' event nobody listens to, which
    // would crash the process. `put` still fails with it: the stream is errored.
    meter.on('error', () => undefined);
    await storage.put(key, body, { contentType: 'application/octet-stream' });
    return { bytes, sha256: hash.digest('hex'), head: Buffer.concat(head) };
  }

  return {
    /** Checks the caller may upload to this issue (members and admins; guests read), before the body is read. */
    async beginUpload(actor: Actor, slug: string, projectId: string, issueId: string): Promise<UploadTarget> {
      const ws = await identity.access(actor, slug, 'write_items');
      await issueOf(db, ws.workspaceId, projectId, issueId);
      return { actor, workspaceId: ws.workspaceId, issueId };
    },

    /** The comment an upload names must be one of the issue's (404 otherwise). */
    async checkComment(target: UploadTarget, commentId: string): Promise<void> {
      await workItems.findComment(db, target.workspaceId, target.issueId, commentId);
    },

    /** The largest file one upload may store, in bytes. */
    maxFileBytes,

    /**
     * Stores one file as an attachment (25.1, 25.3, 25.5): space reserved first (402 before a byte is written when the
     * length is known), the bytes streamed to storage, the type read from them, the thumbnail of a raster image made,
     * then recorded with its event in one transaction. Anything that fails on the way leaves nothing stored.
     */
    async store(target: UploadTarget, file: IncomingFile): Promise<AttachmentView> {
      const { workspaceId } = target;
      const id = newId();
      const keys = storageKeys(workspaceId, id);
      if (file.declaredBytes !== null && file.declaredBytes > maxFileBytes) {
        uploaded.inc({ outcome: 'too_large' });
        throw tooLarge();
      }
      let reservation: Reservation;
      try {
        reservation = file.reservation ?? (await quota.reserve(workspaceId, file.declaredBytes ?? 0, keys.file, RESERVATION_TTL_MS.multipart));
      } catch (error) {
        uploaded.inc({ outcome: 'refused' });
        throw error;
      }
      let thumbnailStored = false;
      try {
        const written = await streamToStorage(file, keys.file, reservation);
        await file.bodyComplete;
        const contentType = await detectType(written.head);
        let image: { width: number; height: number } | null = null;
        let thumbnailBytes = 0;
        if (isRasterImage(contentType)) {
          const made = await imageAndThumbnail(await storage.get(keys.file));
          if (made) {
            image = { width: made.width, height: made.height };
            // The thumbnail counts in the quota: it is made only if it fits (an image at the limit has none).
            const extra = written.bytes + made.thumbnail.length - reservation.bytes;
            const fits =
              extra <= 0 ||
              (await quota.grow(reservation, extra, RESERVATION_TTL_MS.multipart).then(
                () => true,
                () => false,
              ));
            if (fits) {
              await storage.put(keys.thumbnail, Readable.from([made.thumbnail]), { contentType: 'image/webp' });
              thumbnailStored = true;
              thumbnailBytes = made.thumbnail.length;
            }
          }
        }
        const view = await db.transaction().execute(async (tx) => {
          await workItems.findIssue(tx, workspaceId, target.issueId); // 404 once the issue is gone
          if (file.commentId !== null) await workItems.findComment(tx, workspaceId, target.issueId, file.commentId);
          const row = await repo.insertAttachment(tx, {
            id,
            workspace_id: workspaceId,
            issue_id: target.issueId,
            comment_id: file.commentId,
            filename: sanitizeFilename(file.filename),
            content_type: contentType,
            size_bytes: written.bytes,
            sha256: written.sha256,
            storage_key: keys.file,
            image_width: image?.width ?? null,
            image_height: image?.height ?? null,
            thumbnail_key: thumbnailStored ? keys.thumbnail : null,
            thumbnail_bytes: thumbnailBytes,
            created_by: target.actor.userId,
            created_at: clock.now(),
          });
          await quota.settle(tx, reservation, written.bytes + thumbnailBytes);
          const attachment = attachmentView(row);
          // The issue as it is now, its attachment_count counting this file.
          const issue = await workItems.findIssue(tx, workspaceId, target.issueId);
          await outbox.record(tx, { workspaceId, type: 'attachment.created', data: { attachment, issue: issueView(issue) } });
          return attachment;
        });
        uploaded.inc({ outcome: 'stored' });
        uploadedBytes.inc({}, written.bytes);
        return view;
      } catch (error) {
        uploaded.inc({ outcome: error instanceof AppError && error.status === 402 ? 'refused' : 'failed' });
        await Promise.allSettled([storage.delete(keys.file), thumbnailStored ? storage.delete(keys.thumbnail) : Promise.resolve()]);
        await quota.release(reservation);
        throw error;
      }
    },

    /** An issue's attachments with those of its comments, newest first. */
    async list(actor: Actor, slug: string, projectId: string, issueId: string): Promise<AttachmentView[]> {
      const ws = await identity.access(actor, slug, 'read');
      await issueOf(db, ws.workspaceId, projectId, issueId);
      return (await repo.listOfIssue(db, ws.workspaceId, issueId)).map(attachmentView);
    },

    async get(actor: Actor, slug: string, projectId: string, issueId: string, attachmentId: string): Promise<AttachmentView> {
      const ws = await identity.access(actor, slug, 'read');
      return attachmentView(await attachmentOf(db, ws.workspaceId, projectId, issueId, attachmentId));
    },

    /**
     * What a download needs (25.1, 25.2): the record, the headers that keep it safe, and either a presigned URL (S3)
     * or the way to open its bytes. `thumbnail`: the WebP thumbnail instead (404 when the file has none).
     */
    async download(actor: Actor, slug: string, projectId: string, issueId: string, attachmentId: string, thumbnail = false) {
      const ws = await identity.access(actor, slug, 'read');
      const row = await attachmentOf(db, ws.workspaceId, projectId, issueId, attachmentId);
      if (thumbnail && row.thumbnail_key === null) throw notFound('Thumbnail');
      const key = thumbnail ? (row.thumbnail_key as string) : row.storage_key;
      const contentType = thumbnail ? 'image/webp' : row.content_type;
      const filename = thumbnail ? `${row.filename}.thumbnail.webp` : row.filename;
      // Scriptable types are a download whatever the rule for images says (contentDisposition inlines raster only).
      const disposition = contentDisposition(SCRIPTABLE_TYPES.has(contentType) ? 'application/octet-stream' : contentType, filename);
      const size = thumbnail ? Number(row.thumbnail_bytes) : Number(row.size_bytes);
      const etag = `"${row.sha256}${thumbnail ? '-thumb' : ''}"`;
      const redirect = await storage.presignedGet(key, { contentType, disposition, expiresInS: PRESIGNED_TTL_S });
      return {
        contentType,
        disposition,
        size,
        etag,
        redirect,
        open: (range?: { start: number; end: number }) => storage.get(key, range),
      };
    },

    /** Removes an attachment (its uploader or an admin): the space is free at once, the files go by the duty. */
    async remove(actor: Actor, slug: string, projectId: string, issueId: string, attachmentId: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'read', tx);
        const row = await attachmentOf(tx, ws.workspaceId, projectId, issueId, attachmentId);
        if (row.created_by !== actor.userId)
          await identity.access(actor, slug, 'manage', tx).catch(() => Promise.reject(forbidden('Only the uploader or an admin may delete an attachment')));
        // The row first, then (its trigger freeing the space) the counters: the order of a cascade from a comment, an
        // issue or a workspace. Locking the counters first would deadlock with such a cascade over the same row.
        const deleted = await repo.deleteAttachment(tx, ws.workspaceId, attachmentId);
        if (!deleted) throw notFound('Attachment');
        const issue = await workItems.findIssue(tx, ws.workspaceId, issueId);
        await outbox.record(tx, {
          workspaceId: ws.workspaceId,
          type: 'attachment.deleted',
          data: { attachment: attachmentView(deleted), issue: issueView(issue) },
        });
      });
    },

    /** For the work-item core: the attachments of these comments, by comment (one query per comment list). */
    async commentAttachments(tx: Executor, workspaceId: string, commentIds: string[]): Promise<Map<string, AttachmentView[]>> {
      const byComment = new Map<string, AttachmentView[]>();
      for (const row of await repo.listOfComments(tx, workspaceId, commentIds)) {
        const list = byComment.get(row.comment_id as string) ?? [];
        list.push(attachmentView(row));
        byComment.set(row.comment_id as string, list);
      }
      return byComment;
    },

    /** The workspace's stored and reserved bytes (the limits answer, 25.3). */
    async usage(tx: Executor, workspaceId: string) {
      const usage = await quota.usage(tx, workspaceId);
      return { storage_used_bytes: usage.used_bytes, storage_reserved_bytes: usage.reserved_bytes };
    },

    /** The quota, for resumable uploads (tus) that reserve at creation and settle at the end. */
    quota,

    /**
     * The storage duty (every 10 s): removes the files of deleted attachments, issues, comments and workspaces, and
     * frees the space and partial files of uploads abandoned past their reservation's expiry. Each row is claimed by
     * one instance (SKIP LOCKED); a file that is already gone is fine, so a crash between the two steps repeats
     * harmlessly.
     */
    async runStorageDuty(batch = 100): Promise<{ deleted: number; expired: number }> {
      let deleted = 0;
      let expired = 0;
      for (;;) {
        const done = await db.transaction().execute(async (tx) => {
          const rows = await repo.claimDeletions(tx, batch);
          await Promise.all(rows.map((r) => storage.delete(r.storage_key)));
          await repo.deleteDeletions(
            tx,
            rows.map((r) => r.id),
          );
          return rows.length;
        });
        deleted += done;
        if (done < batch) break;
      }
      // The counters of deleted workspaces, once nothing of theirs is left to remove or settle (migration 1093).
      await repo.deleteOrphanUsage(db);
      for (;;) {
        const done = await db.transaction().execute(async (tx) => {
          const rows = await repo.claimExpiredReservations(tx, clock.now(), batch);
          for (const r of rows) {
            await repo.lockUsage(tx, r.workspace_id);
            const held = await repo.deleteReservation(tx, r.workspace_id, r.id);
            if (held) await repo.addUsage(tx, r.workspace_id, { used: 0, reserved: -held });
            await repo.queueDeletion(tx, r.workspace_id, r.storage_key);
          }
          return rows.length;
        });
        expired += done;
        if (done < batch) break;
      }
      return { deleted, expired };
    },
  };
}

/** A comment id of a multipart field, checked as a UUID (400 otherwise). */
export function commentIdOf(value: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw invalid('/comment_id', 'must be a UUID');
  return value.toLowerCase();
}
