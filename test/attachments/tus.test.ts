// Resumable uploads (contract 25.4): the tus 1.0 protocol over real HTTP, with plain fetch and tus's headers (no tus
// client library), against the local folder and an S3 bucket.
//
// The S3 bucket is s3rver, as in attachments.test.ts, with one difference: tus's S3Store asks for the parts of its
// multipart upload at every PATCH and HEAD (ListParts, `GET key?uploadId=`) and aborts it on termination
// (AbortMultipartUpload, `DELETE key?uploadId=`), and s3rver 3.7.1 has neither (405).
// `startS3Server({ emulateParts: true })` answers those two from s3rver's own folder of parts, as S3 does
// (NoSuchUpload once the upload was completed or aborted); everything else is s3rver's. What this cannot show of a
// real S3 is in docs/decisions/attachments.md.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, type WorkspaceFixture } from '../helpers/factories.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { startAppOnS3, startS3Server } from '../helpers/s3-server.js';

const KiB = 1024;
const MiB = 1_048_576;
const GiB = 1_073_741_824;
/** ATTACHMENT_MAX_MB of the apps under test. */
const MAX_FILE_BYTES = 8 * MiB;
const TUS = { 'tus-resumable': '1.0.0' };

/** One app with its storage, and what that storage holds under `tus/` (the uploads under way). */
interface Setup {
  t: TestApp;
  tusObjects(workspaceId: string): Promise<string[]>;
  close(): Promise<void>;
}

