/**
 * By hand: throughput of GET issue SLA tracker with the per-token rate limit off, on in memory, and on in Redis
 * (contract section 15; issue 15 wants >= 0.95x and >= 0.8x of "off").
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/db REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/rate-limit.ts [seconds]
 *
 * Starts the real server (node --import tsx src/main.ts) once per setting on a scratch database, seeds one issue with
 * a tracker through the API, and loads it with autocannon (10 connections) after a short warm-up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import pg from 'pg';
import { apiClient } from '../test/helpers/http.js';

const seconds = Number(process.argv[2] ?? 10);
const base = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
if (!base) throw new Error('DATABASE_URL is required');
const admin = new URL(base);
admin.pathname = '/postgres';
const dbUrl = new URL(base);
dbUrl.pathname = `/wis_bench_rl_${process.pid}`;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function server(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, ...env, PORT: String(port), DATABASE_URL: dbUrl.toString(), LOG_LEVEL: 'warn', JOB_INTERVAL_MS: '0', RATE_LIMIT_SIGNUPS: '1000000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, child };
    await new Promise((r) => setTimeout(r, 100));
  }
}

const pgAdmin = new pg.Client({ connectionString: admin.toString() });
await pgAdmin.connect();
await pgAdmin.query(`CREATE DATABASE "${dbUrl.pathname.slice(1)}"`);

let path = '';
let token = '';
const results: Record<string, number> = {};
try {
  const settings: [string, Record<string, string>][] = [
    ['off', { API_RATE_LIMIT: '0', REDIS_URL: '' }],
    ['memory', { API_RATE_LIMIT: '100000000', REDIS_URL: '' }],
    ['redis', { API_RATE_LIMIT: '100000000', REDIS_URL: redisUrl, REDIS_PREFIX: `wis-bench:${process.pid}:` }],
    ['off (again)', { API_RATE_LIMIT: '0', REDIS_URL: '' }],
  ];
  for (const [name, env] of settings) {
    const { url, child } = await server(env);
    process.once('exit', () => child.kill('SIGKILL'));
    if (!path) {
      const api = apiClient(url);
      const signUp = await api.post('/api/auth/sign-up/', { email: 'bench@example.com', password: 'correct horse battery', display_name: 'B' });
      token = signUp.body.token;
      const t = { token };
      await api.post('/api/workspaces/', { name: 'Bench', slug: 'bench' }, t);
      await api.post('/api/workspaces/bench/billing/trial/', { plan_slug: 'pro' }, t);
      const policy = await api.post(
        '/api/workspaces/bench/sla-policies/',
        { name: 'P', rules: [{ priority: 'high', response_time_h: 1, resolution_time_h: 10 }] },
        t,
      );
      const project = await api.post('/api/workspaces/bench/projects/', { name: 'P', identifier: 'BEN', sla_policy_id: policy.body.id }, t);
      const issue = await api.post(`/api/workspaces/bench/projects/${project.body.id}/issues/`, { name: 'I', priority: 'high' }, t);
      path = `/api/workspaces/bench/issues/${issue.body.id}/sla/`;
      const check = await api.get(path, t);
      if (check.status !== 200) throw new Error(`tracker: ${check.status} ${check.text}`);
    }
    const opts = { url: url + path, connections: 10, headers: { authorization: `Bearer ${token}` } };
    await autocannon({ ...opts, duration: 2 });
    const r = await autocannon({ ...opts, duration: seconds });
    results[name] = r.requests.average;
    console.log(`${name}: ${r.requests.average.toFixed(0)} req/s, p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors}`);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  const off = (results.off! + results['off (again)']!) / 2;
  console.log(`memory/off ${(results.memory! / off).toFixed(3)}x, redis/off ${(results.redis! / off).toFixed(3)}x`);
} finally {
  await pgAdmin.query(`DROP DATABASE IF EXISTS "${dbUrl.pathname.slice(1)}" WITH (FORCE)`);
  await pgAdmin.end();
}
