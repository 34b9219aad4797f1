import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { S3Config } from '../../src/config/config.js';
import { startTestApp, type TestApp } from './test-app.js';

/** A running s3rver, its bucket's settings, and the requests it was sent (`GET /bucket/key?uploads`...). */
export interface S3Server {
  config: S3Config;
  /** Method and URL of every request, in order: what the SDK sent, where s3rver cannot answer it (aborts). */
  requests: string[];
  close(): Promise<void>;
}

/**
 * s3rver (npm, an S3 API over a folder; npm has no MinIO) on 127.0.0.1, a free port and a fresh folder, with one bucket
 * of a unique name. Its limits are in docs/decisions/attachments.md.
 */
export async function startS3Server(options: { emulateParts?: boolean } = {}): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const bucket = `test-${randomUUID()}`;
  // The bucket is made by s3rver itself, not through the SDK under test. vhostBuckets off: every request names its
  // bucket in the path, as forcePathStyle sends it.
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, vhostBuckets: false, configureBuckets: [{ name: bucket }] });
  // s3rver has no ListParts and no AbortMultipartUpload (405), which tus's S3Store needs to resume and to terminate:
  // with `emulateParts` they are answered from s3rver's own folder of parts (test/attachments/tus.test.ts).
  if (options.emulateParts) {
    type Ctx = { method: string; path: string; query: Record<string, unknown>; status: number; body: unknown };
    const parts = async (ctx: Ctx, next: () => Promise<void>) => {
      const uploadId = ctx.query.uploadId;
      const match = /^\/([^/]+)\/(.+)$/.exec(ctx.path);
      if (typeof uploadId !== 'string' || !/^[0-9a-f]+$/.test(uploadId) || !match || (ctx.method !== 'GET' && ctx.method !== 'DELETE')) return next();
      // Where s3rver's FilesystemStore keeps the parts of a multipart upload until it is completed.
      const dir = join(directory, match[1]!, '._S3rver_uploads', uploadId);
      const names = await readdir(dir).catch(() => null);
      if (names === null) {
        ctx.status = 404;
        ctx.body = { Error: { Code: 'NoSuchUpload', Message: 'The specified upload does not exist.' } };
        return;
      }
      if (ctx.method === 'DELETE') {
        await rm(dir, { recursive: true, force: true });
        ctx.status = 204;
        ctx.body = '';
        return;
      }
      const numbers = names.filter((n) => /^\d+$/.test(n)).map(Number);
      const listed = await Promise.all(
        numbers
          .sort((a, b) => a - b)
          .map(async (n) => ({
            PartNumber: n,
            ETag: `"${(await readFile(join(dir, `${n}.md5`), 'utf8')).trim()}"`,
            Size: (await stat(join(dir, String(n)))).size,
          })),
      );
      ctx.body = { ListPartsResult: { Bucket: match[1], Key: decodeURIComponent(match[2]!), UploadId: uploadId, IsTruncated: false, Part: listed } };
    };
    // After s3rver's logger and its XML encoder (which turns an object body into XML), before its routes.
    (server as unknown as { middleware: unknown[] }).middleware.splice(2, 0, parts);
  }
  let port: number;
  try {
    ({ port } = (await server.run()) as AddressInfo);
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const requests: string[] = [];
  server.httpServer.on('request', (req: IncomingMessage) => requests.push(`${req.method} ${req.url}`));
  return {
    config: {
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      bucket,
      // The one account s3rver knows.
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    },
    requests,
    async close() {
      // The SDK keeps connections alive; without closing them, close() would wait for their idle timeout.
      server.httpServer.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A test app whose attachments go to `server`'s bucket (STORAGE=s3), and what the bucket holds under a prefix, read
 * with a client of its own (not through the code under test). `close` stops the app, then the server.
 */
export async function startAppOnS3(
  server: Pick<S3Server, 'config' | 'close'>,
  maxFileBytes: number,
): Promise<{ t: TestApp; keys(prefix: string): Promise<string[]>; close(): Promise<void> }> {
  const { config } = server;
  // STORAGE_DIR is unused with S3; an empty folder of its own keeps the app off the checkout's ./data.
  const dir = await mkdtemp(join(tmpdir(), 'wis-s3-app-'));
  const t = await startTestApp({ storage: { maxFileBytes, dir, s3: config } });
  const client = new S3Client({
    region: config.region,
    endpoint: config.endpoint!,
    forcePathStyle: true,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
  });
  return {
    t,
    async keys(prefix) {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: config.bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((o) => o.Key!).sort();
    },
    async close() {
      await t.close();
      client.destroy();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
