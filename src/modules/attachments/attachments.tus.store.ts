import { rm } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { FileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import type { DataStore } from '@tus/server';
import type { StorageConfig } from '../../config/config.js';
import type { FileStorage } from './attachments.storage.js';
import { s3ClientConfig } from './attachments.s3.js';

/**
 * Where resumable (tus) uploads keep their bytes while they are under way (contract 25.4): beside the attachments, under
 * the storage key `tus/<workspace id>/<upload id>` (ids only, never user input). STORAGE=local: tus's FileStore in the
 * storage folder, so the file is `<dir>/tus/<workspace id>/<upload id>` and tus's info file the same name plus `.json`.
 * STORAGE=s3: tus's S3Store in the same bucket, an S3 multipart upload to that key (parts of at least 5 MiB; a smaller
 * tail waits in `<key>.part`) and tus's info object `<key>.info`.
 */
export const TUS_KEY_PREFIX = 'tus/';

export const tusKey = (workspaceId: string, uploadId: string): string => `${TUS_KEY_PREFIX}${workspaceId}/${uploadId}`;

/** What tus offers of the protocol here: no deferred length (the quota is reserved from `Upload-Length`), no concatenation. */
export const TUS_EXTENSIONS = ['creation', 'creation-with-upload', 'termination', 'expiration'];

export interface TusStore {
  /** The tus datastore, made on first use (the local one creates its folder then). */
  datastore(): DataStore;
  /**
   * Removes everything of an upload: its bytes, a finished object, tus's info and pending part, and on S3 the
   * multipart upload. A key that is partly or wholly gone is fine (the storage duty may run it twice).
   */
  remove(key: string): Promise<void>;
}

/** FileStore whose removal takes whatever is left of both files (FileStore's own stops at a missing data file). */
class LocalTusStore extends FileStore {
  override async remove(id: string): Promise<void> {
    const root = resolve(this.directory);
    const path = resolve(root, id);
    if (!path.startsWith(root + sep)) throw new Error(`tus key outside the storage folder: ${id}`);
    await Promise.all([rm(path, { force: true }), rm(`${path}.json`, { force: true })]);
  }
}

const isNotFound = (error: unknown): boolean => {
  const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.Code === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
};

/**
 * S3Store whose removal works at every stage: S3Store's own aborts the multipart upload first and gives up when it is
 * gone (a finished upload: NoSuchUpload), leaving the object and the info behind, and never removes the pending part.
 */
class BucketTusStore extends S3Store {
  override async remove(id: string): Promise<void> {
    let uploadId: string | undefined;
    try {
      uploadId = (await this.getMetadata(id))['upload-id'];
    } catch (error) {
      // No info object: never created, or removed already. Anything else (the store unreachable) is tried again later.
      if (!isNotFound(error)) throw error;
    }
    if (uploadId) {
      // A finished upload has no multipart upload left (NoSuchUpload). A store without AbortMultipartUpload (s3rver)
      // refuses it: the parts sent are then the bucket lifecycle rule's to expire (AbortIncompleteMultipartUpload), as
      // for the service's other multipart uploads (docs/decisions/attachments.md).
      await this.client.abortMultipartUpload({ Bucket: this.bucket, Key: id, UploadId: uploadId }).catch(() => undefined);
    }
    for (const key of [id, this.partKey(id, true), this.infoKey(id)]) await this.client.deleteObject({ Bucket: this.bucket, Key: key });
    await this.cache.delete(id);
  }
}

/** The tus store of the configured storage (STORAGE=local or s3). */
export function createTusStore(storage: StorageConfig): TusStore {
  let store: DataStore | undefined;
  const make = (): DataStore => {
    const s3 = storage.s3;
    const made = s3
      ? new BucketTusStore({
          // tus's own expiration is off (0): it would count 24 h from the creation on the wall clock, where an upload
          // here lives 24 h after its last write (the reservation's expiry, on the service's clock), removed by the
          // storage duty. Without it S3Store tags no object either (a store without tagging works too).
          expirationPeriodInMilliseconds: 0,
          useTags: false,
          partSize: 8 * 1024 * 1024,
          // The attachments' own client settings (checksums only where required on stores other than AWS).
          s3ClientConfig: { bucket: s3.bucket, ...s3ClientConfig(s3) },
        })
      : new LocalTusStore({ directory: storage.dir, expirationPeriodInMilliseconds: 0 });
    made.extensions = [...TUS_EXTENSIONS];
    return made;
  };
  return {
    datastore: () => (store ??= make()),
    remove: (key) => (store ??= make()).remove(key),
  };
}

/**
 * The storage the attachments service and its storage duty use: the configured one, where removing a key under
 * `tus/` removes the whole tus upload. The duty frees an abandoned upload's reservation and queues its storage key,
 * the tus key, for deletion: this is what removes its partial file, info file and (S3) multipart upload.
 */
export function withTusCleanup(storage: FileStorage, tus: Pick<TusStore, 'remove'>): FileStorage {
  return {
    kind: storage.kind,
    put: (key, body, opts) => storage.put(key, body, opts),
    get: (key, range) => storage.get(key, range),
    delete: (key) => (key.startsWith(TUS_KEY_PREFIX) ? tus.remove(key) : storage.delete(key)),
    exists: (key) => storage.exists(key),
    presignedGet: (key, opts) => storage.presignedGet(key, opts),
  };
}
