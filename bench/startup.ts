/**
 * Start-up time (contract 21: `/readyz` within 3 s of start on an empty embedded database), part of `npm run bench`
 * (also alone: `npx tsx bench/startup.ts [--quick] [--runs N]`).
 * Builds what is stale first (scripts/build.mjs, as `prestart` does), then times, from spawn to the first
 * `/readyz` 200, several runs each of:
 * - cold: `node dist/src/main.js` (what `npm start` runs) on an empty DATA_DIR (the database made from the template);
 * - warm: the same on the DATA_DIR the cold run left;
 * - `npm start`, warm: the same through npm and its `prestart` freshness check.
 * Also the CPU time the server process had used when it answered (user + system, all its threads, from /proc): on a
 * busy machine the wall time grows with the load, the CPU time much less.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const GOAL_MS = 3000;

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

/** user + system CPU of a process and its threads so far, ms (Linux; NaN elsewhere). */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** The server's own process: npm runs it through a shell, so look for the node child below npm. */
function serverPid(child: ChildProcess, viaNpm: boolean): number {
  if (!viaNpm) return child.pid!;
  const ps = spawnSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  const rows = ps.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((r) => r.length > 2);
  const below = (parent: number): number[] => rows.filter((r) => Number(r[1]) === parent).map((r) => Number(r[0]));
  const queue = [child.pid!];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const row = rows.find((r) => Number(r[0]) === pid);
    if (row && row.slice(2).join(' ').includes('dist/src/main.js') && row[2]!.endsWith('node')) return pid;
    queue.push(...below(pid));
  }
  return child.pid!;
}

interface Sample {
  ms: number;
  cpu: number;
}

async function startOnce(dataDir: string, viaNpm: boolean): Promise<Sample> {
  const port = await freePort();
  const started = performance.now();
  const [cmd, args] = viaNpm ? ['npm', ['start', '--silent']] : [process.execPath, ['dist/src/main.js']];
  // Its own process group, so that stopping it also stops npm's children.
  const child = spawn(cmd, args, {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode} before it was ready`);
      if (performance.now() - started > 120_000) throw new Error('the service was not ready within 120 s');
      try {
        if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) break;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    return { ms: performance.now() - started, cpu: cpuMs(serverPid(child, viaNpm)) };
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
    // npm may leave before the service has finished closing the database (and removed its lock).
    for (let i = 0; i < 200 && existsSync(join(dataDir, 'service.lock')); i++) await new Promise((r) => setTimeout(r, 25));
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function benchStartup({ quick, runs = quick ? 3 : 5 }: { quick: boolean; runs?: number }): Promise<string> {
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('npm run build failed');
  const cold: Sample[] = [];
  const warm: Sample[] = [];
  const npmWarm: Sample[] = [];
  const load = loadavg()[0]!.toFixed(2);
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'wis-startup-'));
    try {
      cold.push(await startOnce(dir, false));
      warm.push(await startOnce(dir, false));
      npmWarm.push(await startOnce(dir, true));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const row = (name: string, samples: Sample[]) => {
    const ms = samples.map((s) => s.ms);
    const m = median(ms);
    const cpu = median(samples.map((s) => s.cpu));
    return `| ${name} | ${samples.length} | ${(m / 1000).toFixed(2)} s | ${(Math.min(...ms) / 1000).toFixed(2)} s | ${(Math.max(...ms) / 1000).toFixed(2)} s | ${Number.isNaN(cpu) ? '-' : `${(cpu / 1000).toFixed(2)} s`} | <= 3 s | ${m <= GOAL_MS ? 'met' : 'not met'} |`;
  };
  return [
    `### Start-up to /readyz (PGlite${quick ? ', quick' : ''}; load average ${load} at the start)`,
    '',
    '| start | runs | median | min | max | server CPU (median) | target | met |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    row('cold: `node dist/src/main.js`, empty DATA_DIR', cold),
    row('warm: `node dist/src/main.js`, existing DATA_DIR', warm),
    row('warm: `npm start` (npm, prestart check, then the same)', npmWarm),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--runs');
  benchStartup({ quick: process.argv.includes('--quick'), ...(at > 0 ? { runs: Number(process.argv[at + 1]) } : {}) }).then(
    (md) => console.log(md),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
