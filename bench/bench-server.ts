import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The real server as the benches start it (bench/server.ts: src/server.ts plus the bench-only twins), in a child. */

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => console.log(line);

export interface ServerChild {
  base: string;
  child: ChildProcess;
  cpuMs(): number;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

/** CPU time (user + system, ms) of one process from /proc (10 ms ticks). */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/**
 * CPU time of the PostgreSQL backends serving one database (their process title names it), per process: other
 * databases' work on the same server is left out, and a backend that exits between two snapshots loses only its share
 * between them (`cpuSince` counts the processes of the second snapshot).
 */
export function backendsCpu(database: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${database} `)) continue;
      out.set(Number(pid), cpuMsOf(Number(pid)));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}
export const cpuSince = (before: Map<number, number>, after: Map<number, number>) => [...after].reduce((a, [pid, ms]) => a + ms - (before.get(pid) ?? 0), 0);

/**
 * The real server with the bench-only twins (bench/server.ts), as `npm run bench` starts it; jobs off. `extraEnv` adds
 * to (or overrides) its environment: DATABASE_POOLER, DATABASE_REPLICA_URLS, LOG_LEVEL (bench/database-ops.ts),
 * DATA_DIR with an empty `databaseUrl` (PGlite). `root`: the checkout whose server runs (a git worktree of another
 * commit, bench/notifications.ts); default this one.
 */
export async function startServer(databaseUrl: string, profile = false, extraEnv: Record<string, string> = {}, root = ROOT): Promise<ServerChild> {
  const port = await freePort();
  const profileDir = join(tmpdir(), 'wis-bench-profiles');
  if (profile) log(`  CPU profile of the server: ${profileDir}/ (written when it stops)`);
  const child = spawn(process.execPath, [...(profile ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []), '--import', 'tsx', 'bench/server.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      JOB_INTERVAL_MS: '0',
      API_RATE_LIMIT: '0',
      DATABASE_URL: databaseUrl,
      ...extraEnv,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('the server did not come up within 90 s');
    await sleep(200);
  }
  return {
    base,
    child,
    cpuMs: () => cpuMsOf(child.pid!),
    stop: () =>
      new Promise<void>((ok) => {
        if (child.exitCode !== null) return ok();
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.once('exit', () => {
          clearTimeout(timer);
          ok();
        });
        child.kill('SIGTERM');
      }),
  };
}
