import { Metadata, Server } from '@tus/server';
import type { Db } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, conflict, forbidden, invalid, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { IdentityService } from '../identity/index.js';
import { RESERVATION_TTL_MS, type Reservation } from './attachments.quota.js';
import { sanitizeFilename } from './attachments.rules.js';
import { type AttachmentsService, commentIdOf, type UploadTarget } from './attachments.service.js';
import type { FileStorage } from './attachments.storage.js';
import type { TusUploadRow, TusUploadsRepository } from './attachments.tus.repository.js';
import { type TusStore, tusKey } from './attachments.tus.store.js';

/** The one version of tus spoken here. */
export const TUS_RESUMABLE = '1.0.0';

/**
 * A refusal of a tus request whose status the API's error codes do not have (412 for a tus version it does not speak,
 * 410 for an upload past its expiry): answered as problem+json like the others, with its headers.
 */
export class TusProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'TusProblem';
  }
}

export interface TusUploadsDeps {
  db: Db;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
  attachments: Pick<AttachmentsService, 'beginUpload' | 'checkComment' | 'store' | 'quota' | 'maxFileBytes'>;
  /** The configured storage: a finished upload is read from it (its tus key) to become an attachment. */
  storage: FileStorage;
  tus: TusStore;
  repo: TusUploadsRepository;
  log: { warn(details: object, message: string): void };
}

export type TusUploads = ReturnType<typeof createTusUploads>;

/** The path parameters of an upload's URL. */
export interface UploadPath {
  slug: string;
  projectId: string;
  issueId: string;
}

/** What one request hands to tus's hooks (tus passes the request object to them; a WeakMap ties the two). */
interface Context {
  /** The tus id of the upload: its storage key. */
  key: string;
  /** Creation: the upload's URL, tus's `Location`. */
  location?: string;
  /** What the upload becomes once its last byte is in (creation, PATCH). */
  finish?: { target: UploadTarget; uploadId: string; filename: string; commentId: string | null; reservation: Reservation };
  /** Set when the upload became this attachment. */
  attachmentId?: string;
  /** Why the upload could not become an attachment: answered instead of tus's answer. */
  error?: unknown;
}

/**
 * Resumable uploads (contract 25.4): the tus 1.0 protocol, core with the creation, termination and expiration
 * extensions, on `@tus/server` and its file or S3 store (attachments.tus.store.ts). The service does what tus does not:
 * who may upload (as the multipart upload: members and admins), to which issue or comment, the file's limit, and the
 * workspace's quota, reserved at creation from `Upload-Length` before a byte is stored; its reservation is refreshed
 * by every PATCH and lives 24 h after the last write. When the last byte is in, the file becomes an attachment through
 * the same `store` as a multipart upload (type from the bytes, thumbnail, the quota settled, `attachment.created`) and
 * tus's copy goes. An upload left unfinished has its reservation freed by the storage duty, which removes its tus files
 * (their storage key is the reservation's).
 */
