/**
 * Attachments (contract 25.6), `npm run bench -- --attachments [--quick]` (also alone: `npx tsx bench/attachments.ts
 * [--quick] [--no-s3]`). The compiled service as `npm start` runs it (dist/, embedded database in a folder of its own),
 * driven over HTTP from this process:
 * 1. A 1 GB upload (1,073,741,824 bytes; quick: 256 MiB) to local storage, streamed as multipart: MB/s (target >= 100)
 *    and the service's resident memory, sampled every 20 ms, against its idle RSS before (target: within 50 MB). The
 *    same through S3 (`s3rver`, the S3-compatible server the tests use, on this machine).
 * 2. 100 concurrent 1 MiB uploads against a workspace with exactly 50 MiB of room (the free plan's 1 GiB, filled by
 *    one upload of 1 GiB - 50 MiB first): stored, refused, and the usage the API reports afterwards (target: exactly
 *    50 and 50, usage exact, nothing reserved).
 * 3. Downloads of a 10 MB file (4 keep-alive connections, bodies dropped) against a plain `fs.createReadStream` HTTP server in a
 *    child process of its own, serving the same file from the same disk (target: >= 0.8x its MB/s).
 * Writes bench/results/attachments.md.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { s3Storage } from '../src/modules/attachments/attachments.s3.js';
import { startS3Server } from '../test/helpers/s3-server.js';
import { ROOT, startCompiledService } from './compiled-service.js';
import { freePort } from './bench-server.js';

const log = (...a: unknown[]) => console.error(...a);
const MIB = 1_048_576;
const GIB = 1_073_741_824;

const rssOf = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
};

interface Api {
  base: string;
  token: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
}

async function signUp(base: string, email: string): Promise<Api> {
  const res = await fetch(`${base}/api/auth/sign-up/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery staple', display_name: 'Bench' }),
  });
  const { token } = (await res.json()) as { token: string };
  return {
    base,
    token,
    async call(method, path, body) {
      const r = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      return { status: r.status, json: text ? JSON.parse(text) : null };
    },
  };
}

async function issueIn(api: Api, slug: string, plan: 'free' | 'pro') {
  await api.call('POST', '/api/workspaces/', { name: slug, slug });
  if (plan === 'pro') {
    const trial = await api.call('POST', `/api/workspaces/${slug}/billing/trial/`, { plan_slug: 'pro' });
    if (trial.status !== 201) throw new Error(`trial: ${trial.status} ${JSON.stringify(trial.json)}`);
  }
  const project = (await api.call('POST', `/api/workspaces/${slug}/projects/`, { name: 'Files', identifier: 'FIL' })).json as { id: string };
  const issue = (await api.call('POST', `/api/workspaces/${slug}/projects/${project.id}/issues/`, { name: 'Screenshots' })).json as { id: string };
  return { slug, projectId: project.id, issueId: issue.id, path: `/api/workspaces/${slug}/projects/${project.id}/issues/${issue.id}/attachments/` };
}

/**
 * Streams a multipart upload of `size` bytes (a 1 MiB random block repeated, honouring backpressure) with its exact
 * Content-Length, as a browser or curl sends it. Answers the status, the body and the seconds it took.
 */
