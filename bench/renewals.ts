/**
 * Automatic renewal at scale (contract 19.2, issue 25): N subscriptions with a stored card fall due at the same minute
 * and two service instances (`node dist/src/main.js`, the compiled service) on one PostgreSQL renew them through the
 * sandbox provider's Direct API, each instance's `billing.collection` job racing the other's. Measured: the time from
 * the periods' end until every renewal payment has succeeded, and the provider's own count of charges (sandbox_charges)
 * against the subscriptions: each must be charged exactly once. Target: 10,000 within 60 s.
 * Part of `npm run bench` (PostgreSQL); by hand: `DATABASE_URL=postgres://... npx tsx bench/renewals.ts [--quick] [--n 10000]`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** CPU seconds a process has used (Linux /proc), or NaN elsewhere. */
function processCpuS(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds the whole machine has used (Linux /proc/stat: user+nice+system+irq+softirq), or NaN elsewhere. */
function machineCpuS(): number {
  try {
    const [, user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
    return (user! + nice! + system! + irq! + softirq!) / 100;
  } catch {
    return Number.NaN;
  }
}
const TARGET_S = 60;

const freePort = () =>
  new Promise<number>((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => ok(port));
    });
  });

interface Instance {
  child: ChildProcess;
  exited: Promise<void>;
  url: string;
}

async function startInstance(databaseUrl: string, profileDir?: string): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []), 'dist/src/main.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      REDIS_URL: '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      JOB_INTERVAL_MS: '250',
      API_RATE_LIMIT: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`an instance exited with code ${child.exitCode}`);
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { child, exited, url };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('an instance was not ready within 60 s');
}

/** N workspaces with an active Pro subscription, a utoken and a default card the sandbox knows (by SQL). */
async function seed(db: pg.Client, n: number) {
  const owner = randomUUID();
  await db.query(
    `INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at) VALUES ($1, 'renewals@example.com', 'Renewals', 'x', now(), now())`,
    [owner],
  );
  await db.query(
    `WITH w AS (
       INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at)
       SELECT gen_random_uuid(), 'renew-' || g, 'Renewals ' || g, $1, now(), now() FROM generate_series(1, $2) g RETURNING id, slug)
     , s AS (
       INSERT INTO subscriptions (id, workspace_id, plan_slug, status, billing_interval, currency, amount_per_period,
         current_period_start, current_period_end, cancel_at_period_end, canceled_at, created_at, updated_at)
       SELECT gen_random_uuid(), id, 'pro', 'active', 'month', 'TRY', 29900, now(), now() + interval '1 month', false, null, now(), now() FROM w RETURNING workspace_id)
     , c AS (
       INSERT INTO payment_customers (workspace_id, utoken, created_at) SELECT workspace_id, 'U' || md5(workspace_id::text), now() FROM s RETURNING workspace_id, utoken)
     , m AS (
       INSERT INTO payment_methods (id, workspace_id, ctoken, brand, last4, exp_month, exp_year, is_default, created_at)
       SELECT gen_random_uuid(), workspace_id, 'C' || md5(utoken), 'visa', '4358', 12, 2030, true, now() FROM c RETURNING ctoken)
     INSERT INTO sandbox_cards (ctoken, utoken, last4, brand, exp_month, exp_year, behaviour, created_at)
     SELECT 'C' || md5(utoken), utoken, '4358', 'visa', 12, 2030, 'success', now() FROM c`,
    [owner, n],
  );
}