async function localSetup(corsOrigins: string[] = []): Promise<Setup> {
  const dir = await mkdtemp(join(tmpdir(), 'wis-tus-'));
  const t = await startTestApp({ storage: { maxFileBytes: MAX_FILE_BYTES, dir, s3: null }, corsOrigins });
  return {
    t,
    async tusObjects(workspaceId) {
      const names = await readdir(join(dir, 'tus', workspaceId)).catch(() => []);
      return names.map((n) => `tus/${workspaceId}/${n}`).sort();
    },
    async close() {
      await t.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function s3Setup(): Promise<Setup> {
  const app = await startAppOnS3(await startS3Server({ emulateParts: true }), MAX_FILE_BYTES);
  return { t: app.t, tusObjects: (workspaceId) => app.keys(`tus/${workspaceId}/`), close: () => app.close() };
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  const body = /json/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : text;
  return { status: res.status, headers: res.headers, text, body };
}

/** A refusal of a HEAD: problem+json by its type (a HEAD answer has no body to read). */
function expectHeadProblem(res: Answer, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.headers.get('tus-resumable')).toBe('1.0.0');
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
/** A PDF by its magic number: the attachment's type is read from the bytes. */
const pdf = (size: number): Buffer => Buffer.concat([Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1'), randomBytes(size)]).subarray(0, size);

async function fixture(setup: Setup, existing?: WorkspaceFixture) {
  const { t } = setup;
  const { api } = t;
  const ws = existing ?? (await createWorkspace(api));
  const project = await createProject(api, ws);
  const issue = await createIssue(api, ws, project.id);
  const issueUrl = (issueId = issue.id) => `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issueId}/`;
  const uploadsUrl = (issueId = issue.id) => `${issueUrl(issueId)}uploads/`;

  const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: Buffer, token: string | null = ws.admin.token) =>
    answer(
      await fetch(t.url + path, {
        method,
        headers: { ...TUS, ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers },
        ...(body === undefined ? {} : { body }),
      }),
    );
  /** POST: a new upload of `length` bytes (`metadata`: the pairs of Upload-Metadata, encoded here). */
  const create = (length: number, metadata: Record<string, string> = { filename: 'report.pdf' }, token = ws.admin.token, issueId = issue.id) =>
    call(
      'POST',
      uploadsUrl(issueId),
      {
        'upload-length': String(length),
        ...(Object.keys(metadata).length
          ? {
              'upload-metadata': Object.entries(metadata)
                .map(([k, v]) => `${k} ${b64(v)}`)
                .join(','),
            }
          : {}),
      },
      undefined,
      token,
    );
  const created = async (length: number, metadata?: Record<string, string>, token = ws.admin.token) => {
    const res = await create(length, metadata, token);
    expect(res.status, res.text).toBe(201);
    const location = res.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${uploadsUrl()}[0-9a-f-]{36}/$`));
    return { location, res };
  };
  const head = (location: string, token = ws.admin.token) => call('HEAD', location, {}, undefined, token);
  const patch = (location: string, offset: number, bytes: Buffer, token = ws.admin.token, headers: Record<string, string> = {}) =>
    call('PATCH', location, { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream', ...headers }, bytes, token);
  const terminate = (location: string, token = ws.admin.token) => call('DELETE', location, {}, undefined, token);
  const offsetOf = async (location: string) => {
    const res = await head(location);
    expect(res.status, res.text).toBe(200);
    return Number(res.headers.get('upload-offset'));
  };
  const usage = async () => {
    const res = await api.get(`/api/workspaces/${ws.slug}/billing/subscription/`, { token: ws.admin.token });
    expect(res.status, res.text).toBe(200);
    return res.body.limits.usage as { storage_used_bytes: number; storage_reserved_bytes: number };
  };
  const attachments = async (issueId = issue.id) => {
    const res = await api.get(`${issueUrl(issueId)}attachments/`, { token: ws.admin.token });
    expect(res.status, res.text).toBe(200);
    return res.body as { id: string; filename: string; content_type: string; size_bytes: number; sha256: string; comment_id: string | null }[];
  };
  /** Leaves exactly `free` bytes of the plan's storage (the counters written, as if files took the rest). */
  const leaveFree = async (free: number) => {
    const res = await api.get(`/api/workspaces/${ws.slug}/billing/subscription/`, { token: ws.admin.token });
    const limit = (res.body.limits.max_storage_gb as number) * GiB;
    await sql`INSERT INTO storage_usage (workspace_id, used_bytes) VALUES (${ws.workspaceId}, ${limit - free})
      ON CONFLICT (workspace_id) DO UPDATE SET used_bytes = excluded.used_bytes`.execute(t.database.db);
    return limit;
  };
  const runStorageDuty = () => t.app.services.attachments.runStorageDuty();
  const stored = () => setup.tusObjects(ws.workspaceId);
  return {
    t,
    api,
    ws,
    project,
    issue,
    uploadsUrl,
    call,
    create,
    created,
    head,
    patch,
    terminate,
    offsetOf,
    usage,
    attachments,
    leaveFree,
    runStorageDuty,
    stored,
  };
}

/**
 * A PATCH whose connection is lost: sends `send` of `bytes` (its Content-Length says all of them), waits, then
 * destroys the socket, as a client whose network went away.
 */
function droppedPatch(url: string, token: string, offset: number, bytes: Buffer, send: number): Promise<void> {
  return new Promise((resolve) => {
    const req = httpRequest(url, {
      method: 'PATCH',
      agent: false,
      headers: {
        ...TUS,
        authorization: `Bearer ${token}`,
        'upload-offset': String(offset),
        'content-type': 'application/offset+octet-stream',
        'content-length': String(bytes.length),
      },
    });
    req.on('error', () => resolve());
    req.on('response', () => resolve());
    req.write(bytes.subarray(0, send), () => {
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
  });
}

describe.each([
  { kind: 'local' as const, start: localSetup },
  { kind: 's3' as const, start: s3Setup },
])('resumable uploads (tus) with $kind storage', ({ kind, start }) => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await start();
  });
  afterAll(async () => setup?.close());

  it('creates, reports offsets, takes three PATCHes and makes the attachment of the last one, the space reserved until then', async () => {
    const f = await fixture(setup);
    // Three chunks, the last shorter; on S3 each is below the 5 MiB part minimum, so tus keeps the tail as `.part`.
    const file = pdf(3 * MiB + 12_345);
    const chunks = [file.subarray(0, 1 * MiB), file.subarray(1 * MiB, 2 * MiB), file.subarray(2 * MiB)];

    const { location, res } = await f.created(file.length, { filename: 'Q3 report.pdf' });
    expect(res.headers.get('tus-resumable')).toBe('1.0.0');
    const expires = new Date(res.headers.get('upload-expires')!).getTime();
    expect(expires).toBe(f.t.clock.now().getTime() - (f.t.clock.now().getTime() % 1000) + 24 * 3_600_000);
    expect(await f.usage()).toEqual({ storage_used_bytes: 0, storage_reserved_bytes: file.length });

    const first = await f.head(location);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('upload-offset')).toBe('0');
    expect(first.headers.get('upload-length')).toBe(String(file.length));
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.headers.get('upload-expires')).toBe(res.headers.get('upload-expires'));

    let offset = 0;
    for (const [i, chunk] of chunks.entries()) {
      const sent = await f.patch(location, offset, chunk);
      expect(sent.status, sent.text).toBe(204);
      offset += chunk.length;
      expect(sent.headers.get('upload-offset')).toBe(String(offset));
      expect(sent.headers.get('tus-resumable')).toBe('1.0.0');
      if (i < chunks.length - 1) {
        expect(sent.headers.get('attachment-id')).toBeNull();
        expect(sent.headers.get('upload-expires')).not.toBeNull();
        expect(await f.offsetOf(location)).toBe(offset);
        // Reserved until the end, nothing counted as used before the file is an attachment.
        expect(await f.usage()).toEqual({ storage_used_bytes: 0, storage_reserved_bytes: file.length });
      } else {
        const id = sent.headers.get('attachment-id');
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        expect(sent.headers.get('upload-expires')).toBeNull();
        const [attachment, ...others] = await f.attachments();
        expect(others).toEqual([]);
        expect(attachment).toMatchObject({
          id,
          issue_id: f.issue.id,
          comment_id: null,
          filename: 'Q3 report.pdf',
          content_type: 'application/pdf',
          size_bytes: file.length,
          sha256: sha256(file),
          created_by: f.ws.admin.user.id,
        });
        // The bytes as a client downloads them (with S3, the presigned URL the service redirects to).
        const content = await fetch(`${f.t.url}${f.uploadsUrl().replace(/uploads\/$/, `attachments/${id}/content`)}`, {
          headers: { authorization: `Bearer ${f.ws.admin.token}` },
        });
        expect(content.status).toBe(200);
        const bytes = Buffer.from(await content.arrayBuffer());
        expect(sha256(bytes)).toBe(sha256(file));
      }
    }
    expect(await f.usage()).toEqual({ storage_used_bytes: file.length, storage_reserved_bytes: 0 });
    // tus's copy is gone, and so is the upload: it is an attachment now.
    expect(await f.stored()).toEqual([]);
    expectHeadProblem(await f.head(location), 404);
    expectProblem(await f.patch(location, file.length, Buffer.alloc(0)), 404, 'not_found');
  });

  it('resumes after a PATCH whose connection dropped, from the offset HEAD reports', async () => {
    const f = await fixture(setup);
    const file = pdf(2 * MiB + 777);
    const { location } = await f.created(file.length, { filename: 'resumed.pdf' });
    const first = await f.patch(location, 0, file.subarray(0, MiB));
    expect(first.status, first.text).toBe(204);

    // Half of the second chunk arrives, then the connection is gone.
    await droppedPatch(f.t.url + location, f.ws.admin.token, MiB, file.subarray(MiB), 512 * KiB);
    const offset = await f.offsetOf(location);
    expect(offset).toBeLessThanOrEqual(MiB + 512 * KiB);
    // The local file keeps every byte that arrived. tus's S3Store keeps whole parts of at least 5 MiB: a PATCH takes
    // the pending tail (`.part`, the first MiB here) into the part it builds, so a PATCH cut short drops that tail
    // too, and HEAD says so: the client sends again from there.
    if (kind === 'local') expect(offset).toBeGreaterThan(MiB);
    else expect(offset).toBe(0);

    // Sending from another offset changes nothing.
    expectProblem(await f.patch(location, offset + 1, file.subarray(offset + 1)), 409, 'conflict');
    expect(await f.offsetOf(location)).toBe(offset);
    const rest = await f.patch(location, offset, file.subarray(offset));
    expect(rest.status, rest.text).toBe(204);
    const id = rest.headers.get('attachment-id');
    const [attachment] = await f.attachments();
    expect(attachment).toMatchObject({ id, size_bytes: file.length, sha256: sha256(file), content_type: 'application/pdf', filename: 'resumed.pdf' });
    expect(await f.usage()).toEqual({ storage_used_bytes: file.length, storage_reserved_bytes: 0 });
    expect(await f.stored()).toEqual([]);
  });

  it('refuses a creation over the plan storage with 402 before anything is stored, and reserves the length of one that fits', async () => {
    const f = await fixture(setup);
    const limit = await f.leaveFree(5000);
    const refused = await f.create(5001);
    expectProblem(refused, 402, 'storage_limit_reached');
    expect(refused.body).toMatchObject({ used_bytes: limit - 5000, limit_bytes: limit });
    expect(refused.headers.get('location')).toBeNull();
    expect(await f.usage()).toEqual({ storage_used_bytes: limit - 5000, storage_reserved_bytes: 0 });
    expect(await f.stored()).toEqual([]);

    const { location } = await f.created(5000);
    expect(await f.usage()).toEqual({ storage_used_bytes: limit - 5000, storage_reserved_bytes: 5000 });
    // The room is taken by the upload under way: another one does not fit, even a byte.
    expectProblem(await f.create(1), 402, 'storage_limit_reached');
    const done = await f.patch(location, 0, pdf(5000));
    expect(done.status, done.text).toBe(204);
    expect(done.headers.get('attachment-id')).not.toBeNull();
    expect(await f.usage()).toEqual({ storage_used_bytes: limit, storage_reserved_bytes: 0 });
  });

  it('terminates an upload: its bytes are removed and its space freed', async () => {
    const f = await fixture(setup);
    const { location } = await f.created(2 * MiB);
    expect((await f.patch(location, 0, pdf(MiB))).status).toBe(204);
    expect((await f.stored()).length).toBeGreaterThan(0);
    expect((await f.usage()).storage_reserved_bytes).toBe(2 * MiB);

    const gone = await f.terminate(location);
    expect(gone.status, gone.text).toBe(204);
    expect(gone.headers.get('tus-resumable')).toBe('1.0.0');
    expect(await f.usage()).toEqual({ storage_used_bytes: 0, storage_reserved_bytes: 0 });
    expect(await f.stored()).toEqual([]);
    expectHeadProblem(await f.head(location), 404);
    expectProblem(await f.terminate(location), 404, 'not_found');
    expect(await f.attachments()).toEqual([]);
  });

  it('removes an upload left 24 hours without a write, and frees its space; every PATCH moves the expiry', async () => {
    const f = await fixture(setup);
    const { location } = await f.created(3 * MiB);
    expect((await f.patch(location, 0, pdf(MiB))).status).toBe(204);
    // 23 h later a PATCH keeps it another 24 h.
    f.t.clock.advanceHours(23);
    const later = await f.patch(location, MiB, pdf(MiB));
    expect(later.status, later.text).toBe(204);
    expect(new Date(later.headers.get('upload-expires')!).getTime()).toBe(f.t.clock.now().getTime() - (f.t.clock.now().getTime() % 1000) + 24 * 3_600_000);
    f.t.clock.advanceHours(23);
    await f.runStorageDuty();
    expect(await f.offsetOf(location)).toBe(2 * MiB);

    f.t.clock.advanceHours(1.5);
    // Past its expiry: gone for the client at once (410), removed by the duty (its next run removes the files).
    expectHeadProblem(await f.head(location), 410);
    expectProblem(await f.patch(location, 2 * MiB, pdf(MiB)), 410, 'upload_expired');
    await f.runStorageDuty();
    await f.runStorageDuty();
    expect(await f.usage()).toEqual({ storage_used_bytes: 0, storage_reserved_bytes: 0 });
    expect(await f.stored()).toEqual([]);
    expectHeadProblem(await f.head(location), 404);
    expect(await f.attachments()).toEqual([]);
  });
});

describe('resumable uploads (tus): the protocol and who may upload', () => {
  const origin = 'https://console.example.com';
  let setup: Setup;
  beforeAll(async () => {
    setup = await localSetup([origin]);
  });
  afterAll(async () => setup?.close());

  it('answers discovery (OPTIONS) with the version, the extensions and the largest upload, without a token', async () => {
    const f = await fixture(setup);
    const res = await f.call('OPTIONS', f.uploadsUrl(), {}, undefined, null);
    expect(res.status, res.text).toBe(204);
    expect(res.headers.get('tus-version')).toBe('1.0.0');
    expect(res.headers.get('tus-extension')!.split(',').sort()).toEqual(['creation', 'creation-with-upload', 'expiration', 'termination']);
    expect(res.headers.get('tus-max-size')).toBe(String(MAX_FILE_BYTES));
    // tus's own CORS headers are not passed on: CORS is the app's (CORS_ORIGINS).
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("answers a browser's preflight from a CORS origin with tus's methods and headers, and exposes tus's answer headers", async () => {
    const f = await fixture(setup);
    const preflight = await fetch(f.t.url + f.uploadsUrl(), {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, tus-resumable, upload-length' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(preflight.headers.get('access-control-allow-headers')!.toLowerCase().split(', ')).toEqual(
      expect.arrayContaining(['authorization', 'tus-resumable', 'upload-length', 'upload-offset', 'upload-metadata', 'content-type']),
    );
    const elsewhere = await fetch(f.t.url + f.uploadsUrl(), {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();

    const res = await f.call('POST', f.uploadsUrl(), { origin, 'upload-length': '10', 'upload-metadata': `filename ${b64('x.pdf')}` });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    expect(res.headers.get('access-control-expose-headers')!.split(', ')).toEqual(
      expect.arrayContaining(['Location', 'Tus-Resumable', 'Upload-Offset', 'Upload-Length', 'Upload-Expires', 'Attachment-Id']),
    );
  });

  it('refuses without a token (401), a guest (403), and an issue, upload or workspace that is not there (404)', async () => {
    const f = await fixture(setup);
    expectProblem(await f.call('POST', f.uploadsUrl(), { 'upload-length': '10' }, undefined, null), 401, 'unauthenticated');
    const guest = await f.ws.addUser('guest');
    expectProblem(await f.create(10, { filename: 'a.pdf' }, guest.token), 403, 'forbidden');
    expectProblem(await f.create(10, { filename: 'a.pdf' }, f.ws.admin.token, '0190a0b0-0000-7000-8000-000000000000'), 404, 'not_found');

    const { location } = await f.created(10);
    expectHeadProblem(await f.call('HEAD', location, {}, undefined, null), 401);
    expectProblem(await f.patch(location, 0, pdf(10), guest.token), 403, 'forbidden');
    // Another member may not continue someone else's upload; an admin may terminate it.
    const member = await f.ws.addUser('member');
    expectProblem(await f.patch(location, 0, pdf(10), member.token), 403, 'forbidden');
    expectProblem(await f.terminate(location, member.token), 403, 'forbidden');

    // The upload under another issue of the workspace, and another workspace with its own issue: 404.
    const otherIssue = await createIssue(f.api, f.ws, f.project.id);
    const uploadId = location.split('/').at(-2)!;
    expectHeadProblem(await f.head(`${f.uploadsUrl(otherIssue.id)}${uploadId}/`), 404);
    const other = await fixture(setup);
    expectHeadProblem(await other.head(`${other.uploadsUrl()}${uploadId}/`), 404);
    expectProblem(await other.patch(`${other.uploadsUrl()}${uploadId}/`, 0, pdf(10)), 404, 'not_found');
    expectProblem(await other.terminate(`${other.uploadsUrl()}${uploadId}/`), 404, 'not_found');
    // Its URL with the other workspace's slug: that admin is no member of this workspace.
    expectHeadProblem(await other.head(location), 404);
    expect(await f.offsetOf(location)).toBe(0);

    const admin = await f.ws.addUser('admin');
    expect((await f.terminate(location, admin.token)).status).toBe(204);
  });

  it('speaks tus 1.0 only, wants the length at creation and the offset and type of a PATCH, as problem+json', async () => {
    const f = await fixture(setup);
    const noVersion = await answer(
      await fetch(f.t.url + f.uploadsUrl(), { method: 'POST', headers: { authorization: `Bearer ${f.ws.admin.token}`, 'upload-length': '10' } }),
    );
    expectProblem(noVersion, 412, 'tus_version_unsupported');
    expect(noVersion.headers.get('tus-version')).toBe('1.0.0');
    expectProblem(await f.call('POST', f.uploadsUrl(), { 'tus-resumable': '0.2.2', 'upload-length': '10' }), 412, 'tus_version_unsupported');
    expectProblem(await f.call('POST', f.uploadsUrl()), 400, 'validation_failed');
    expectProblem(await f.call('POST', f.uploadsUrl(), { 'upload-defer-length': '1' }), 400, 'validation_failed');
    expectProblem(await f.call('POST', f.uploadsUrl(), { 'upload-length': '-1' }), 400, 'validation_failed');
    expectProblem(await f.call('POST', f.uploadsUrl(), { 'upload-length': '10', 'upload-metadata': 'filename not base64!' }), 400, 'validation_failed');
    expectProblem(await f.create(MAX_FILE_BYTES + 1), 413, 'file_too_large');
    expect(await f.usage()).toEqual({ storage_used_bytes: 0, storage_reserved_bytes: 0 });
    expect(await f.stored()).toEqual([]);

    const { location } = await f.created(100);
    expectProblem(await f.patch(location, 0, pdf(10), f.ws.admin.token, { 'content-type': 'application/octet-stream' }), 415, 'unsupported_media_type');
    expectProblem(await f.call('PATCH', location, { 'content-type': 'application/offset+octet-stream' }, pdf(10)), 400, 'validation_failed');
    expectProblem(await f.patch(location, 5, pdf(10)), 409, 'conflict');
    // More bytes than the upload's length: refused, nothing written.
    expectProblem(await f.patch(location, 0, pdf(101)), 413, 'file_too_large');
    expect(await f.offsetOf(location)).toBe(0);
    expectProblem(await f.call('PATCH', `${f.uploadsUrl()}not-a-uuid/`, { 'content-type': 'application/offset+octet-stream' }, pdf(1)), 400);
  });

  it('stores the file on the comment named in the metadata, and refuses a comment of another issue', async () => {
    const f = await fixture(setup);
    const comment = await f.api.post(`${f.uploadsUrl().replace(/uploads\/$/, 'comments/')}`, { body: 'See the file' }, { token: f.ws.admin.token });
    expect(comment.status, comment.text).toBe(201);
    const otherIssue = await createIssue(f.api, f.ws, f.project.id);
    const elsewhere = await f.api.post(`${f.uploadsUrl(otherIssue.id).replace(/uploads\/$/, 'comments/')}`, { body: 'x' }, { token: f.ws.admin.token });
    expectProblem(await f.create(10, { filename: 'a.pdf', comment_id: elsewhere.body.id }), 404, 'not_found');
    expectProblem(await f.create(10, { filename: 'a.pdf', comment_id: 'nope' }), 400, 'validation_failed');

    const file = pdf(4000);
    const { location } = await f.created(file.length, { filename: 'on-comment.pdf', comment_id: comment.body.id });
    const done = await f.patch(location, 0, file);
    expect(done.status, done.text).toBe(204);
    const [attachment] = await f.attachments();
    expect(attachment).toMatchObject({ id: done.headers.get('attachment-id'), comment_id: comment.body.id, filename: 'on-comment.pdf' });
  });

  it('makes the attachment at once from a creation that carries the whole file (creation-with-upload), and of an empty file', async () => {
    const f = await fixture(setup);
    const file = pdf(3000);
    const res = await f.call(
      'POST',
      f.uploadsUrl(),
      { 'upload-length': String(file.length), 'upload-metadata': `filename ${b64('whole.pdf')}`, 'content-type': 'application/offset+octet-stream' },
      file,
    );
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('upload-offset')).toBe(String(file.length));
    const id = res.headers.get('attachment-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('upload-expires')).toBeNull();
    const empty = await f.create(0, { filename: '../../etc/em\u0000pty.txt' });
    expect(empty.status, empty.text).toBe(201);
    expect((await f.attachments()).map((a) => [a.filename, a.size_bytes, a.sha256])).toEqual(
      expect.arrayContaining([
        ['whole.pdf', file.length, sha256(file)],
        ['empty.txt', 0, sha256(Buffer.alloc(0))],
      ]),
    );
    expect(await f.usage()).toEqual({ storage_used_bytes: file.length, storage_reserved_bytes: 0 });
    expect(await f.stored()).toEqual([]);
  });
});
