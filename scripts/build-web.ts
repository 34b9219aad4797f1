/**
 * Builds the web console (web/ → web/dist) when it is missing or older than its sources. Runs from `npm install`
 * (`prepare`) and before `npm start` (`prestart`), so `npm install && npm start` serves /app/ on a fresh machine.
 * `--force` always builds. Without vite (an install that omitted dev dependencies) it says so and leaves the service
 * to answer /app/ with a 503 that names the fix.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
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

export async function buildWeb({ force = false, quiet = false } = {}): Promise<'built' | 'fresh' | 'no-vite'> {
  if (!force && !webIsStale()) return 'fresh';
  let vite: typeof import('vite');
  try {
    vite = await import('vite');
  } catch {
    return 'no-vite';
  }
  await vite.build({ configFile: join(WEB, 'vite.config.ts'), logLevel: quiet ? 'warn' : 'info' });
  return 'built';
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await buildWeb({ force: process.argv.includes('--force') });
  if (result === 'fresh') console.log('web console: web/dist is up to date');
  if (result === 'no-vite') console.warn('web console: vite is not installed (dev dependencies omitted?); /app/ will answer 503 until `npm run build:web`');
}
