import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

const MIB = 1024 * 1024;

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** An error the client met while it sent or read (EPIPE, ECONNRESET), or a timeout. */
  clientError: string | null;
  /** Body bytes the client managed to write. */
  sent: number;
}

/** A JSON object of about `size` bytes: what a client sends when a user pastes too much into a field. */
function oversizedJson(size: number): Buffer {
  const head = Buffer.from('{"name":"');
  const tail = Buffer.from('"}');
  return Buffer.concat([head, Buffer.alloc(size - head.length - tail.length, 'x'), tail]);
}

/**
 * One request over a raw socket, as a plain HTTP/1.1 client sends it: the headers, then the whole body in 64 KiB
 * writes (with Content-Length, or chunked), reading the answer as it comes. Any socket error is recorded, not thrown.
 */
function sendRaw(url: string, method: string, path: string, token: string, body: Buffer, framing: 'length' | 'chunked'): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    let clientError: string | null = null;
    let sent = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(received).toString('latin1');
      const split = raw.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = (split < 0 ? raw : raw.slice(0, split)).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      const text = split < 0 ? '' : Buffer.from(raw.slice(split + 4), 'latin1').toString('utf8');
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, text, clientError, sent });
    };
    const timer = setTimeout(() => {
      clientError ??= 'timeout';
      finish();
    }, 20_000);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      // A keep-alive answer is over at its Content-Length; one with `Connection: close` when the server closes.
      const raw = Buffer.concat(received).toString('latin1');
      const split = raw.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, split));
      if (split >= 0 && length && !/\r\nconnection: *close/i.test(raw.slice(0, split)) && raw.length - split - 4 >= Number(length[1])) finish();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clientError ??= error.code ?? error.message;
      finish();
    });
    socket.on('close', finish);

    const write = (chunk: Buffer | string): Promise<void> =>
      new Promise((ok) => {
        if (socket.destroyed || done) return ok();
        if (socket.write(chunk)) ok();
        else socket.once('drain', ok);
      });

    socket.once('connect', () => {
      void (async () => {
        const headers = [
          `${method} ${path} HTTP/1.1`,
          `Host: ${hostname}:${port}`,
          `Authorization: Bearer ${token}`,
          'Content-Type: application/json',
          framing === 'length' ? `Content-Length: ${body.length}` : 'Transfer-Encoding: chunked',
        ];
        await write(`${headers.join('\r\n')}\r\n\r\n`);
        for (let at = 0; at < body.length && !done; at += 64 * 1024) {
          const piece = body.subarray(at, at + 64 * 1024);
          await write(framing === 'length' ? piece : Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]));
          sent += piece.length;
        }
        if (framing === 'chunked') await write('0\r\n\r\n');
      })();
    });
  });
}

describe('bodies over the 1 MiB limit', () => {
  it('answer a readable 413 problem+json and close the connection, never a reset, with Content-Length or chunked', async () => {
    const { api, url } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id);
    const token = ws.admin.token;
    const operations: [string, string][] = [
      ['POST', '/api/workspaces/'],
      ['POST', `/api/workspaces/${ws.slug}/projects/`],
      ['PATCH', `/api/workspaces/${ws.slug}/projects/${project.id}/`],
      ['POST', `/api/workspaces/${ws.slug}/projects/${project.id}/issues/`],
      ['PATCH', `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`],
      ['POST', `/api/workspaces/${ws.slug}/sla-policies/`],
    ];
    const bodies = [oversizedJson(1.5 * MIB), oversizedJson(8 * MIB)];
    const framings = ['length', 'chunked'] as const;

    const failures: string[] = [];
    for (let i = 0; i < 50; i++) {
      // Every operation gets each size with each framing.
      const [method, path] = operations[Math.floor(i / 4) % operations.length]!;
      const body = bodies[i % 2]!;
      const framing = framings[Math.floor(i / 2) % 2]!;
      const answer = await sendRaw(url, method, path, token, body, framing);
      const what = `#${i} ${method} ${path} ${body.length} bytes ${framing}`;
      if (answer.clientError) failures.push(`${what}: ${answer.clientError} after ${answer.sent} bytes (status ${answer.status})`);
      else if (answer.status !== 413) failures.push(`${what}: status ${answer.status}`);
      else {
        expect(answer.headers['content-type'], what).toMatch(/^application\/problem\+json/);
        expect(answer.headers.connection, what).toBe('close');
        expect(JSON.parse(answer.text), what).toMatchObject({ type: 'about:blank', status: 413, code: 'payload_too_large' });
        expect(answer.sent, what).toBe(body.length);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('still answers 413 at once, and closes, when Content-Length announces more than it would read', async () => {
    const { api, url } = ctx();
    const ws = await createWorkspace(api);
    const { hostname, port } = new URL(url);
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(received).toString('utf8')));
      // 1 GiB announced, none of it sent: the server must neither wait for it nor read it.
      socket.write(
        `POST /api/workspaces/ HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${ws.admin.token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${1024 * MIB}\r\n\r\n`,
      );
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain('"code":"payload_too_large"');
  });

  it("answers the provider callback's bodies over its 64 KiB the same way: a readable plain-text 413, then close", async () => {
    const { url } = ctx();
    for (const framing of ['length', 'chunked'] as const) {
      for (let i = 0; i < 5; i++) {
        const answer = await sendRaw(url, 'POST', '/api/webhooks/provider/callback/', 'none', oversizedJson(MIB), framing);
        expect(answer.clientError, framing).toBeNull();
        expect(answer.status).toBe(413);
        expect(answer.headers['content-type']).toMatch(/^text\/plain/);
        expect(answer.headers.connection).toBe('close');
        expect(answer.text).toBe('PAYLOAD TOO LARGE');
        expect(answer.sent).toBe(MIB);
      }
    }
  });

  it('answers a small body as before on the same kind of connection', async () => {
    const { api, url } = ctx();
    const ws = await createWorkspace(api);
    const body = Buffer.from(JSON.stringify({ name: 'Small', identifier: 'SMALL' }));
    const answer = await sendRaw(url, 'POST', `/api/workspaces/${ws.slug}/projects/`, ws.admin.token, body, 'chunked');
    expect(answer.clientError).toBeNull();
    expect(answer.status).toBe(201);
  });
});
