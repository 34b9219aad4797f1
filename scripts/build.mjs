// @ts-check
/* global console, process, URL -- Node.js globals (ESLint gives .mjs files none) */
/**
 * `npm run build` (also `prepare`, so `npm install` runs it, and `prestart` with `--if-stale`): everything
 * `npm start` serves, built ahead so start-up does no compiling.
 *   1. the server: src/ and client/src/ (the CLI uses the typed client) transpiled one file each by esbuild to
 *      dist/ (dist/src/main.js, dist/src/cli/main.js), the SQL migrations copied next to the compiled migrator;
 *   2. dist/pglite-template/: an embedded database cluster, already migrated, that the service copies into an empty
 *      DATA_DIR on first start (a PGlite initdb alone takes about 3 s; a copy takes a tenth of that);
 *   3. the web console (scripts/build-web.ts, web/ -> web/dist).
 * Plain JavaScript on purpose: `prestart` runs it before every `npm start`, and with nothing stale it returns in a
 * few tens of milliseconds (no TypeScript loader to start). `--if-stale` builds only the parts older than their
 * sources; without it the server and the template are always rebuilt (the console still only when stale; use
 * `npm run build:web` to force it).
 * esbuild is what tsx runs the sources with, so the compiled server behaves as the sources do under tsx and vitest;
 * type-checking stays `npm run typecheck`'s job.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const DIST = join(ROOT, 'dist');
const SERVER_SOURCES = [join(ROOT, 'src'), join(ROOT, 'client', 'src'), join(ROOT, 'package-lock.json'), join(ROOT, 'tsconfig.json')];
const SERVER_STAMP = join(DIST, 'server.json');
const MIGRATIONS = join(ROOT, 'src', 'db', 'migrations');
const TEMPLATE = join(DIST, 'pglite-template');
const TEMPLATE_STAMP = join(TEMPLATE, 'template.json');
// The same list as scripts/build-web.ts (webIsStale), repeated so that the fresh case needs no TypeScript loader.
const WEB_SOURCES = [join(ROOT, 'web', 'src'), join(ROOT, 'web', 'index.html'), join(ROOT, 'web', 'vite.config.ts'), join(ROOT, 'client', 'src')];
const WEB_INDEX = join(ROOT, 'web', 'dist', 'index.html');

/** @param {string} path @returns {number} the newest modification time under path (0 when missing) */
function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** @param {string} path */
const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

/** @returns {string[]} the source files esbuild transpiles */
function sourceFiles() {
  /** @type {string[]} */
  const files = [];
  for (const dir of ['src', join('client', 'src')]) {
    for (const name of readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })) {
      if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(join(dir, name));
    }
  }
  return files.sort();
}

/** @returns {string[]} the files of src/ that are not TypeScript (read at run time relative to the code) */
function assetFiles() {
  return readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((name) => !name.endsWith('.ts') && statSync(join(ROOT, 'src', name)).isFile())
    .map((name) => join('src', name))
    .sort();
}

const migrationFiles = () =>
  readdirSync(MIGRATIONS)
    .filter((f) => f.endsWith('.sql'))
    .sort();
/** @returns {string} the installed PGlite's version (its package.json is not among its exports: found from its entry) */
function pgliteVersion() {
  let dir = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
}

export function serverIsStale() {
  const built = mtime(SERVER_STAMP);
  return built === 0 || SERVER_SOURCES.some((s) => newest(s) > built);
}

export function templateIsStale() {
  if (!existsSync(TEMPLATE_STAMP)) return true;
  const stamp = JSON.parse(readFileSync(TEMPLATE_STAMP, 'utf8'));
  return (
    stamp.pglite !== pgliteVersion() || JSON.stringify(stamp.migrations) !== JSON.stringify(migrationFiles()) || newest(MIGRATIONS) > mtime(TEMPLATE_STAMP)
  );
}

export function webIsStale() {
  const built = mtime(WEB_INDEX);
  return built === 0 || WEB_SOURCES.some((s) => newest(s) > built);
}

export async function buildServer() {
  const { build } = await import('esbuild');
  rmSync(join(DIST, 'src'), { recursive: true, force: true });
  rmSync(join(DIST, 'client'), { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: sourceFiles(),
    outdir: DIST,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
  });
  // Files the server reads at run time beside its code (the SQL migrations, the payment page's scripts) are copied.
  for (const file of assetFiles()) {
    mkdirSync(dirname(join(DIST, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(DIST, file));
  }
  writeFileSync(SERVER_STAMP, JSON.stringify({ built_at: new Date().toISOString() }) + '\n');
}

/**
 * The migrated template cluster, made by the compiled migrator in a child process (initdb grows PGlite's memory to
 * about 650 MB, which a process never gives back) and written to a temporary folder first, so an interrupted build
 * leaves no half template behind.
 */
export function buildTemplate() {
  const temporary = `${TEMPLATE}.tmp-${process.pid}`;
  rmSync(temporary, { recursive: true, force: true });
  mkdirSync(temporary, { recursive: true });
  const database = pathToFileURL(join(DIST, 'src', 'db', 'database.js')).href;
  const migrate = pathToFileURL(join(DIST, 'src', 'db', 'migrate.js')).href;
  const code = `
    const { createPglite, wrapPglite } = await import(${JSON.stringify(database)});
    const { migrateToLatest } = await import(${JSON.stringify(migrate)});
    const pglite = await createPglite(${JSON.stringify(join(temporary, 'pgdata'))});
    const handle = await wrapPglite(pglite, () => pglite.close());
    await migrateToLatest(handle.db);
    await handle.close();`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`building the database template failed (exit ${run.status ?? run.signal})`);
  writeFileSync(join(temporary, 'template.json'), JSON.stringify({ pglite: pgliteVersion(), migrations: migrationFiles() }) + '\n');
  rmSync(TEMPLATE, { recursive: true, force: true });
  renameSync(temporary, TEMPLATE);
}

function buildWeb() {
  if (!existsSync(join(ROOT, 'node_modules', 'vite'))) {
    console.warn('web console: vite is not installed (dev dependencies omitted?); /app/ will answer 503 until `npm run build:web`');
    return false;
  }
  const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const run = spawnSync(process.execPath, [tsx, join(ROOT, 'scripts', 'build-web.ts')], { cwd: ROOT, stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`building the web console failed (exit ${run.status ?? run.signal})`);
  return true;
}

/** @param {{ ifStale?: boolean }} options */
export async function buildAll({ ifStale = false } = {}) {
  const started = Date.now();
  /** @type {string[]} */
  const done = [];
  if (!ifStale || serverIsStale()) {
    await buildServer();
    done.push('server (dist/)');
  }
  if (!ifStale || templateIsStale()) {
    buildTemplate();
    done.push('database template (dist/pglite-template/)');
  }
  if (webIsStale() && buildWeb()) {
    done.push('web console (web/dist/)');
  }
  if (done.length > 0) console.log(`built ${done.join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildAll({ ifStale: process.argv.includes('--if-stale') });
}
