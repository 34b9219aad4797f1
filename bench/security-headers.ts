/**
 * By hand: what the security headers and CORS (contract section 22) cost per request, against the GET issue SLA
 * tracker's server CPU per request (bench/results/latest.json). Two bare Fastify apps with a tracker-sized JSON route
 * under /api/, one with `registerSecurityHeaders` (and CORS_ORIGINS set, a listed Origin sent), one without, are
 * driven alternately through `inject` (the whole request lifecycle without sockets).
 *
 *   npx tsx bench/security-headers.ts [requests]
 */
import Fastify from 'fastify';
import { loadConfig } from '../src/config/config.js';
import { registerSecurityHeaders } from '../src/http/security-headers.js';

const n = Number(process.argv[2] ?? 20_000);
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

async function app(secured: boolean) {
  const a = Fastify({ logger: false });
  if (secured) await registerSecurityHeaders(a, loadConfig(process.env.BENCH_CORS === '0' ? {} : { CORS_ORIGINS: 'https://portal.example.com' }));
  a.get('/api/workspaces/:slug/issues/:id/sla/', async () => tracker);
  await a.ready();
  return a;
}

const plain = await app(false);
const secured = await app(true);
const request = {
  method: 'GET' as const,
  url: '/api/workspaces/acme/issues/1/sla/',
  headers: { authorization: 'Bearer x', origin: 'https://portal.example.com' },
};
// CPU time of this process (user + system), not wall time: the machine is shared, and scheduling noise is larger
// than the difference measured.
const time = async (a: typeof plain, count: number) => {
  const t = process.cpuUsage();
  for (let i = 0; i < count; i++) await a.inject(request);
  const d = process.cpuUsage(t);
  return (d.user + d.system) / count;
};
await time(plain, 2000);
await time(secured, 2000);
const runs: { plain: number; secured: number }[] = [];
const rounds = 21;
for (let r = 0; r < rounds; r++) runs.push({ plain: await time(plain, Math.round(n / rounds)), secured: await time(secured, Math.round(n / rounds)) });
const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const p = median(runs.map((r) => r.plain));
const s = median(runs.map((r) => r.secured));
// Server CPU per GET issue SLA tracker request of the 2026-11-24 full run (bench/results/latest.md): PostgreSQL 465 µs,
// PGlite 2995 µs. The smaller is the harder target.
const trackerCpuUs = 465;
const extra = s - p;
console.log(
  `inject, CPU, median of ${rounds} rounds of ${Math.round(n / rounds)}: without ${p.toFixed(1)} µs/req, with headers + CORS ${s.toFixed(1)} µs/req: +${extra.toFixed(1)} µs`,
);
console.log(
  `against GET issue SLA tracker (${trackerCpuUs} µs server CPU a request on PostgreSQL): ${((100 * extra) / trackerCpuUs).toFixed(2)} % (target <= 3 %)`,
);
await plain.close();
await secured.close();
