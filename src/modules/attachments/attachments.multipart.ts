import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import { discardBody } from '../../http/body-guards.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { multipartBoundary, multipartFileBytes } from './attachments.rules.js';
import type { IncomingFile } from './attachments.service.js';

/** How far into the body the file part's headers may end for its length to be known up front. */
const PREFIX_SCAN_BYTES = 64 * 1024;

/**
 * Passes the body through, noting where the bytes of the part named `file` begin: the end of that part's headers.
 * With the body's length it tells the file's length before its bytes arrive (multipartFileBytes), so a file that
 * does not fit is refused before any of it is stored (25.3). Only the first 64 KiB are looked at.
 */
class FileStartScanner extends Transform {
  prefixBytes: number | null = null;
  private head = Buffer.alloc(0);
  private scanning = true;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.scanning) {
      this.head = Buffer.concat([this.head, chunk]);
      const name = this.head.indexOf('name="file"');
      const end = name >= 0 ? this.head.indexOf('\r\n\r\n', name) : -1;
      if (end >= 0) this.prefixBytes = end + 4;
      if (end >= 0 || this.head.length > PREFIX_SCAN_BYTES) {
        this.scanning = false;
        this.head = Buffer.alloc(0);
      }
    }
    done(null, chunk);
  }
}

/**
 * Reads a `multipart/form-data` upload (25.1) as a stream: the fields before the file (`comment_id`), then the part
 * named `file`, handed to `store` while its bytes still arrive (never held whole). Resolves with what `store`
 * answers; a refusal (402, 413, a bad field) stops reading, drops what is left of the body (bounded) and rethrows.
 */
export async function receiveUpload<T>(
  raw: IncomingMessage,
  headers: IncomingHttpHeaders,
  maxFileBytes: number,
  store: (file: IncomingFile) => Promise<T>,
  checkField: (name: string, value: string) => Promise<string | null>,
): Promise<T> {
  const boundary = multipartBoundary(headers['content-type']);
  if (boundary === null) throw new AppError('unsupported_media_type', 'Send the file as multipart/form-data with a boundary');
  const length = headers['content-length'] === undefined ? null : Number(headers['content-length']);
  const scanner = new FileStartScanner();
  let busboy: ReturnType<typeof Busboy>;
  try {
    busboy = Busboy({
      headers: headers as IncomingHttpHeaders & { 'content-type': string },
      defCharset: 'utf8',
      limits: { files: 1, fields: 4, parts: 5, fieldSize: 1024, headerPairs: 16, fileSize: maxFileBytes + 1 },
    });
  } catch {
    throw new AppError('unsupported_media_type', 'Send the file as multipart/form-data with a boundary');
  }

  let bodyDone!: () => void;
  let bodyFailed!: (error: Error) => void;
  const bodyComplete = new Promise<void>((resolve, reject) => {
    bodyDone = resolve;
    bodyFailed = reject;
  });
  bodyComplete.catch(() => undefined); // observed by `store` or below; never an unhandled rejection

  const fields = new Map<string, string>();
  let pending: Promise<string | null> = Promise.resolve(null);
  let stored: Promise<T> | null = null;
  // The file's stream, handed to `store`. Busboy does not end or fail it when the body breaks off (a client gone, a
  // malformed body): it is failed here, or `store` would wait for the rest of it forever, holding its reservation.
  let fileStream: Readable | null = null;
  // Why the body failed: the answer when `store` fails because of it (a 400, not the stream error it met, a 500).
  let bodyError: Error | null = null;
  const fail = (error: Error) => {
    bodyError ??= error;
    bodyFailed(error);
    if (fileStream && !fileStream.destroyed) fileStream.destroy(error);
  };

  const outcome = new Promise<T>((resolve, reject) => {
    busboy.on('field', (name, value) => {
      if (name === 'comment_id' && fileStream !== null) {
        // Too late: the file is on its way to storage as a file of the issue. Refused whatever the comment, and the
        // file discarded, rather than applied or ignored depending on how the body happened to arrive in chunks.
        const error = invalid('/comment_id', 'must be sent before the part "file"');
        fail(error);
        reject(error);
        return;
      }
      fields.set(name, value);
      pending = pending.then(() => checkField(name, value));
      pending.catch(reject);
    });
    busboy.on('file', (name, stream, filename) => {
      if (name !== 'file' || stored !== null) {
        stream.resume();
        return;
      }
      const declaredBytes = scanner.prefixBytes === null ? null : multipartFileBytes(length, scanner.prefixBytes, boundary);
      // The fields before the file are checked before a byte of it is stored.
      stream.pause();
      fileStream = stream;
      const commentId = fields.get('comment_id') ?? null;
      // Failed by `fail` maybe before `store` listens: never an 'error' event without a listener (a crash).
      stream.on('error', () => undefined);
      stored = pending.then(() => store({ filename, stream, declaredBytes, commentId, bodyComplete }));
      stored.then(resolve, (error: unknown) => reject(bodyError ?? error));
    });
    busboy.on('finish', () => {
      bodyDone();
      if (stored === null) reject(invalid('/file', 'A part named "file" with the file is required'));
    });
    busboy.on('error', () => {
      const error = invalid('', 'The multipart body is malformed or ended early');
      fail(error);
      if (stored === null) reject(error);
    });
    // A client that goes away mid-upload: the file's stream fails, so nothing of it is kept.
    raw.once('close', () => {
      if (!raw.complete) {
        const error = new AppError('validation_failed', 'The upload was aborted before its end');
        fail(error);
        busboy.destroy(error);
        reject(error);
      }
    });
  });

  raw.pipe(scanner).pipe(busboy);
  try {
    return await outcome;
  } catch (error) {
    raw.unpipe(scanner);
    scanner.unpipe(busboy);
    busboy.removeAllListeners('error');
    busboy.on('error', () => undefined);
    await discardBody(raw, length ?? 0);
    throw error;
  }
}