function upload(api: Api, path: string, size: number, block: Buffer): Promise<{ status: number; body: string; seconds: number }> {
  const boundary = `----wisbench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const url = new URL(path, api.base);
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${api.token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + size + tail.length),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, seconds: (performance.now() - started) / 1000 }));
      },
    );
    req.on('error', reject);
    req.write(head);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const n = Math.min(block.length, size - sent);
        sent += n;
        if (!req.write(n === block.length ? block : block.subarray(0, n))) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

/** `size` bytes as repeats of `block`. */
function* blocks(block: Buffer, size: number): Generator<Buffer> {
  for (let sent = 0; sent < size; sent += block.length) yield sent + block.length <= size ? block : block.subarray(0, size - sent);
}

/** The 1 GB upload with the service's RSS sampled throughout. */
async function bigUpload(env: Record<string, string>, size: number, label: string, dataDir: string) {
  const svc = await startCompiledService({ ...env, DATA_DIR: dataDir, JOB_INTERVAL_MS: '0', LOG_LEVEL: 'warn', ATTACHMENT_MAX_MB: '5000' });
  try {
    const api = await signUp(svc.base, `big-${label}@bench.test`);
    const target = await issueIn(api, `big-${label}`, 'pro');
    const block = randomBytes(MIB);
    // Warm up (code paths, pools), then settle: idle RSS is read after a quiet second.
    for (let i = 0; i < 3; i++) await upload(api, target.path, 4 * MIB, block);
    await new Promise((r) => setTimeout(r, 1000));
    const pid = svc.child.pid as number;
    const idle = rssOf(pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
    const result = await upload(api, target.path, size, block);
    clearInterval(sampler);
    peak = Math.max(peak, rssOf(pid));
    if (result.status !== 201) throw new Error(`${label} upload: ${result.status} ${result.body}`);
    const mbps = size / 1_000_000 / result.seconds;
    log(
      `${label}: ${(size / MIB).toFixed(0)} MiB in ${result.seconds.toFixed(2)} s = ${mbps.toFixed(0)} MB/s; RSS idle ${(idle / MIB).toFixed(0)} MiB, peak ${(peak / MIB).toFixed(0)} MiB`,
    );
    return { label, size, seconds: result.seconds, mbps, idle, peak };
  } finally {
    await svc.stop();
  }
}

/** 100 concurrent 1 MiB uploads against exactly 50 MiB of room. */
async function quotaRace(dataDir: string, uploads: number, room: number) {
  const svc = await startCompiledService({ DATA_DIR: dataDir, JOB_INTERVAL_MS: '0', LOG_LEVEL: 'warn', ATTACHMENT_MAX_MB: '5000' });
  try {
    const api = await signUp(svc.base, 'race@bench.test');
    const target = await issueIn(api, 'race', 'free');
    const block = randomBytes(MIB);
    const filler = await upload(api, target.path, GIB - room * MIB, block);
    if (filler.status !== 201) throw new Error(`filler: ${filler.status} ${filler.body}`);
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: uploads }, () => upload(api, target.path, MIB, block)));
    const seconds = (performance.now() - started) / 1000;
    const stored = results.filter((r) => r.status === 201).length;
    const refused = results.filter((r) => r.status === 402).length;
    const other = results.filter((r) => r.status !== 201 && r.status !== 402).map((r) => r.status);
    const usage = (await api.call('GET', `/api/workspaces/${target.slug}/billing/subscription/`)).json.limits.usage as {
      storage_used_bytes: number;
      storage_reserved_bytes: number;
    };
    const listed = (await api.call('GET', target.path)).json as { size_bytes: number }[];
    const expected = listed.reduce((s, a) => s + a.size_bytes, 0);
    log(
      `quota race: ${stored} stored, ${refused} refused, other ${JSON.stringify(other)} in ${seconds.toFixed(2)} s; used ${usage.storage_used_bytes} (files ${expected}), reserved ${usage.storage_reserved_bytes}`,
    );
    return { uploads, room, stored, refused, other, usage, expected, seconds };
  } finally {
    await svc.stop();
  }
}

/** A plain file server in a child process: `fs.createReadStream` of one file, nothing else. */
async function plainServer(file: string): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const code = `const http=require('node:http'),fs=require('node:fs');const size=fs.statSync(${JSON.stringify(file)}).size;
http.createServer((q,s)=>{s.writeHead(200,{'content-type':'application/octet-stream','content-length':size});fs.createReadStream(${JSON.stringify(file)}).pipe(s)}).listen(${port},'127.0.0.1',()=>console.log('up'))`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((r) => child.stdout.once('data', r));
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill() };
}

/**
 * Downloads over 4 keep-alive connections for `seconds`, the bodies read and dropped (autocannon keeps each body and
 * was the bottleneck on 10 MB answers: both servers measured the client's speed).
 */
async function throughput(url: string, headers: Record<string, string>, seconds: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const deadline = performance.now() + seconds * 1000;
  let bytes = 0;
  let errors = 0;
  const loop = async () => {
    while (performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        get(url, { agent, headers }, (res) => {
          if (res.statusCode !== 200) errors++;
          res.on('data', (c: Buffer) => (bytes += c.length));
          res.on('end', resolve);
        }).on('error', () => {
          errors++;
          resolve();
        });
      });
    }
  };
  const started = performance.now();
  await Promise.all([loop(), loop(), loop(), loop()]);
  agent.destroy();
  return { mbps: bytes / 1_000_000 / ((performance.now() - started) / 1000), errors };
}

async function downloads(dataDir: string, seconds: number) {
  const svc = await startCompiledService({ DATA_DIR: dataDir, JOB_INTERVAL_MS: '0', LOG_LEVEL: 'warn', API_RATE_LIMIT: '0' });
  try {
    const api = await signUp(svc.base, 'dl@bench.test');
    const target = await issueIn(api, 'dl', 'free');
    const size = 10_000_000;
    const stored = await upload(api, target.path, size, randomBytes(MIB));
    const attachment = JSON.parse(stored.body) as { id: string };
    const file = join(dataDir, 'files', (await api.call('GET', `/api/workspaces/dl/`)).json.id as string, attachment.id);
    const plain = await plainServer(file);
    try {
      const auth = { authorization: `Bearer ${api.token}` };
      const content = `${svc.base}${target.path}${attachment.id}/content`;
      await throughput(content, auth, 2); // warm-up
      await throughput(plain.url, {}, 2);
      const rounds: { service: number; plain: number }[] = [];
      for (let i = 0; i < 2; i++) {
        const service = await throughput(content, auth, seconds);
        const raw = await throughput(plain.url, {}, seconds);
        if (service.errors > 0) throw new Error(`download errors: ${service.errors}`);
        rounds.push({ service: service.mbps, plain: raw.mbps });
      }
      const service = rounds.reduce((s, r) => s + r.service, 0) / rounds.length;
      const raw = rounds.reduce((s, r) => s + r.plain, 0) / rounds.length;
      log(`download 10 MB: service ${service.toFixed(0)} MB/s, plain fs.createReadStream ${raw.toFixed(0)} MB/s, ratio ${(service / raw).toFixed(2)}`);
      return { service, plain: raw, ratio: service / raw };
    } finally {
      plain.stop();
    }
  } finally {
    await svc.stop();
  }
}

export async function runAttachmentsBench(opts: { quick: boolean; s3: boolean }): Promise<string> {
  const size = opts.quick ? 256 * MIB : GIB;
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'wis-bench-files-'));
    dirs.push(d);
    return d;
  };
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  try {
    const only = process.env.ATTACHMENTS_BENCH_ONLY;
    if (only === 'download') {
      const dl = await downloads(dir(), opts.quick ? 3 : 8);
      return `download: ${dl.service.toFixed(0)} / ${dl.plain.toFixed(0)} MB/s = ${dl.ratio.toFixed(2)}`;
    }
    const local = await bigUpload({}, size, 'local', dir());
    let s3: Awaited<ReturnType<typeof bigUpload>> | null = null;
    let s3Direct: { seconds: number; mbps: number } | null = null;
    if (opts.s3) {
      const server = await startS3Server();
      try {
        const c = server.config;
        // The store's own speed, without the service: the same bytes put by the SDK from this process, as the service's
        // storage puts them (s3rver writes each part, then joins them into the object, on the same 2 cores).
        const block = randomBytes(MIB);
        const started = performance.now();
        await s3Storage(c).put(`direct/${randomBytes(8).toString('hex')}`, Readable.from(blocks(block, size)), { contentType: 'application/octet-stream' });
        const seconds = (performance.now() - started) / 1000;
        s3Direct = { seconds, mbps: size / 1_000_000 / seconds };
        log(`s3 direct (SDK, no service): ${(size / MIB).toFixed(0)} MiB in ${seconds.toFixed(2)} s = ${s3Direct.mbps.toFixed(0)} MB/s`);
        s3 = await bigUpload(
          {
            STORAGE: 's3',
            S3_ENDPOINT: c.endpoint ?? '',
            S3_REGION: c.region,
            S3_BUCKET: c.bucket,
            S3_ACCESS_KEY_ID: c.accessKeyId,
            S3_SECRET_ACCESS_KEY: c.secretAccessKey,
            S3_FORCE_PATH_STYLE: 'true',
          },
          size,
          's3',
          dir(),
        );
      } finally {
        await server.close();
      }
    }
    const race = await quotaRace(dir(), 100, 50);
    const dl = await downloads(dir(), opts.quick ? 3 : 8);
    const row = (r: NonNullable<typeof s3>, where: string) =>
      `| ${where} | ${(r.size / MIB).toFixed(0)} MiB | ${r.seconds.toFixed(2)} s | **${r.mbps.toFixed(0)} MB/s** | ${(r.idle / MIB).toFixed(0)} MiB | ${(r.peak / MIB).toFixed(0)} MiB | **+${((r.peak - r.idle) / MIB).toFixed(0)} MiB** |`;
    return [
      `# Attachments (contract 25.6)`,
      ``,
      `\`npm run bench -- --attachments${opts.quick ? ' --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}; load average at the start ${load}. The compiled service on the embedded database; uploads streamed as multipart with their Content-Length from this process.`,
      ``,
      `## One big upload (target >= 100 MB/s, RSS within 50 MB of idle)`,
      ``,
      `| storage | file | time | speed | RSS idle | RSS peak | growth |`,
      `|---|---:|---:|---:|---:|---:|---:|`,
      row(local, 'local folder'),
      ...(s3 ? [row(s3, 'S3 (s3rver on this machine)')] : []),
      ``,
      ...(s3Direct
        ? [
            `The same bytes put into s3rver by the SDK from the bench process, without the service: ${s3Direct.seconds.toFixed(2)} s = **${s3Direct.mbps.toFixed(0)} MB/s**, the store's own ceiling on this machine (it writes every part, then joins them into the object).`,
            ``,
          ]
        : []),
      `## 100 concurrent 1 MiB uploads against 50 MiB of room (target: exactly 50 stored, 50 refused)`,
      ``,
      `| uploads | stored (201) | refused (402) | other | storage_used_bytes | sum of the files | reserved after | time |`,
      `|---:|---:|---:|---:|---:|---:|---:|---:|`,
      `| ${race.uploads} | **${race.stored}** | **${race.refused}** | ${race.other.length} | ${race.usage.storage_used_bytes} | ${race.expected} | ${race.usage.storage_reserved_bytes} | ${race.seconds.toFixed(2)} s |`,
      ``,
      `## Download of a 10 MB file (4 connections; target >= 0.8x a plain fs.createReadStream server)`,
      ``,
      `| service | plain server | ratio |`,
      `|---:|---:|---:|`,
      `| ${dl.service.toFixed(0)} MB/s | ${dl.plain.toFixed(0)} MB/s | **${dl.ratio.toFixed(2)}** |`,
      ``,
    ].join('\n');
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const quick = argv.includes('--quick');
  const md = await runAttachmentsBench({ quick, s3: !argv.includes('--no-s3') });
  if (!quick) writeFileSync(join(ROOT, 'bench', 'results', 'attachments.md'), `${md.trimEnd()}\n`);
  console.log(md);
}
