/**
 * Builds the web console (web/ → web/dist) when it is missing or older than its sources. Runs from `npm install`
 * (`prepare`) and before `npm start` (`prestart`), so `npm install && npm start` serves /app/ on a fresh machine.
 * `--force` always builds. Without vite (an install that omitted dev dependencies) it says so and leaves the service
 * to answer /app/ with a 503 that names the fix.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const WEB = join(ROOT, 'web');
const DIST_INDEX = join(WEB, 'dist', 'index.html');
const SOURCES = [join(WEB, 'src'), join(WEB, 'index.html'), join(WEB, 'vite.config.ts'), join(ROOT, 'client', 'src')];

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** True when web/dist is missing or older than any source file. */
export function webIsStale(): boolean {
  if (!existsSync(DIST_INDEX)) return true;
  const built = statSync(DIST_INDEX).mtimeMs;
  return SOURCES.some((s) => newest(s) > built);
}

const LOCK = join(WEB, '.build-lock');

/**
 * One build at a time per checkout: test files run in parallel processes, and two builds writing web/dist at once would
 * leave it half of each. A lock older than two minutes is a crashed build's and is taken over.
 */
function withBuildLock<T>(run: () => T): T {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      const age = existsSync(LOCK) ? Date.now() - statSync(LOCK).mtimeMs : 0;
      if (age > 120_000 || Date.now() > deadline) rmSync(LOCK, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return run();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

export function buildWeb({ force = false, quiet = false } = {}): 'built' | 'fresh' | 'no-vite' {
  if (!force && !webIsStale()) return 'fresh';
  const bin = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  if (!existsSync(bin)) return 'no-vite';
  return withBuildLock(() => (!force && !webIsStale() ? 'fresh' : viteBuild(bin, quiet)));
}

function viteBuild(bin: string, quiet: boolean): 'built' {
  // A child process with NODE_ENV=production: a build started from a test run (NODE_ENV=test) must not ship
  // development builds of preact.
  const run = spawnSync(process.execPath, [bin, 'build', '--config', join(WEB, 'vite.config.ts'), '--logLevel', quiet ? 'warn' : 'info'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (run.status !== 0) throw new Error(`vite build failed (exit ${run.status ?? run.signal})`);
  return 'built';
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = buildWeb({ force: process.argv.includes('--force') });
  if (result === 'fresh') console.log('web console: web/dist is up to date');
  if (result === 'no-vite') console.warn('web console: vite is not installed (dev dependencies omitted?); /app/ will answer 503 until `npm run build:web`');
}