export async function benchRenewals({
  databaseUrl,
  quick,
  n = quick ? 1000 : 10_000,
  profileDir,
}: {
  databaseUrl: string;
  quick: boolean;
  n?: number;
  /** Writes a V8 CPU profile of each instance there (`--cpu-prof`). */
  profileDir?: string;
}): Promise<string> {
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('the build failed');
  const admin = new URL(databaseUrl);
  const name = `${admin.pathname.slice(1) || 'postgres'}_renewals`;
  const target = new URL(admin);
  target.pathname = `/${name}`;
  const root = new pg.Client({ connectionString: admin.toString() });
  await root.connect();
  await root.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await root.query(`CREATE DATABASE "${name}"`);
  const instances: Instance[] = [];
  const db = new pg.Client({ connectionString: target.toString() });
  try {
    instances.push(await startInstance(target.toString(), profileDir)); // the first one migrates the empty database
    await db.connect();
    await seed(db, n);
    instances.push(await startInstance(target.toString(), profileDir));
    // Every period ends now: both instances' collection jobs race for the same subscriptions.
    await db.query(`UPDATE subscriptions SET current_period_start = now() - interval '1 month', current_period_end = now()`);
    const started = performance.now();
    const cpu0 = { machine: machineCpuS(), instances: instances.map((i) => processCpuS(i.child.pid!)) };
    let renewed = 0;
    while (performance.now() - started < 180_000) {
      renewed = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM payments WHERE kind = 'renewal' AND status = 'success'`)).rows[0]!.n;
      if (renewed >= n) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const instancesCpu = instances.reduce((sum, inst, k) => sum + processCpuS(inst.child.pid!) - cpu0.instances[k]!, 0);
    const machineCpu = machineCpuS() - cpu0.machine;
    const facts = (
      await db.query<{ charges: number; orders: number; payments: number; twice: number; active: number }>(
        `SELECT (SELECT count(*)::int FROM sandbox_charges) AS charges,
                (SELECT count(DISTINCT merchant_oid)::int FROM sandbox_charges) AS orders,
                (SELECT count(*)::int FROM payments WHERE kind = 'renewal') AS payments,
                (SELECT count(*)::int FROM (SELECT utoken FROM sandbox_charges GROUP BY utoken HAVING count(*) > 1) x) AS twice,
                (SELECT count(*)::int FROM subscriptions WHERE status = 'active' AND current_period_end > now() + interval '27 days') AS active`,
      )
    ).rows[0]!;
    const once = facts.charges === n && facts.twice === 0 && facts.payments === n;
    const met = renewed >= n && seconds <= TARGET_S && once;
    return [
      `### Automatic renewal: ${n.toLocaleString('en')} subscriptions due at once, two instances (PostgreSQL)`,
      '',
      `Machine: ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)} at the end. Two \`node dist/src/main.js\` on one database, \`JOB_INTERVAL_MS=250\`, the sandbox provider in each.`,
      '',
      '| measure | value | target | met |',
      '|---|---|---|---|',
      `| all renewed (payments of kind renewal succeeded) | ${renewed.toLocaleString('en')} of ${n.toLocaleString('en')} in ${seconds.toFixed(1)} s (${(renewed / seconds).toFixed(0)}/s) | <= ${TARGET_S} s | ${met ? 'yes' : 'no'} |`,
      `| provider charges (sandbox_charges) | ${facts.charges.toLocaleString('en')} charges, ${facts.orders.toLocaleString('en')} orders, ${facts.twice} cards charged twice | exactly ${n.toLocaleString('en')}, none twice | ${once ? 'yes' : 'no'} |`,
      `| CPU per renewal: the two instances (service and its sandbox provider) / everything else (PostgreSQL, this process) | ${((instancesCpu * 1000) / n).toFixed(1)} ms / ${(((machineCpu - instancesCpu) * 1000) / n).toFixed(1)} ms | (info) | |`,
      `| subscriptions active into the next period | ${facts.active.toLocaleString('en')} | ${n.toLocaleString('en')} | ${facts.active === n ? 'yes' : 'no'} |`,
    ].join('\n');
  } finally {
    for (const i of instances) i.child.kill('SIGTERM');
    await Promise.all(instances.map((i) => i.exited));
    await db.end().catch(() => {});
    await root.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await root.end();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is required');
  const i = process.argv.indexOf('--n');
  const n = i > 0 ? Number(process.argv[i + 1]) : undefined;
  const p = process.argv.indexOf('--profile');
  benchRenewals({ databaseUrl: url, quick: process.argv.includes('--quick'), ...(n ? { n } : {}), ...(p > 0 ? { profileDir: process.argv[p + 1] } : {}) }).then(
    (md) => console.log(md),
  );
}
