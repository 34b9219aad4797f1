// Attachments through HTTP (contract 25.1, 25.2, 25.3, 25.5): the same tests against the local folder and an S3 bucket
// (s3rver, see docs/decisions/attachments.md). With S3 a download is a 302 to a presigned URL: the tests follow it and
// check that the store answers the same bytes, type and disposition; what only the service's own answer can carry
// (ETag, 304, Range) is checked for the local folder.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, signUp } from '../helpers/factories.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { startAppOnS3, startS3Server } from '../helpers/s3-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const KiB = 1024;
const MiB = 1_048_576;
const GiB = 1_073_741_824;
/** ATTACHMENT_MAX_MB of the apps under test: small, so that a bigger file is cheap to send. */
const MAX_FILE_BYTES = 2 * MiB;

/** One app with its storage, and what that storage holds. */
interface Setup {
  t: TestApp;
  /** Every stored object of the workspace (local: every file of its folder, a `.part` one included), sorted. */
  stored(workspaceId: string): Promise<string[]>;
  close(): Promise<void>;
}

async function localSetup(): Promise<Setup> {
  const dir = await mkdtemp(join(tmpdir(), 'wis-attachments-'));
  const t = await startTestApp({ storage: { maxFileBytes: MAX_FILE_BYTES, dir, s3: null } });
  return {
    t,
    async stored(workspaceId) {
      const entries = await readdir(join(dir, workspaceId), { withFileTypes: true }).catch(() => []);
      return entries
        .filter((e) => e.isFile())
        .map((e) => `${workspaceId}/${e.name}`)
        .sort();
    },
    async close() {
      await t.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function s3Setup(): Promise<Setup> {
  const app = await startAppOnS3(await startS3Server(), MAX_FILE_BYTES);
  return { t: app.t, stored: (workspaceId) => app.keys(`${workspaceId}/`), close: () => app.close() };
}

/** An HTTP answer as the tests read it: JSON parsed, the bytes kept. */
interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
  bytes: Buffer;
}

async function answer(res: Response): Promise<Answer> {
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  const body = /json/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : text;
  return { status: res.status, headers: res.headers, text, body, bytes };
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
const jpeg = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#cc6633' } })
    .jpeg()
    .toBuffer();
const gif = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#33cc66' } })
    .gif()
    .toBuffer();
const webp = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#6633cc' } })
    .webp()
    .toBuffer();
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
const HTML = Buffer.from('<!DOCTYPE html>\n<html><body><script>alert(document.cookie)</script></body></html>\n');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>\n');

/** CRC-32 of PNG chunks. */
function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A PNG that claims `width` × `height` pixels in its header and holds almost no data: what a decompression bomb looks like to a decoder. */
function pngHeaderOnly(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A `multipart/form-data` body written by hand: exact bytes (names with NUL or U+202E), for raw requests. */
function multipart(parts: { name: string; value?: string; filename?: string; type?: string; bytes?: Buffer }[]) {
  const boundary = `----wis-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"\r\nContent-Type: ${p.type ?? 'application/octet-stream'}`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`, 'utf8'), p.bytes ?? Buffer.from(p.value ?? '', 'utf8'), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * A POST over node:http: the body in 64 KiB writes, with its Content-Length or chunked (`chunked`: the length is not
 * told). `abortAfter`: sends that many bytes, waits for `beforeAbort`, then destroys the socket (answers null).
 */
function rawPost(
  url: string,
  token: string,
  body: { body: Buffer; contentType: string },
  opts: { chunked?: boolean; abortAfter?: number; beforeAbort?: () => Promise<void> } = {},
): Promise<{ status: number; body: any } | null> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}`, 'content-type': body.contentType };
    if (!opts.chunked) headers['content-length'] = body.body.length;
    const req = httpRequest(url, { method: 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, body: text && /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(text) : text });
      });
    });
    const limit = opts.abortAfter ?? body.body.length;
    req.on('error', (error) => (opts.abortAfter === undefined ? reject(error) : resolve(null)));
    for (let i = 0; i < limit; i += 64 * KiB) req.write(body.body.subarray(i, Math.min(limit, i + 64 * KiB)));
    if (opts.abortAfter === undefined) {
      req.end();
      return;
    }
    void (opts.beforeAbort ?? (async () => undefined))().then(() => {
      req.destroy();
      resolve(null);
    }, reject);
  });
}

