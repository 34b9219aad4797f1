/**
 * What the benchmarks that drive the service from outside share (`bench/mixed-load.ts`, `bench/create-vs-pgbench.ts`):
 * the compiled service started as `npm start` starts it (`node dist/src/main.js`, built first if missing), and a
 * webhook receiver that answers 200 at once and counts what it got.
 *
 * `SVC_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"` passes flags to the service's node (to profile it).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Builds `dist/` when it is missing (a fresh clone). */
export function ensureBuilt(): void {
  if (!existsSync(join(ROOT, 'dist/src/main.js'))) spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => ok(port));
    });
  });
}

/** A webhook receiver on 127.0.0.1 that answers 200 at once and counts the requests. */
export async function startCountingReceiver(): Promise<{ url: string; received(): number; close(): Promise<void> }> {
  let received = 0;
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

export interface CompiledService {
  base: string;
  child: ChildProcess;
  /** SIGTERM, then SIGKILL if it has not exited within 10 s. */
  stop(): Promise<void>;
}

/** Starts `node dist/src/main.js` on a free port with `env` (PATH and HOME added) and waits for /readyz (60 s at most). */
export async function startCompiledService(env: Record<string, string>): Promise<CompiledService> {
  ensureBuilt();
  const port = await freePort();
  const child = spawn(process.execPath, [...(process.env.SVC_NODE_ARGS ?? '').split(' ').filter(Boolean), 'dist/src/main.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((ok) => {
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => ok(clearTimeout(t)));
    });
  };
  try {
    for (const deadline = Date.now() + 60_000; ;) {
      if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode}`);
      try {
        if ((await fetch(`${base}/readyz`)).ok) break;
      } catch {
        /* not up yet */
      }
      if (Date.now() > deadline) throw new Error('the service did not come up within 60 s');
      await sleep(100);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, child, stop };
}
