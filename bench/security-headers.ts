/**
 * What the security headers and CORS (contract section 22) cost per request, measured side by side with them off,
 * against the GET issue SLA tracker's server CPU per request. Bare Fastify apps with a tracker-sized JSON route under
 * /api/, one without `registerSecurityHeaders`, one with it (default configuration), one with it and CORS_ORIGINS set
 * (a listed Origin sent), are driven alternately through `inject` (the whole request lifecycle without sockets).
 * Part of `npm run bench`; by hand: `npx tsx bench/security-headers.ts [--quick]`.
 */
import Fastify from 'fastify';
import { loadConfig } from '../src/config/config.js';
import { registerSecurityHeaders } from '../src/http/security-headers.js';

const tracker = {
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
  a.get('/api/workspaces/:slug/issues/:id/sla/', async () => tracker);
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
  const off = median(samples.off);
  const row = (name: string, us: number) => {
    const share = (100 * (us - off)) / TRACKER_CPU_US;
    return `| ${name} | ${off.toFixed(1)} µs | ${us.toFixed(1)} µs | +${(us - off).toFixed(1)} µs | ${share.toFixed(2)} % | <= ${TARGET_PERCENT} % | ${share <= TARGET_PERCENT ? 'met' : 'not met'} |`;
  };
  return [
    `### Security headers and CORS: CPU per request side by side (inject, median of ${rounds} rounds of ${per}), share of the GET issue SLA tracker's ${TRACKER_CPU_US} µs (PostgreSQL)`,
    '',
    '| configuration | off | on | extra | share of GET tracker | target | met |',
    '|---|---:|---:|---:|---:|---|---|',
    row('headers (default: no CORS_ORIGINS)', median(samples.on)),
    row('headers + CORS_ORIGINS, listed Origin sent', median(samples.cors)),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchSecurityHeaders({ quick: process.argv.includes('--quick') }));
}
