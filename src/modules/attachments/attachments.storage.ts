import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where the bytes of attachments live (contract 25.2). A key is made by the service from ids only
 * (`<workspace id>/<attachment id>`), never from user input. `local` keeps files in a folder; `s3` (attachments.s3.ts)
 * in any S3-compatible bucket.
 */
export interface FileStorage {
  readonly kind: 'local' | 's3';
  /**
   * Streams `body` to `key`. The file is visible under `key` only once the whole stream was written: a stream that
   * fails or is destroyed leaves nothing (a partial upload is removed, or never completed).
   */
  put(key: string, body: Readable, opts: { contentType: string }): Promise<void>;
  /** The bytes of `key`, whole or `start..end` (inclusive, as HTTP ranges count). */
  get(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /** Removes `key`; a key that is not there is not an error (the deletion duty may run twice). */
  delete(key: string): Promise<void>;
  /** True if `key` holds a file (tests and the deletion duty's checks). */
  exists(key: string): Promise<boolean>;
  /**
   * A URL that serves `key` with this type and disposition for `expiresInS` seconds without signing in (`s3`);
   * null where the service streams the bytes itself (`local`).
   */
  presignedGet(key: string, opts: { contentType: string; disposition: string; expiresInS: number }): Promise<string | null>;
}

const READ_CHUNK = 1_048_576;

/** The local folder (STORAGE=local, the default): `<dir>/<key>`, written to a temporary name and renamed when whole. */
export function localStorage(dir: string): FileStorage {
  const root = resolve(dir);
  const pathOf = (key: string): string => {
    const path = resolve(root, key);
    // Keys are made from ids, so this never fails; it keeps a bug from ever reaching outside the folder.
    if (!path.startsWith(root + sep)) throw new Error(`storage key outside the storage folder: ${key}`);
    return path;
  };
  let uploads = 0;

  return {
    kind: 'local',
    async put(key, body) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      const partial = `${path}.${process.pid}.${++uploads}.part`;
      try {
        await pipeline(body, createWriteStream(partial, { flags: 'wx' }));
        await rename(partial, path);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
    },
    async get(key, range) {
      const path = pathOf(key);
      await stat(path); // a missing file is an error here, not a stream that fails after the headers were sent
      // 1 MiB reads: a quarter of the syscalls and stream turns of the 64 KiB default (bench/attachments.ts, downloads).
      return createReadStream(path, { highWaterMark: READ_CHUNK, ...(range ? { start: range.start, end: range.end } : {}) });
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async exists(key) {
      return stat(pathOf(key)).then(
        () => true,
        () => false,
      );
    },
    async presignedGet() {
      return null;
    },
  };
}

/** The key of an attachment's bytes and of its thumbnail: ids only. */
export const storageKeys = (workspaceId: string, attachmentId: string) => ({
  file: `${workspaceId}/${attachmentId}`,
  thumbnail: `${workspaceId}/${attachmentId}.thumb.webp`,
});