export function createTusUploads(deps: TusUploadsDeps) {
  const { db, clock, identity, attachments, storage, tus, repo, log } = deps;
  const { quota } = attachments;
  const contexts = new WeakMap<object, Context>();
  const expiresAt = () => new Date(clock.now().getTime() + RESERVATION_TTL_MS.tus);

  /** Turns a finished upload into an attachment (tus's onUploadFinish): `Attachment-Id` goes with the last answer. */
  async function finish(req: object): Promise<{ headers: Record<string, string> }> {
    const ctx = contexts.get(req);
    const done = ctx?.finish;
    if (!ctx || !done) throw { status_code: 500, body: 'The upload has no context\n' };
    try {
      // One request turns it into an attachment: a repeated last PATCH (a client that timed out) meanwhile is refused.
      if (!(await repo.claimFinish(db, done.target.workspaceId, done.uploadId, clock.now()))) {
        throw conflict('The upload is being turned into an attachment by another request');
      }
    } catch (error) {
      ctx.error = error;
      throw { status_code: 409, body: 'The upload is being finished\n' };
    }
    let handedOver = false;
    try {
      const stream = await storage.get(ctx.key);
      handedOver = true;
      const view = await attachments.store(done.target, {
        filename: done.filename,
        stream,
        declaredBytes: done.reservation.bytes,
        commentId: done.commentId,
        bodyComplete: Promise.resolve(),
        reservation: done.reservation,
      });
      ctx.attachmentId = view.id;
    } catch (error) {
      // `store` released the reservation (the upload's row went with it) and removed what it had written; a copy that
      // could not be read never reached it.
      ctx.error = error;
      if (!handedOver) await quota.release(done.reservation).catch((err: unknown) => log.warn({ err, key: ctx.key }, 'tus upload: releasing failed'));
    }
    await removeCopy(done.target.workspaceId, ctx.key);
    if (ctx.error !== undefined) throw { status_code: 500, body: 'The upload could not be stored\n' };
    return { headers: { 'Attachment-Id': ctx.attachmentId as string } };
  }

  /** Removes tus's copy of an upload; when that fails, the storage duty is asked to. */
  async function removeCopy(workspaceId: string, key: string): Promise<void> {
    try {
      await tus.remove(key);
    } catch (error) {
      log.warn({ err: error, key }, 'tus upload: removing the finished copy failed; queued for the storage duty');
      await repo.queueDeletion(db, workspaceId, key).catch((err: unknown) => log.warn({ err, key }, 'tus upload: queueing its removal failed'));
    }
  }

  let server: Server | undefined;
  const tusServer = (): Server =>
    (server ??= new Server({
      // Never matched against a URL: the upload's id comes from the route (getFileIdFromRequest), its URL from ours.
      path: '/api/uploads',
      datastore: tus.datastore(),
      maxSize: attachments.maxFileBytes,
      namingFunction: (req) => (contexts.get(req) as Context).key,
      generateUrl: (req) => contexts.get(req)?.location ?? '',
      getFileIdFromRequest: (req) => contexts.get(req)?.key,
      onUploadFinish: (req) => finish(req),
    }));

  async function run(request: Request, ctx: Context): Promise<Response> {
    contexts.set(request, ctx);
    try {
      return await tusServer().handleWeb(request);
    } finally {
      contexts.delete(request);
    }
  }

  function requireResumable(request: Request): void {
    if (request.headers.get('tus-resumable') !== TUS_RESUMABLE) {
      throw new TusProblem(412, 'tus_version_unsupported', `Send "Tus-Resumable: ${TUS_RESUMABLE}", the version of tus this server speaks`, {
        'tus-version': TUS_RESUMABLE,
      });
    }
  }

  function metadataOf(request: Request): Record<string, string | null> {
    const header = request.headers.get('upload-metadata');
    if (header === null) return {};
    try {
      return Metadata.parse(header) as Record<string, string | null>;
    } catch {
      throw invalid('/Upload-Metadata', 'must be comma-separated pairs of a key and its base64 value, each key once');
    }
  }

  const reservationOf = (row: TusUploadRow): Reservation => ({ id: row.reservation_id, workspaceId: row.workspace_id, bytes: row.reserved_bytes });

  /** An upload of this issue, for its creator (or, to terminate it, an admin), before its reservation expired. */
  async function open(actor: Actor, path: UploadPath & { uploadId: string }, purpose: 'resume' | 'terminate') {
    const target = await attachments.beginUpload(actor, path.slug, path.projectId, path.issueId);
    const row = await repo.findUpload(db, target.workspaceId, path.uploadId);
    if (!row || row.issue_id !== path.issueId) throw notFound('Upload');
    if (row.created_by !== actor.userId) {
      if (purpose === 'resume') throw forbidden('Only the user who started an upload may continue it');
      await identity
        .access(actor, path.slug, 'manage')
        .catch(() => Promise.reject(forbidden('Only the user who started an upload or an admin may terminate it')));
    }
    // Past its expiry the duty is about to remove it (it runs every 10 s): gone already for the client.
    if (row.expires_at.getTime() <= clock.now().getTime()) {
      throw new TusProblem(410, 'upload_expired', 'The upload was left unfinished for 24 hours and is removed; start it again');
    }
    return { target, row };
  }

  return {
    /** tus discovery (OPTIONS): the version, extensions and largest upload. */
    options: (request: Request): Promise<Response> => run(request, { key: '' }),

    /**
     * Creation (POST): checks, reserves `Upload-Length` (402 before a byte is stored) and creates the upload; with a
     * body (creation-with-upload) tus writes it at once, and an upload whole at once becomes an attachment at once.
     */
    async create(actor: Actor, path: UploadPath, request: Request): Promise<Response> {
      requireResumable(request);
      const target = await attachments.beginUpload(actor, path.slug, path.projectId, path.issueId);
      const headers = request.headers;
      if (headers.has('upload-defer-length')) throw invalid('/Upload-Defer-Length', 'A deferred length is not supported here: send Upload-Length');
      if (headers.has('upload-concat')) throw invalid('/Upload-Concat', 'Concatenation is not supported here: send the file as one upload');
      const lengthHeader = headers.get('upload-length');
      if (lengthHeader === null || !/^\d{1,16}$/.test(lengthHeader)) throw invalid('/Upload-Length', 'must be the length of the file in bytes');
      const length = Number(lengthHeader);
      if (length > attachments.maxFileBytes) {
        throw new AppError(
          'file_too_large',
          `The file is larger than ${attachments.maxFileBytes / 1_048_576} MB, the most one upload may store (ATTACHMENT_MAX_MB)`,
        );
      }
      const metadata = metadataOf(request);
      // Cleaned as `store` cleans it (a path, controls, NUL: the row keeps it as text until then).
      const filename = sanitizeFilename(metadata.filename ?? metadata.name ?? '');
      let commentId: string | null = null;
      if (metadata.comment_id !== undefined) {
        commentId = commentIdOf(metadata.comment_id ?? '');
        await attachments.checkComment(target, commentId);
      }
      const uploadId = newId();
      const key = tusKey(target.workspaceId, uploadId);
      const reservation = await quota.reserve(target.workspaceId, length, key, RESERVATION_TTL_MS.tus);
      const abandon = async () => {
        await tus.remove(key).catch((err: unknown) => log.warn({ err, key }, 'tus upload: removing a refused creation failed'));
        await quota.release(reservation);
      };
      let response: Response;
      const ctx: Context = {
        key,
        location: `/api/workspaces/${encodeURIComponent(path.slug)}/projects/${path.projectId}/issues/${path.issueId}/uploads/${uploadId}/`,
        finish: { target, uploadId, filename, commentId, reservation },
      };
      try {
        await repo.insertUpload(db, {
          id: uploadId,
          workspace_id: target.workspaceId,
          issue_id: path.issueId,
          comment_id: commentId,
          reservation_id: reservation.id,
          storage_key: key,
          filename,
          upload_length: length,
          created_by: actor.userId,
          created_at: clock.now(),
        });
        response = await run(request, ctx);
      } catch (error) {
        await abandon();
        throw error;
      }
      if (ctx.error !== undefined) throw ctx.error;
      if (response.status !== 201) {
        if (ctx.attachmentId === undefined) await abandon();
        return response;
      }
      if (ctx.attachmentId === undefined) {
        if (response.headers.has('upload-offset')) await quota.touch(reservation, RESERVATION_TTL_MS.tus);
        response.headers.set('upload-expires', expiresAt().toUTCString());
      }
      return response;
    },

    /** The offset (HEAD): where to resume. */
    async head(actor: Actor, path: UploadPath & { uploadId: string }, request: Request): Promise<Response> {
      requireResumable(request);
      const { row } = await open(actor, path, 'resume');
      const response = await run(request, { key: row.storage_key });
      if (response.ok && row.finishing_at === null) response.headers.set('upload-expires', row.expires_at.toUTCString());
      return response;
    },

    /** The next bytes (PATCH) at `Upload-Offset`; the last ones make the attachment (its id in `Attachment-Id`). */
    async patch(actor: Actor, path: UploadPath & { uploadId: string }, request: Request): Promise<Response> {
      requireResumable(request);
      const { target, row } = await open(actor, path, 'resume');
      if (request.headers.get('content-type') !== 'application/offset+octet-stream') {
        throw new AppError('unsupported_media_type', 'Send the bytes as application/offset+octet-stream');
      }
      const offset = request.headers.get('upload-offset');
      if (offset === null || !/^\d{1,16}$/.test(offset)) throw invalid('/Upload-Offset', 'must be the offset of these bytes in the file (HEAD tells it)');
      if (row.finishing_at !== null) throw conflict('The upload is whole and being turned into an attachment');
      const reservation = reservationOf(row);
      await quota.touch(reservation, RESERVATION_TTL_MS.tus);
      const ctx: Context = {
        key: row.storage_key,
        finish: { target, uploadId: row.id, filename: row.filename, commentId: row.comment_id, reservation },
      };
      const response = await run(request, ctx);
      if (ctx.error !== undefined) throw ctx.error;
      if (ctx.attachmentId === undefined) {
        // 24 h after the last write, whether this PATCH completed or was cut short.
        await quota.touch(reservation, RESERVATION_TTL_MS.tus);
        if (response.ok) response.headers.set('upload-expires', expiresAt().toUTCString());
      }
      return response;
    },

    /** Termination (DELETE): tus removes the bytes, then the reserved space is free. */
    async terminate(actor: Actor, path: UploadPath & { uploadId: string }, request: Request): Promise<Response> {
      requireResumable(request);
      const { row } = await open(actor, path, 'terminate');
      if (row.finishing_at !== null) throw conflict('The upload is whole and being turned into an attachment');
      const response = await run(request, { key: row.storage_key });
      if (response.status === 204) await quota.release(reservationOf(row));
      return response;
    },
  };
}