/** Polls `check` until it passes (no timing is asserted: it only waits for work that runs after an answer). */
async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe.each([
  { kind: 'local' as const, start: localSetup },
  { kind: 's3' as const, start: s3Setup },
])('attachments with $kind storage', ({ kind, start }) => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await start();
  });
  afterAll(async () => setup?.close());

  /** A workspace with a project and an issue, and the calls the tests make on them. */
  async function fixture() {
    const { t } = setup;
    const { api } = t;
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id);
    const issueUrl = (issueId = issue.id, projectId = project.id, slug = ws.slug) => `/api/workspaces/${slug}/projects/${projectId}/issues/${issueId}/`;
    const files = (issueId = issue.id) => `${issueUrl(issueId)}attachments/`;

    /** An upload as a browser sends it: FormData with a Blob (`comment_id` before the file). */
    const upload = async (bytes: Buffer, filename: string, o: { type?: string; commentId?: string; token?: string; url?: string } = {}) => {
      const form = new FormData();
      if (o.commentId !== undefined) form.append('comment_id', o.commentId);
      form.append('file', new Blob([bytes], { type: o.type ?? 'application/octet-stream' }), filename);
      return answer(await fetch(t.url + (o.url ?? files()), { method: 'POST', headers: { authorization: `Bearer ${o.token ?? ws.admin.token}` }, body: form }));
    };
    const uploaded = async (bytes: Buffer, filename: string, o: Parameters<typeof upload>[2] = {}) => {
      const res = await upload(bytes, filename, o);
      expect(res.status, res.text).toBe(201);
      return res.body as {
        id: string;
        filename: string;
        content_type: string;
        size_bytes: number;
        sha256: string;
        comment_id: string | null;
        created_by: string;
        image: any;
      };
    };
    const request = async (method: string, path: string, token = ws.admin.token, headers: Record<string, string> = {}) =>
      answer(await fetch(t.url + path, { method, headers: { authorization: `Bearer ${token}`, ...headers }, redirect: 'manual' }));

    /**
     * The bytes of a file as a client gets them: the service's answer, or with S3 the store's answer to the presigned
     * URL the service redirects to (the 302 itself checked: safe headers, a URL of at most 5 minutes).
     */
    const download = async (path: string, token = ws.admin.token, headers: Record<string, string> = {}) => {
      const res = await request('GET', path, token, headers);
      if (kind === 'local' || res.status !== 302) return res;
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const location = res.headers.get('location')!;
      expect(Number(new URL(location).searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(300);
      return answer(await fetch(location, { headers }));
    };
    const comment = async (body = 'A comment', token = ws.admin.token) => {
      const res = await api.post(`${issueUrl()}comments/`, { body }, { token });
      expect(res.status, res.text).toBe(201);
      return res.body as { id: string };
    };
    const usage = async () => {
      const res = await api.get(`/api/workspaces/${ws.slug}/billing/subscription/`, { token: ws.admin.token });
      expect(res.status, res.text).toBe(200);
      return res.body.limits as { max_storage_gb: number; usage: { storage_used_bytes: number; storage_reserved_bytes: number } };
    };
    /** Leaves exactly `free` bytes of the plan's storage (the counters written, as if files took the rest). */
    const leaveFree = async (free: number) => {
      const limit = (await usage()).max_storage_gb * GiB;
      await setUsed(limit - free);
      return limit;
    };
    const setUsed = async (used: number) => {
      await sql`INSERT INTO storage_usage (workspace_id, used_bytes) VALUES (${ws.workspaceId}, ${used})
        ON CONFLICT (workspace_id) DO UPDATE SET used_bytes = excluded.used_bytes`.execute(t.database.db);
    };
    const runStorageDuty = () => t.app.services.attachments.runStorageDuty();
    return { t, api, ws, project, issue, issueUrl, files, upload, uploaded, request, download, comment, usage, leaveFree, setUsed, runStorageDuty };
  }

  describe('upload and read (25.1)', () => {
    it('answers 201 with every field of the record, image null for a PDF and a text file', async () => {
      const f = await fixture();
      const res = await f.upload(PDF, 'Teklif 2026.pdf', { type: 'application/pdf' });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        issue_id: f.issue.id,
        comment_id: null,
        filename: 'Teklif 2026.pdf',
        content_type: 'application/pdf',
        size_bytes: PDF.length,
        sha256: sha256(PDF),
        created_by: f.ws.admin.user.id,
        created_at: f.t.clock.now().toISOString(),
        image: null,
      });
      const text = await f.uploaded(Buffer.from('plain notes\nsecond line\n'), 'notes.txt', { type: 'text/plain' });
      expect(text).toMatchObject({ content_type: 'text/plain', image: null, size_bytes: 24 });
      // Unknown bytes are application/octet-stream whatever the client said.
      const unknown = await f.uploaded(Buffer.from([0x00, 0x01, 0x02, 0xfe, 0xff, 0x00]), 'data.bin', { type: 'image/png' });
      expect(unknown).toMatchObject({ content_type: 'application/octet-stream', image: null });
    });

    it('reads the pixel size of PNG, JPEG, GIF and WebP images from their bytes', async () => {
      const f = await fixture();
      for (const [bytes, name, type] of [
        [await png(120, 80), 'a.png', 'image/png'],
        [await jpeg(640, 480), 'b.jpg', 'image/jpeg'],
        [await gif(30, 40), 'c.gif', 'image/gif'],
        [await webp(50, 60), 'd.webp', 'image/webp'],
      ] as const) {
        const meta = await sharp(bytes).metadata();
        // The client claims nothing useful: the type comes from the bytes.
        const created = await f.uploaded(bytes, name, { type: 'application/octet-stream' });
        expect(created).toMatchObject({ content_type: type, image: { width: meta.width, height: meta.height }, size_bytes: bytes.length });
      }
    });

    it("gives a phone photo's size and thumbnail as it is shown, its EXIF orientation applied", async () => {
      const f = await fixture();
      // Stored 600 × 400, shown rotated a quarter turn (orientation 6): 400 × 600.
      const photo = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#888888' } })
        .jpeg()
        .withMetadata({ orientation: 6 })
        .toBuffer();
      expect(await sharp(photo).metadata()).toMatchObject({ width: 600, height: 400, orientation: 6 });
      const created = await f.uploaded(photo, 'IMG_0001.jpg');
      expect(created.image).toEqual({ width: 400, height: 600 });
      const thumb = await f.download(`${f.files()}${created.id}/thumbnail`);
      expect(await sharp(thumb.bytes).metadata()).toMatchObject({ width: 213, height: 320 });
    });

    it('lists newest first, with the files of its comments, and reads one record', async () => {
      const f = await fixture();
      const c = await f.comment();
      const first = await f.uploaded(Buffer.from('one'), 'one.txt');
      f.t.clock.advance(1_000);
      const second = await f.uploaded(Buffer.from('two'), 'two.txt', { commentId: c.id });
      f.t.clock.advance(1_000);
      const third = await f.uploaded(Buffer.from('three'), 'three.txt');
      expect(second.comment_id).toBe(c.id);
      const list = await f.api.get(f.files(), { token: f.ws.admin.token });
      expect(list.status, list.text).toBe(200);
      expect(list.body).toEqual([third, second, first]);
      const read = await f.api.get(`${f.files()}${second.id}/`, { token: f.ws.admin.token });
      expect(read.status, read.text).toBe(200);
      expect(read.body).toEqual(second);
      // Another issue of the same project lists none of them.
      const other = await createIssue(f.api, f.ws, f.project.id);
      expect((await f.api.get(f.files(other.id), { token: f.ws.admin.token })).body).toEqual([]);
    });

    it('serves the exact bytes (with S3, a 302 to a presigned URL with the same type and disposition)', async () => {
      const f = await fixture();
      const bytes = randomBytes(300 * KiB);
      const created = await f.uploaded(bytes, 'yedek.bin');
      const res = await f.request('GET', `${f.files()}${created.id}/content`);
      if (kind === 's3') {
        expect(res.status).toBe(302);
        const url = new URL(res.headers.get('location')!);
        expect(url.searchParams.get('response-content-type')).toBe('application/octet-stream');
        expect(url.searchParams.get('response-content-disposition')).toMatch(/^attachment; /);
      } else expect(res.status).toBe(200);
      const got = await f.download(`${f.files()}${created.id}/content`);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(bytes)).toBe(true);
      expect(got.headers.get('content-type')).toBe('application/octet-stream');
      expect(got.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''yedek.bin`);
    });

    it('makes a WebP thumbnail 320 px on its longer side, never enlarged, and none for other files', async () => {
      const f = await fixture();
      const big = await f.uploaded(await jpeg(800, 600), 'photo.jpg');
      const thumb = await f.download(`${f.files()}${big.id}/thumbnail`);
      expect(thumb.status).toBe(200);
      expect(thumb.headers.get('content-type')).toBe('image/webp');
      expect(thumb.headers.get('content-disposition')).toMatch(/^inline; /);
      expect(await sharp(thumb.bytes).metadata()).toMatchObject({ format: 'webp', width: 320, height: 240 });

      const tall = await f.uploaded(await png(200, 1000), 'tall.png');
      expect(await sharp((await f.download(`${f.files()}${tall.id}/thumbnail`)).bytes).metadata()).toMatchObject({ width: 64, height: 320 });

      const small = await f.uploaded(await png(100, 50), 'small.png');
      const smallThumb = await f.download(`${f.files()}${small.id}/thumbnail`);
      expect(await sharp(smallThumb.bytes).metadata()).toMatchObject({ format: 'webp', width: 100, height: 50 });

      const pdf = await f.uploaded(PDF, 'doc.pdf');
      expectProblem(await f.request('GET', `${f.files()}${pdf.id}/thumbnail`), 404, 'not_found');
      // The thumbnails are counted in the quota beside the files.
      const sizes = [big, tall, small, pdf].reduce((sum, a) => sum + a.size_bytes, 0);
      const thumbnails = thumb.bytes.length + (await f.download(`${f.files()}${tall.id}/thumbnail`)).bytes.length + smallThumb.bytes.length;
      expect((await f.usage()).usage).toEqual({ storage_used_bytes: sizes + thumbnails, storage_reserved_bytes: 0 });
      expect(await setup.stored(f.ws.workspaceId)).toHaveLength(7);
    });

    it('deletes: 204, then 404 by every path, and the storage duty removes the stored file and thumbnail', async () => {
      const f = await fixture();
      const kept = await f.uploaded(Buffer.from('kept'), 'kept.txt');
      const image = await f.uploaded(await png(400, 300), 'gone.png');
      const url = `${f.files()}${image.id}/`;
      const before = await f.usage();
      expect(await setup.stored(f.ws.workspaceId)).toEqual(
        [`${f.ws.workspaceId}/${kept.id}`, `${f.ws.workspaceId}/${image.id}`, expect.stringContaining(`${f.ws.workspaceId}/${image.id}.`)].sort(),
      );
      expect((await f.request('DELETE', url)).status).toBe(204);
      for (const [method, path] of [
        ['GET', url],
        ['GET', `${url}content`],
        ['GET', `${url}thumbnail`],
        ['DELETE', url],
      ] as const) {
        expectProblem(await f.request(method, path), 404, 'not_found');
      }
      expect((await f.api.get(f.files(), { token: f.ws.admin.token })).body).toEqual([kept]);
      // The space is free at once; the files go with the duty.
      expect((await f.usage()).usage.storage_used_bytes).toBe(kept.size_bytes);
      expect(before.usage.storage_used_bytes).toBeGreaterThan(kept.size_bytes + image.size_bytes);
      await f.runStorageDuty();
      expect(await setup.stored(f.ws.workspaceId)).toEqual([`${f.ws.workspaceId}/${kept.id}`]);
      expect((await f.download(`${f.files()}${kept.id}/content`)).text).toBe('kept');
    });

    it("counts the files of the issue and of its comments in attachment_count, and shows a comment's files on it", async () => {
      const f = await fixture();
      const c1 = await f.comment('with files');
      const c2 = await f.comment('without');
      await f.uploaded(Buffer.from('issue'), 'issue.txt');
      const a = await f.uploaded(Buffer.from('a'), 'a.txt', { commentId: c1.id });
      f.t.clock.advance(1_000);
      const b = await f.uploaded(await png(10, 10), 'b.png', { commentId: c1.id });
      const issue = await f.api.get(f.issueUrl(), { token: f.ws.admin.token });
      expect(issue.body.attachment_count).toBe(3);
      const comments = await f.api.get(`${f.issueUrl()}comments/`, { token: f.ws.admin.token });
      expect(comments.status, comments.text).toBe(200);
      const byId = new Map((comments.body as { id: string; attachments: unknown[] }[]).map((c) => [c.id, c.attachments]));
      expect(byId.get(c1.id)).toEqual([a, b]);
      expect(byId.get(c2.id)).toEqual([]);
      // The project's issue list carries the count too.
      const issues = await f.api.get(`/api/workspaces/${f.ws.slug}/projects/${f.project.id}/issues/`, { token: f.ws.admin.token });
      expect(issues.body.results.find((i: { id: string }) => i.id === f.issue.id).attachment_count).toBe(3);
    });

    it('refuses a comment_id of another issue (404) or not a UUID (400), storing nothing', async () => {
      const f = await fixture();
      const other = await createIssue(f.api, f.ws, f.project.id);
      const foreign = await f.api.post(`${f.issueUrl(other.id)}comments/`, { body: 'elsewhere' }, { token: f.ws.admin.token });
      expect(foreign.status).toBe(201);
      expectProblem(await f.upload(Buffer.from('x'), 'x.txt', { commentId: foreign.body.id }), 404, 'not_found');
      const bad = await f.upload(Buffer.from('x'), 'x.txt', { commentId: 'not-a-uuid' });
      expectProblem(bad, 400, 'validation_failed');
      expect(bad.body.errors[0].path).toBe('/comment_id');
      // A comment of another workspace, by its id.
      const g = await fixture();
      const theirs = await g.comment();
      expectProblem(await f.upload(Buffer.from('x'), 'x.txt', { commentId: theirs.id }), 404, 'not_found');
      // No file part at all.
      const form = new FormData();
      form.append('comment_id', (await f.comment()).id);
      const none = await answer(await fetch(f.t.url + f.files(), { method: 'POST', headers: { authorization: `Bearer ${f.ws.admin.token}` }, body: form }));
      expectProblem(none, 400, 'validation_failed');
      // Not multipart.
      expectProblem(await f.api.post(f.files(), { file: 'x' }, { token: f.ws.admin.token }), 415, 'unsupported_media_type');

      expect((await f.api.get(f.files(), { token: f.ws.admin.token })).body).toEqual([]);
      expect(await eventuallyEmpty(f.ws.workspaceId)).toEqual([]);
      expect((await f.usage()).usage).toEqual({ storage_used_bytes: 0, storage_reserved_bytes: 0 });
    });
    it('refuses a comment_id sent after the file (400), storing nothing, whether the comment is one of the issue or not', async () => {
      const f = await fixture();
      const mine = await f.comment();
      for (const value of [mine.id, randomUUID(), 'not-a-uuid']) {
        const body = multipart([
          { name: 'file', filename: 'late.txt', type: 'text/plain', bytes: Buffer.from('late comment_id') },
          { name: 'comment_id', value },
        ]);
        const res = await rawPost(f.t.url + f.files(), f.ws.admin.token, body);
        expect(res!.status, JSON.stringify(res!.body)).toBe(400);
        expect(res!.body.code).toBe('validation_failed');
      }
      await eventually(async () => {
        expect(await setup.stored(f.ws.workspaceId)).toEqual([]);
        expect((await f.usage()).usage).toEqual({ storage_used_bytes: 0, storage_reserved_bytes: 0 });
      });
      expect((await f.api.get(f.files(), { token: f.ws.admin.token })).body).toEqual([]);
    });

    it('stores a decompression bomb (over 50,000,000 pixels) without image size or thumbnail', async () => {
      const f = await fixture();
      const bomb = pngHeaderOnly(10_000, 10_000);
      const created = await f.uploaded(bomb, 'bomb.png');
      expect(created).toMatchObject({ content_type: 'image/png', image: null, size_bytes: bomb.length });
      expectProblem(await f.request('GET', `${f.files()}${created.id}/thumbnail`), 404, 'not_found');
      expect((await f.download(`${f.files()}${created.id}/content`)).bytes.equals(bomb)).toBe(true);
      expect(await setup.stored(f.ws.workspaceId)).toEqual([`${f.ws.workspaceId}/${created.id}`]);
      // Just under the cap: sized, with a thumbnail.
      const fine = await f.uploaded(await png(7_000, 7_000), 'big.png');
      expect(fine.image).toEqual({ width: 7_000, height: 7_000 });
      expect(await sharp((await f.download(`${f.files()}${fine.id}/thumbnail`)).bytes).metadata()).toMatchObject({ width: 320, height: 320 });
    });
  });

  /** The workspace's stored objects once uploads that were refused have finished removing theirs. */
  async function eventuallyEmpty(workspaceId: string): Promise<string[]> {
    let last: string[] = [];
    await eventually(async () => {
      last = await setup.stored(workspaceId);
      expect(last).toEqual([]);
    }).catch(() => undefined);
    return last;
  }

  describe('download headers (25.1)', () => {
    it('serves PDF, HTML and SVG as attachments and PNG, JPEG, GIF and WebP inline, with the UTF-8 name', async () => {
      const f = await fixture();
      for (const [bytes, name, type, disposition] of [
        [PDF, 'Rapor şubat.pdf', 'application/pdf', 'attachment'],
        [HTML, 'page.html', 'text/html', 'attachment'],
        [SVG, 'logo.svg', 'image/svg+xml', 'attachment'],
        [await png(20, 20), 'ekran görüntüsü.png', 'image/png', 'inline'],
        [await jpeg(20, 20), 'photo.jpg', 'image/jpeg', 'inline'],
        [await gif(20, 20), 'anim.gif', 'image/gif', 'inline'],
        [await webp(20, 20), 'pic.webp', 'image/webp', 'inline'],
      ] as const) {
        const created = await f.uploaded(bytes, name);
        expect(created.content_type).toBe(type);
        const res = await f.download(`${f.files()}${created.id}/content`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe(type);
        const header = res.headers.get('content-disposition')!;
        expect(header.startsWith(`${disposition}; `), header).toBe(true);
        expect(header).toContain(`filename*=UTF-8''${encodeURIComponent(name)}`);
        expect(res.bytes.equals(bytes)).toBe(true);
      }
    });

    it('sends nosniff, a sandboxing Content-Security-Policy and the sha256 as ETag', async () => {
      const f = await fixture();
      const bytes = Buffer.from('<p>hello</p>');
      const created = await f.uploaded(bytes, 'hello.html');
      const image = await f.uploaded(await png(30, 30), 'x.png');
      // On the bytes and the thumbnail, and with S3 on the redirect too.
      for (const path of [`${f.files()}${created.id}/content`, `${f.files()}${image.id}/content`, `${f.files()}${image.id}/thumbnail`]) {
        const res = await f.request('GET', path);
        expect(res.status).toBe(kind === 'local' ? 200 : 302);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
      }
      if (kind === 'local') expect((await f.request('GET', `${f.files()}${created.id}/content`)).headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    });

    // With S3 the bytes come from the store (presigned); its ETag and ranges are the store's (storage.test.ts).
    it.skipIf(kind === 's3')('answers If-None-Match with 304, a Range with 206, a suffix range, and 416 past the end', async () => {
      const f = await fixture();
      const bytes = Buffer.from('0123456789abcdefghij');
      const created = await f.uploaded(bytes, 'digits.txt');
      const url = `${f.files()}${created.id}/content`;
      const etag = `"${sha256(bytes)}"`;
      const whole = await f.request('GET', url);
      expect(whole.headers.get('etag')).toBe(etag);
      expect(whole.headers.get('accept-ranges')).toBe('bytes');
      expect(whole.headers.get('content-length')).toBe('20');

      const cached = await f.request('GET', url, undefined, { 'if-none-match': etag });
      expect(cached.status).toBe(304);
      expect(cached.bytes.length).toBe(0);
      expect((await f.request('GET', url, undefined, { 'if-none-match': '"other"' })).status).toBe(200);

      const part = await f.request('GET', url, undefined, { range: 'bytes=2-5' });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe('bytes 2-5/20');
      expect(part.text).toBe('2345');
      const open = await f.request('GET', url, undefined, { range: 'bytes=15-' });
      expect([open.status, open.headers.get('content-range'), open.text]).toEqual([206, 'bytes 15-19/20', 'fghij']);
      const suffix = await f.request('GET', url, undefined, { range: 'bytes=-3' });
      expect([suffix.status, suffix.headers.get('content-range'), suffix.text]).toEqual([206, 'bytes 17-19/20', 'hij']);
      const beyond = await f.request('GET', url, undefined, { range: 'bytes=-500' });
      expect([beyond.status, beyond.headers.get('content-range'), beyond.text]).toEqual([206, 'bytes 0-19/20', bytes.toString()]);
      const unsatisfiable = await f.request('GET', url, undefined, { range: 'bytes=20-30' });
      expect(unsatisfiable.status).toBe(416);
      expect(unsatisfiable.headers.get('content-range')).toBe('bytes */20');
      // If-Range with another ETag: the whole file.
      const stale = await f.request('GET', url, undefined, { range: 'bytes=0-1', 'if-range': '"stale"' });
      expect([stale.status, stale.text]).toEqual([200, bytes.toString()]);

      // The thumbnail has its own ETag.
      const image = await f.uploaded(await png(30, 30), 'x.png');
      const thumb = await f.request('GET', `${f.files()}${image.id}/thumbnail`);
      expect(thumb.headers.get('etag')).not.toBe(`"${image.sha256}"`);
      expect((await f.request('GET', `${f.files()}${image.id}/thumbnail`, undefined, { 'if-none-match': thumb.headers.get('etag')! })).status).toBe(304);
    });
  });

  describe('security (25.1)', () => {
    it('records an HTML file sent as image/png as text/html and serves it as an attachment', async () => {
      const f = await fixture();
      const created = await f.uploaded(HTML, 'cat.png', { type: 'image/png' });
      expect(created).toMatchObject({ content_type: 'text/html', image: null, filename: 'cat.png' });
      const res = await f.download(`${f.files()}${created.id}/content`);
      expect(res.headers.get('content-type')).toBe('text/html');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; /);
      expectProblem(await f.request('GET', `${f.files()}${created.id}/thumbnail`), 404);
      // Other ways of starting HTML: leading whitespace, a comment, upper case.
      for (const text of ['  \n<HTML><body>x</body></HTML>', '<!-- hi --><html><script>1</script></html>', '<script>alert(1)</script>']) {
        expect((await f.uploaded(Buffer.from(text), 'x.jpg', { type: 'image/jpeg' })).content_type).toBe('text/html');
      }
    });

    it('records an SVG with a script as image/svg+xml and never serves it inline', async () => {
      const f = await fixture();
      for (const bytes of [SVG, Buffer.concat([Buffer.from('<?xml version="1.0"?>\n<!DOCTYPE svg>\n'), SVG])]) {
        const created = await f.uploaded(bytes, 'logo.svg', { type: 'image/png' });
        expect(created).toMatchObject({ content_type: 'image/svg+xml', image: null });
        const res = await f.download(`${f.files()}${created.id}/content`);
        expect(res.headers.get('content-type')).toBe('image/svg+xml');
        expect(res.headers.get('content-disposition')).toMatch(/^attachment; /);
        expect(res.bytes.equals(bytes)).toBe(true);
        expectProblem(await f.request('GET', `${f.files()}${created.id}/thumbnail`), 404);
      }
    });

    it('stores safe names: no path, no control or bidi characters, at most 255 bytes', async () => {
      const f = await fixture();
      const long = `${'ş'.repeat(150)}.pdf`; // 304 bytes of UTF-8
      for (const [raw, expected] of [
        ['../../etc/passwd', 'passwd'],
        ['..\\..\\windows\\win.ini', 'win.ini'],
        ['evil\u0000name.txt', 'evilname.txt'],
        ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
        ['\u202Dtab\u0009bed\u200F.txt', 'tabbed.txt'],
        ['.htaccess', 'htaccess'],
        [long, null],
      ] as const) {
        const body = multipart([{ name: 'file', filename: raw, type: 'text/plain', bytes: Buffer.from('content') }]);
        const res = await rawPost(f.t.url + f.files(), f.ws.admin.token, body);
        expect(res!.status, JSON.stringify(res!.body)).toBe(201);
        const name = res!.body.filename as string;
        if (expected !== null) expect(name).toBe(expected);
        expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
        expect(name).not.toMatch(/[/\\]/);
        // eslint-disable-next-line no-control-regex
        expect(name).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
        expect(name).not.toContain('\ufffd');
        const res2 = await f.download(`${f.files()}${res!.body.id}/content`);
        expect(res2.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent(name)}`);
      }
      const list = (await f.api.get(f.files(), { token: f.ws.admin.token })).body as { filename: string }[];
      const cut = list.find((a) => a.filename.startsWith('ş'))!.filename;
      expect(cut.endsWith('.pdf')).toBe(true);
      expect(Buffer.byteLength(cut)).toBeGreaterThan(250);
      // Keys are made of ids only.
      for (const key of await setup.stored(f.ws.workspaceId)) expect(key).toMatch(/^[0-9a-f-]{36}\/[0-9a-f-]{36}$/);
    });

    it('answers 404 for an attachment of another workspace by every path', async () => {
      const mine = await fixture();
      const theirs = await fixture();
      const secondProject = await createProject(mine.api, mine.ws);
      const secondIssue = await createIssue(mine.api, mine.ws, mine.project.id);
      const created = await mine.uploaded(await png(40, 40), 'secret.png');
      const id = created.id;
      const outsider = await signUp(mine.api, 'Outsider');
      const paths = [
        // Their admin, naming my attachment under their own workspace, project and issue.
        [theirs.ws.admin.token, `${theirs.files()}${id}/`],
        // ... under their workspace with my project and issue.
        [theirs.ws.admin.token, `${theirs.issueUrl(mine.issue.id, mine.project.id, theirs.ws.slug)}attachments/${id}/`],
        // ... under my workspace, of which they are not a member.
        [theirs.ws.admin.token, `${mine.files()}${id}/`],
        [outsider.token, `${mine.files()}${id}/`],
        // My own admin, through another issue or another project of my workspace.
        [mine.ws.admin.token, `${mine.files(secondIssue.id)}${id}/`],
        [mine.ws.admin.token, `${mine.issueUrl(mine.issue.id, secondProject.id)}attachments/${id}/`],
      ] as const;
      for (const [token, base] of paths) {
        for (const [method, suffix] of [
          ['GET', ''],
          ['GET', 'content'],
          ['GET', 'thumbnail'],
          ['DELETE', ''],
        ] as const) {
          expectProblem(await mine.request(method, `${base}${suffix}`, token), 404, 'not_found');
        }
      }
      // Neither lists nor uploads into my issue.
      expectProblem(await mine.request('GET', mine.files(), theirs.ws.admin.token), 404, 'not_found');
      expectProblem(await mine.upload(Buffer.from('x'), 'x.txt', { token: theirs.ws.admin.token }), 404, 'not_found');
      expectProblem(
        await mine.upload(Buffer.from('x'), 'x.txt', {
          token: theirs.ws.admin.token,
          url: `${theirs.issueUrl(mine.issue.id, mine.project.id, theirs.ws.slug)}attachments/`,
        }),
        404,
        'not_found',
      );
      expect((await mine.api.get(mine.files(), { token: mine.ws.admin.token })).body).toEqual([created]);
      expect((await mine.download(`${mine.files()}${id}/content`)).status).toBe(200);
      expect(await setup.stored(theirs.ws.workspaceId)).toEqual([]);
    });

    it('lets a guest list and download but not upload (403) nor delete (403)', async () => {
      const f = await fixture();
      const guest = await f.ws.addUser('guest');
      const bytes = await png(50, 50);
      const created = await f.uploaded(bytes, 'shared.png');
      expect((await f.request('GET', f.files(), guest.token)).body).toEqual([created]);
      expect((await f.request('GET', `${f.files()}${created.id}/`, guest.token)).body).toEqual(created);
      expect((await f.download(`${f.files()}${created.id}/content`, guest.token)).bytes.equals(bytes)).toBe(true);
      expect((await f.download(`${f.files()}${created.id}/thumbnail`, guest.token)).status).toBe(200);
      expectProblem(await f.upload(Buffer.from('nope'), 'nope.txt', { token: guest.token }), 403, 'forbidden');
      expectProblem(await f.request('DELETE', `${f.files()}${created.id}/`, guest.token), 403, 'forbidden');
      expect((await f.api.get(f.files(), { token: f.ws.admin.token })).body).toHaveLength(1);
      expect((await f.usage()).usage.storage_reserved_bytes).toBe(0);
    });

    // PostgreSQL only (PGlite has one connection): a deletion that holds an attachment row and then needs the counters, as
    // the cascade of a comment's or an issue's deletion does, while DELETE of that attachment runs.
    it.skipIf(kind === 's3' || !process.env.DATABASE_URL)('deletes an attachment while a cascade holds it, without a deadlock', async () => {
      const f = await fixture();
      const created = await f.uploaded(Buffer.from('contended'), 'contended.txt');
      const db = f.t.database.db;
      const waiting = async () =>
        (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(db))
          .rows[0]!.n;
      let removal: Promise<Answer> | undefined;
      await db.transaction().execute(async (tx) => {
        await sql`SELECT id FROM attachments WHERE id = ${created.id} FOR UPDATE`.execute(tx);
        removal = f.request('DELETE', `${f.files()}${created.id}/`);
        await eventually(async () => expect(await waiting()).toBeGreaterThan(0));
        await sql`UPDATE storage_usage SET used_bytes = used_bytes WHERE workspace_id = ${f.ws.workspaceId}`.execute(tx);
      });
      expect((await removal!).status).toBe(204);
      expect((await f.usage()).usage).toEqual({ storage_used_bytes: 0, storage_reserved_bytes: 0 });
    });

    it("forbids a member to delete another member's attachment (403); the uploader and an admin may", async () => {
      const f = await fixture();
      const alice = await f.ws.addUser('member', 'Alice');
      const bob = await f.ws.addUser('member', 'Bob');
      const admin = await f.ws.addUser('admin', 'Second admin');
      const first = await f.uploaded(Buffer.from('alice 1'), 'a1.txt', { token: alice.token });
      const second = await f.uploaded(Buffer.from('alice 2'), 'a2.txt', { token: alice.token });
      expect(first.created_by).toBe(alice.user.id);
      expectProblem(await f.request('DELETE', `${f.files()}${first.id}/`, bob.token), 403, 'forbidden');
      expect((await f.request('DELETE', `${f.files()}${first.id}/`, alice.token)).status).toBe(204);
      expect((await f.request('DELETE', `${f.files()}${second.id}/`, admin.token)).status).toBe(204);
      expect((await f.api.get(f.files(), { token: f.ws.admin.token })).body).toEqual([]);
    });
  });

  describe('limits (25.1)', () => {
    it('refuses a file over ATTACHMENT_MAX_MB with 413 file_too_large and keeps nothing, its length told or not', async () => {
      const f = await fixture();
      const bytes = randomBytes(MAX_FILE_BYTES + 1);
      expectProblem(await f.upload(bytes, 'big.bin'), 413, 'file_too_large');
      // Chunked: the length is not told, so the file is refused as it crosses the limit.
      const chunked = await rawPost(f.t.url + f.files(), f.ws.admin.token, multipart([{ name: 'file', filename: 'big.bin', bytes }]), { chunked: true });
      expect(chunked!.status, JSON.stringify(chunked!.body)).toBe(413);
      expect(chunked!.body.code).toBe('file_too_large');
      expect((await f.api.get(f.files(), { token: f.ws.admin.token })).body).toEqual([]);
      expect((await f.usage()).usage).toEqual({ storage_used_bytes: 0, storage_reserved_bytes: 0 });
      expect(await eventuallyEmpty(f.ws.workspaceId)).toEqual([]);
      // Exactly the limit is fine, told or not.
      const exact = randomBytes(MAX_FILE_BYTES);
      expect((await f.uploaded(exact, 'exact.bin')).size_bytes).toBe(MAX_FILE_BYTES);
      const streamed = await rawPost(f.t.url + f.files(), f.ws.admin.token, multipart([{ name: 'file', filename: 'exact.bin', bytes: exact }]), {
        chunked: true,
      });
      expect(streamed!.status, JSON.stringify(streamed!.body)).toBe(201);
      expect(streamed!.body.sha256).toBe(sha256(exact));
    });

    it('takes upload bodies above 1 MiB while other routes keep their 1 MiB limit', async () => {
      const f = await fixture();
      const bytes = randomBytes(1.5 * MiB);
      const created = await f.uploaded(bytes, 'medium.bin');
      expect(created.size_bytes).toBe(bytes.length);
      expect((await f.download(`${f.files()}${created.id}/content`)).bytes.equals(bytes)).toBe(true);
      const json = await f.api.post(`${f.issueUrl()}comments/`, { body: 'x'.repeat(2 * MiB) }, { token: f.ws.admin.token });
      expectProblem(json, 413, 'payload_too_large');
    });
  });

  describe('the storage quota (25.3)', () => {
    it('stores a file that fits exactly and refuses one byte more with 402 storage_limit_reached, storing nothing', async () => {
      const f = await fixture();
      const size = 50 * KiB;
      const limit = await f.leaveFree(size);
      const over = await f.upload(randomBytes(size + 1), 'over.bin');
      expectProblem(over, 402, 'storage_limit_reached');
      expect(over.body).toMatchObject({ used_bytes: limit - size, limit_bytes: limit });
      expect(await eventuallyEmpty(f.ws.workspaceId)).toEqual([]);
      expect((await f.usage()).usage).toEqual({ storage_used_bytes: limit - size, storage_reserved_bytes: 0 });

      // Its length not told (chunked): refused as it crosses, nothing left.
      const chunked = await rawPost(f.t.url + f.files(), f.ws.admin.token, multipart([{ name: 'file', filename: 'over.bin', bytes: randomBytes(size + 1) }]), {
        chunked: true,
      });
      expect(chunked!.status, JSON.stringify(chunked!.body)).toBe(402);
      expect(chunked!.body).toMatchObject({ code: 'storage_limit_reached', used_bytes: limit - size, limit_bytes: limit });
      expect(await eventuallyEmpty(f.ws.workspaceId)).toEqual([]);
      expect((await f.usage()).usage).toEqual({ storage_used_bytes: limit - size, storage_reserved_bytes: 0 });

      const exact = await f.uploaded(randomBytes(size), 'exact.bin');
      expect((await f.usage()).usage).toEqual({ storage_used_bytes: limit, storage_reserved_bytes: 0 });
      const full = await f.upload(Buffer.from('x'), 'one-more.txt');
      expectProblem(full, 402, 'storage_limit_reached');
      expect(full.body).toMatchObject({ used_bytes: limit, limit_bytes: limit });
      expect((await f.api.get(f.files(), { token: f.ws.admin.token })).body).toEqual([exact]);
      expect(await setup.stored(f.ws.workspaceId)).toEqual([`${f.ws.workspaceId}/${exact.id}`]);
    });

    it('stores exactly 10 of 20 concurrent 100 KiB uploads against room for 10, and counts them exactly', async () => {
      const f = await fixture();
      const size = 100 * KiB;
      const limit = await f.leaveFree(10 * size);
      const files = Array.from({ length: 20 }, () => randomBytes(size));
      const results = await Promise.all(files.map((bytes, i) => f.upload(bytes, `part-${i}.bin`)));
      const stored = results.filter((r) => r.status === 201);
      const refused = results.filter((r) => r.status === 402);
      expect(stored).toHaveLength(10);
      expect(refused).toHaveLength(10);
      for (const r of refused) expect(r.body.code).toBe('storage_limit_reached');
      expect((await f.usage()).usage).toEqual({ storage_used_bytes: limit, storage_reserved_bytes: 0 });
      const list = (await f.api.get(f.files(), { token: f.ws.admin.token })).body as { id: string; sha256: string }[];
      expect(list.map((a) => a.id).sort()).toEqual(stored.map((r) => r.body.id).sort());
      const hashes = new Set(files.map(sha256));
      for (const a of list) expect(hashes.has(a.sha256)).toBe(true);
      expect(await eventuallyStored(f.ws.workspaceId, 10)).toHaveLength(10);
      const reservations = await sql<{ n: number }>`SELECT count(*)::int AS n FROM storage_reservations WHERE workspace_id = ${f.ws.workspaceId}`.execute(
        f.t.database.db,
      );
      expect(reservations.rows[0]!.n).toBe(0);
    });

    it('frees the space of a deleted file at once, before the storage duty runs', async () => {
      const f = await fixture();
      const size = 64 * KiB;
      const limit = await f.leaveFree(size);
      const first = await f.uploaded(randomBytes(size), 'first.bin');
      expectProblem(await f.upload(randomBytes(size), 'second.bin'), 402, 'storage_limit_reached');
      expect((await f.request('DELETE', `${f.files()}${first.id}/`)).status).toBe(204);
      expect((await f.usage()).usage).toEqual({ storage_used_bytes: limit - size, storage_reserved_bytes: 0 });
      await f.uploaded(randomBytes(size), 'second.bin');
      expect((await f.usage()).usage.storage_used_bytes).toBe(limit);
    });

    it('after a downgrade below the usage refuses new uploads and deletes nothing', async () => {
      const f = await fixture();
      const trial = await f.api.post(`/api/workspaces/${f.ws.slug}/billing/trial/`, { plan_slug: 'pro' }, { token: f.ws.admin.token });
      expect(trial.status, trial.text).toBe(201);
      const pro = (await f.usage()).max_storage_gb;
      expect(pro).toBeGreaterThan(2);
      const kept = await f.uploaded(Buffer.from('kept through the downgrade'), 'kept.txt');
      // Two more GB on the counters, as if stored: within pro, beyond free.
      const used = 2 * GiB + kept.size_bytes;
      await f.setUsed(used);
      await f.uploaded(Buffer.from('fits on pro'), 'pro.txt');
      const cancel = await f.api.post(`/api/workspaces/${f.ws.slug}/billing/cancel/`, { immediate: true }, { token: f.ws.admin.token });
      expect(cancel.status, cancel.text).toBe(200);
      const limits = await f.usage();
      expect(limits.max_storage_gb).toBeLessThan(2);
      const usedNow = used + 'fits on pro'.length;
      expect(limits.usage).toEqual({ storage_used_bytes: usedNow, storage_reserved_bytes: 0 });
      const refused = await f.upload(Buffer.from('x'), 'x.txt');
      expectProblem(refused, 402, 'storage_limit_reached');
      expect(refused.body).toMatchObject({ used_bytes: usedNow, limit_bytes: limits.max_storage_gb * GiB });
      // Nothing was deleted: both files are listed, served and stored.
      const list = (await f.api.get(f.files(), { token: f.ws.admin.token })).body as { id: string }[];
      expect(list).toHaveLength(2);
      expect((await f.download(`${f.files()}${kept.id}/content`)).text).toBe('kept through the downgrade');
      await f.runStorageDuty();
      expect(await setup.stored(f.ws.workspaceId)).toHaveLength(2);
      // Deleting still works, and frees at once.
      expect((await f.request('DELETE', `${f.files()}${kept.id}/`)).status).toBe(204);
      expect((await f.usage()).usage.storage_used_bytes).toBe(usedNow - kept.size_bytes);
    });
  });

  /** The workspace's stored objects, once there are `count` of them (or what there is after a while). */
  async function eventuallyStored(workspaceId: string, count: number): Promise<string[]> {
    let last: string[] = [];
    await eventually(async () => {
      last = await setup.stored(workspaceId);
      expect(last).toHaveLength(count);
    }).catch(() => undefined);
    return last;
  }

  it('leaves nothing of an upload whose client goes away halfway: no record, no reservation, no file', async () => {
    const f = await fixture();
    const body = multipart([{ name: 'file', filename: 'half.bin', bytes: randomBytes(600 * KiB) }]);
    const reserved = async () => (await f.usage()).usage.storage_reserved_bytes;
    const answered = await rawPost(f.t.url + f.files(), f.ws.admin.token, body, {
      abortAfter: Math.floor(body.body.length / 2),
      // Aborts once the server has reserved the space, so the upload is under way.
      beforeAbort: () => eventually(async () => expect(await reserved()).toBeGreaterThan(0)),
    });
    expect(answered).toBeNull();
    await eventually(async () => {
      expect((await f.usage()).usage).toEqual({ storage_used_bytes: 0, storage_reserved_bytes: 0 });
      expect(await setup.stored(f.ws.workspaceId)).toEqual([]);
    });
    expect((await f.api.get(f.files(), { token: f.ws.admin.token })).body).toEqual([]);
    const reservations = await sql<{ n: number }>`SELECT count(*)::int AS n FROM storage_reservations WHERE workspace_id = ${f.ws.workspaceId}`.execute(
      f.t.database.db,
    );
    expect(reservations.rows[0]!.n).toBe(0);
    // The service still takes uploads.
    await f.uploaded(Buffer.from('after'), 'after.txt');
  });

  it('leaves nothing of an upload whose client goes away at once, or whose body ends without its closing delimiter', async () => {
    const f = await fixture();
    const body = multipart([{ name: 'file', filename: 'early.bin', bytes: randomBytes(300 * KiB) }]);
    // Gone right after the first bytes of the file, maybe before the space is reserved.
    expect(await rawPost(f.t.url + f.files(), f.ws.admin.token, body, { abortAfter: 1_000 })).toBeNull();
    // A body of the length it announced that breaks off inside the file: malformed.
    const cut = body.body.subarray(0, body.body.length - 100 * KiB);
    const malformed = await rawPost(f.t.url + f.files(), f.ws.admin.token, { body: cut, contentType: body.contentType });
    expect(malformed!.status, JSON.stringify(malformed!.body)).toBe(400);
    expect(malformed!.body.code).toBe('validation_failed');
    await eventually(async () => {
      expect((await f.usage()).usage).toEqual({ storage_used_bytes: 0, storage_reserved_bytes: 0 });
      expect(await setup.stored(f.ws.workspaceId)).toEqual([]);
    });
    expect((await f.api.get(f.files(), { token: f.ws.admin.token })).body).toEqual([]);
  });

  it("deleting a comment, an issue or a workspace removes its attachments and, by the duty, their files, never another's", async () => {
    const f = await fixture();
    const other = await fixture();
    const issue2 = await createIssue(f.api, f.ws, f.project.id);
    const c = await f.api.post(`${f.issueUrl(issue2.id)}comments/`, { body: 'with a file' }, { token: f.ws.admin.token });
    const onIssue = await f.uploaded(await png(100, 100), 'on-issue.png');
    const onComment = await f.uploaded(await png(60, 60), 'on-comment.png', { commentId: c.body.id, url: f.files(issue2.id) });
    const onIssue2 = await f.uploaded(Buffer.from('issue 2'), 'issue2.txt', { url: f.files(issue2.id) });
    const theirs = await other.uploaded(await png(70, 70), 'theirs.png');
    const theirFiles = await setup.stored(other.ws.workspaceId);
    expect(theirFiles).toHaveLength(2);
    expect(await setup.stored(f.ws.workspaceId)).toHaveLength(5);

    // The comment: its file goes, the issue's stays.
    expect((await f.request('DELETE', `${f.issueUrl(issue2.id)}comments/${c.body.id}/`)).status).toBe(204);
    expect((await f.api.get(f.files(issue2.id), { token: f.ws.admin.token })).body).toEqual([onIssue2]);
    expect((await f.api.get(f.issueUrl(issue2.id), { token: f.ws.admin.token })).body.attachment_count).toBe(1);
    expectProblem(await f.request('GET', `${f.files(issue2.id)}${onComment.id}/content`), 404);
    await f.runStorageDuty();
    const afterComment = await setup.stored(f.ws.workspaceId);
    expect(afterComment).toHaveLength(3);
    expect(afterComment.some((k) => k.includes(onComment.id))).toBe(false);
    expect(afterComment.filter((k) => k.includes(onIssue.id))).toHaveLength(2);

    // The issue: its file and thumbnail go.
    expect((await f.request('DELETE', f.issueUrl())).status).toBe(204);
    await f.runStorageDuty();
    expect(await setup.stored(f.ws.workspaceId)).toEqual([`${f.ws.workspaceId}/${onIssue2.id}`]);
    expect((await f.usage()).usage).toEqual({ storage_used_bytes: onIssue2.size_bytes, storage_reserved_bytes: 0 });

    // The workspace: everything of it goes.
    expect((await f.request('DELETE', `/api/workspaces/${f.ws.slug}/`)).status).toBe(204);
    await f.runStorageDuty();
    expect(await setup.stored(f.ws.workspaceId)).toEqual([]);
    // Its counters went too, once its files were gone; the other workspace's stay.
    const counters = await sql<{ workspace_id: string }>`SELECT workspace_id FROM storage_usage
      WHERE workspace_id IN (${f.ws.workspaceId}, ${other.ws.workspaceId})`.execute(f.t.database.db);
    expect(counters.rows).toEqual([{ workspace_id: other.ws.workspaceId }]);

    // Never a file of another workspace.
    expect(await setup.stored(other.ws.workspaceId)).toEqual(theirFiles);
    expect((await other.download(`${other.files()}${theirs.id}/content`)).status).toBe(200);
    expect((await other.download(`${other.files()}${theirs.id}/thumbnail`)).status).toBe(200);
    const pending = await sql<{ n: number }>`SELECT count(*)::int AS n FROM storage_deletions`.execute(f.t.database.db);
    expect(pending.rows[0]!.n).toBe(0);
  });

  it.skipIf(kind === 's3')('sends attachment.created and attachment.deleted with data {attachment, issue}', async () => {
    const f = await fixture();
    const receiver: Receiver = await startReceiver();
    try {
      const hook = await f.api.post(
        `/api/workspaces/${f.ws.slug}/webhooks/`,
        { url: receiver.url, event_types: ['attachment.created', 'attachment.deleted'] },
        { token: f.ws.admin.token },
      );
      expect(hook.status, hook.text).toBe(201);
      const created = await f.uploaded(Buffer.from('hooked'), 'hooked.txt');
      const deliver = () => f.t.app.jobs.find((j) => j.name === 'webhooks.deliver')!.run();
      await deliver();
      await receiver.waitFor(1);
      expect((await f.request('DELETE', `${f.files()}${created.id}/`)).status).toBe(204);
      await deliver();
      const [first, second] = await receiver.waitFor(2);
      expect(first!.json).toMatchObject({ type: 'attachment.created', data: { attachment: created, issue: { id: f.issue.id, attachment_count: 1 } } });
      expect(second!.json).toMatchObject({ type: 'attachment.deleted', data: { attachment: created, issue: { id: f.issue.id, attachment_count: 0 } } });
    } finally {
      await receiver.close();
    }
  });
});
