/**
 * What the security headers and CORS (contract section 22) cost per request, measured side by side with them off,
 * against the GET issue SLA tracker's server CPU per request. Bare Fastify apps with a tracker-sized JSON route under
 * /api/, one without `registerSecurityHeaders`, one with it (default configuration), one with it and CORS_ORIGINS set
 * (a listed Origin sent):
 * - over HTTP (the verdict): each app in a process of its own (bench/security-headers-server.ts), driven alternately
 *   through real sockets (4 connections); the server process's own CPU per request, as it reports it;
 * - through `inject` (for reference): the whole request lifecycle without sockets, in this process. inject handles
 *   response headers in JavaScript objects, so each header costs it several times what a socket write does.
 * Part of `npm run bench`; by hand: `npx tsx bench/security-headers.ts [--quick]`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { loadConfig } from '../src/config/config.js';
import { registerSecurityHeaders } from '../src/http/security-headers.js';

export const TRACKER = {
  id: '01a21159-2800-723a-a12e-b1eafd7fcf95',
  policy_id: '01a21159-2800-723a-a12e-b1eafd7fcf96',
  status: 'running',
  response_due_at: '2026-11-25T10:00:00.000Z',
  resolution_due_at: '2026-11-26T10:00:00.000Z',
  breached: false,
  at_risk: false,
  paused_ms: 0,
  events: [{ type: 'started', at: '2026-11-25T08:00:00.000Z' }],
};
// Server CPU per GET issue SLA tracker request of the 2026-11-24 full run (bench/results/latest.md): PostgreSQL 465 µs,
// PGlite 2995 µs. The smaller is the harder target.
const TRACKER_CPU_US = 465;
const TARGET_PERCENT = 3;

async function app(env: Record<string, string> | undefined) {
  const a = Fastify({ logger: false });
  if (env) await registerSecurityHeaders(a, loadConfig(env));
  a.get('/api/workspaces/:slug/issues/:id/sla/', async () => TRACKER);
  await a.ready();
  return a;
}

const request = {
  method: 'GET' as const,
  url: '/api/workspaces/acme/issues/1/sla/',
  headers: { authorization: 'Bearer x', origin: 'https://portal.example.com' },
};

// CPU time of this process (user + system), not wall time: scheduling noise is larger than the difference measured.
async function cpuPerRequest(a: Awaited<ReturnType<typeof app>>, count: number): Promise<number> {
  const t = process.cpuUsage();
  for (let i = 0; i < count; i++) await a.inject(request);
  const d = process.cpuUsage(t);
  return (d.user + d.system) / count;
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

type Mode = 'off' | 'on' | 'cors';

interface Served {
  child: ChildProcess;
  pool: Pool;
}

async function serve(mode: Mode): Promise<Served> {
  const server = fileURLToPath(new URL('./security-headers-server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', server, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the ${mode} server exited with ${code}`)));
    child.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
  });
  return { child, pool: new Pool(`http://127.0.0.1:${port}`, { connections: 4 }) };
}

const serverCpuUs = async (s: Served): Promise<number> => {
  const r = await s.pool.request({ method: 'GET', path: '/__cpu' });
  return ((await r.body.json()) as { us: number }).us;
};

/** The server process's CPU per request over `count` requests on 4 connections. */
async function httpCpuPerRequest(s: Served, count: number): Promise<number> {
  const before = await serverCpuUs(s);
  let sent = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (sent++ < count) {
        const r = await s.pool.request({ method: 'GET', path: request.url, headers: request.headers });
        await r.body.text();
      }
    }),
  );
  return ((await serverCpuUs(s)) - before) / count;
}

async function overHttp(quick: boolean, rounds: number): Promise<Record<Mode, number>> {
  const per = quick ? 4_000 : 20_000;
  const served = { off: await serve('off'), on: await serve('on'), cors: await serve('cors') };
  try {
    for (const s of Object.values(served)) await httpCpuPerRequest(s, per);
    const samples: Record<Mode, number[]> = { off: [], on: [], cors: [] };
    for (let r = 0; r < rounds; r++) for (const k of ['off', 'on', 'cors'] as const) samples[k].push(await httpCpuPerRequest(served[k], per));
    return { off: median(samples.off), on: median(samples.on), cors: median(samples.cors) };
  } finally {
    for (const s of Object.values(served)) {
      await s.pool.close();
      s.child.kill();
    }
  }
}

export async function benchSecurityHeaders({ quick }: { quick: boolean }): Promise<string> {
  const n = quick ? 6_000 : 30_000;
  const rounds = 21;
  const per = Math.round(n / rounds);
  const apps = { off: await app(undefined), on: await app({}), cors: await app({ CORS_ORIGINS: 'https://portal.example.com' }) };
  for (const a of Object.values(apps)) await cpuPerRequest(a, 2000);
  const samples = { off: [] as number[], on: [] as number[], cors: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    for (const k of ['off', 'on', 'cors'] as const) samples[k].push(await cpuPerRequest(apps[k], per));
  }
  for (const a of Object.values(apps)) await a.close();
  const http = await overHttp(quick, 11);
  const row = (name: string, off: number, us: number, verdict: boolean) => {
    const share = (100 * (us - off)) / TRACKER_CPU_US;
    const met = verdict ? (share <= TARGET_PERCENT ? 'met' : 'not met') : '(reference)';
    return `| ${name} | ${off.toFixed(1)} µs | ${us.toFixed(1)} µs | ${us >= off ? '+' : ''}${(us - off).toFixed(1)} µs | ${share.toFixed(2)} % | <= ${TARGET_PERCENT} % | ${met} |`;
  };
  const off = median(samples.off);
  return [
    `### Security headers and CORS: server CPU per request side by side, share of the GET issue SLA tracker's ${TRACKER_CPU_US} µs (PostgreSQL)`,
    '',
    `Over HTTP: each app in its own process, 4 connections, median of 11 rounds of ${quick ? 4_000 : 20_000} requests (the verdict). Through inject: median of ${rounds} rounds of ${per}, for reference (inject handles each response header in JavaScript objects).`,
    '',
    '| configuration | off | on | extra | share of GET tracker | target | met |',
    '|---|---:|---:|---:|---:|---|---|',
    row('HTTP: headers (default: no CORS_ORIGINS)', http.off, http.on, true),
    row('HTTP: headers + CORS_ORIGINS, listed Origin sent', http.off, http.cors, true),
    row('inject: headers (default)', off, median(samples.on), false),
    row('inject: headers + CORS_ORIGINS, listed Origin sent', off, median(samples.cors), false),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchSecurityHeaders({ quick: process.argv.includes('--quick') }));
}
