import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config, StorageConfig } from '../../config/config.js';
import { type FileStorage, localStorage } from './attachments.storage.js';

/**
 * Multipart part size and parts in flight. S3 wants parts of at least 5 MiB (but the last) and at most 10,000 of
 * them, so 5 MiB parts carry files up to ~48 GiB, far above ATTACHMENT_MAX_MB (5,000 MB at most). lib-storage
 * buffers every part in memory: one upload holds up to (2 + 1) × 5 MiB = 15 MiB. Measured (bench/attachments.ts):
 * 4 × 8 MiB grew the service by 102 MiB during a 256 MiB upload, over the 50 MB the contract allows (25.6).
 */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

/** Contract 25.2: a presigned GET is valid at most 5 minutes, whatever its caller asks. */
const MAX_PRESIGNED_S = 300;

/** How the service's S3 clients reach the bucket (the attachments' own, and tus's S3Store). */
export function s3ClientConfig(config: S3Config) {
  return {
    region: config.region,
    // null: AWS itself, the endpoint the SDK derives from the region.
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    // Since 2025 the SDK adds CRC32 checksums to uploads and asks for them on downloads by default ("when
    // supported"). AWS verifies them; S3-compatible stores have answered those headers with errors (Backblaze B2 did
    // until mid-2025, older Ceph RGW releases lack them), so with an endpoint of its own the client adds a checksum
    // only where an operation requires one (s3rver accepts either way and verifies neither).
    requestChecksumCalculation: config.endpoint ? ('WHEN_REQUIRED' as const) : ('WHEN_SUPPORTED' as const),
    responseChecksumValidation: config.endpoint ? ('WHEN_REQUIRED' as const) : ('WHEN_SUPPORTED' as const),
  };
}

/**
 * Any S3-compatible bucket (STORAGE=s3, contract 25.2): AWS S3, MinIO, Ceph RGW, Cloudflare R2, and s3rver in the
 * tests (docs/decisions/attachments.md).
 */
export function s3Storage(config: S3Config): FileStorage {
  const client = new S3Client(s3ClientConfig(config));
  const Bucket = config.bucket;

  return {
    kind: 's3',
    async put(key, body, { contentType }) {
      // lib-storage sends a small file in one PutObject and a big one as a multipart upload, which it completes only
      // once the body has ended: a body that fails or is destroyed is never completed, and the parts already sent are
      // removed with AbortMultipartUpload (leavePartsOnError false).
      const upload = new Upload({
        client,
        params: { Bucket, Key: key, Body: body, ContentType: contentType },
        partSize: PART_SIZE,
        queueSize: QUEUE_SIZE,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (error) {
        // When the abort fails as well (network, a store without AbortMultipartUpload), lib-storage throws the abort's
        // error and drops the body's; the caller needs the body's (a size limit, a client that went away), as
        // localStorage's pipeline gives it. Parts left by a failed abort are a bucket lifecycle rule's to expire.
        const cause = body.errored ?? (body.destroyed && !body.readableEnded ? prematureClose(error) : error);
        // As pipeline does for localStorage: a body the store stopped reading is not left open.
        body.destroy();
        throw cause;
      }
    },
    async get(key, range) {
      const { Body } = await client.send(new GetObjectCommand({ Bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
      // In Node the SDK answers with the HTTP response itself, a Readable; anything else would be a runtime without it.
      if (!(Body instanceof Readable)) throw new Error(`S3 GetObject of ${key} gave no Node stream`);
      return Body;
    },
    async delete(key) {
      // S3 answers 204 for a key that is not there, so running the deletion twice needs nothing more.
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    async exists(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return true;
      } catch (error) {
        // Only "not found" means false: a denied or unreachable store must not pass for a file that is gone.
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
        throw error;
      }
    },
    async presignedGet(key, { contentType, disposition, expiresInS }) {
      // The response-* parameters make S3 itself answer with the type and disposition the service would have sent
      // (an SVG stays a download); they are part of the signature, so the URL cannot be edited to serve it inline.
      const command = new GetObjectCommand({ Bucket, Key: key, ResponseContentType: contentType, ResponseContentDisposition: disposition });
      return getSignedUrl(client, command, { expiresIn: Math.max(1, Math.min(Math.floor(expiresInS), MAX_PRESIGNED_S)) });
    },
  };
}

/** What pipeline (so localStorage) rejects with for a body destroyed without an error before its end. */
const prematureClose = (cause: unknown): Error => Object.assign(new Error('Premature close', { cause }), { code: 'ERR_STREAM_PREMATURE_CLOSE' });

/** The storage STORAGE names: the bucket when S3 is configured, the local folder otherwise. */
export function createFileStorage(storage: StorageConfig): FileStorage {
  return storage.s3 ? s3Storage(storage.s3) : localStorage(storage.dir);
}
