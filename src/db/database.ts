import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { PGLITE_TEMPLATE_DIR } from '../config/paths.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Repositories take either the pool or an open transaction. */
export type Executor = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Connections of the pool, for the metrics (PGlite: its one session). */
  pool?: { totalCount: number; idleCount: number; waitingCount: number };
  close(): Promise<void>;
}

// bigint (count(*), sums) comes back as a number: every count here is far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));
// numeric too (sums of integers come back as numeric); values here are integral and small.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

export function openPostgres(url: string, poolSize = 10, onError?: (error: Error) => void): DatabaseHandle {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle connection that dies (server restart, admin termination) is dropped from the pool; without this
  // listener the 'error' event would crash the process.
  pool.on('error', (error) => onError?.(error));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', pool, close: () => db.destroy() };
}

/**
 * PGlite is a single session: one pool of size 1 carries every query, so a transaction never sees another's
 * half-done work and nothing may hold the connection while waiting on a second one.
 */
export async function wrapPglite(pglite: PGlite, onClose?: () => Promise<void>): Promise<DatabaseHandle> {
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const pool = new pg.Pool(createPgConfig(pglite) as unknown as pg.PoolConfig);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'pglite',
    pool,
    close: async () => {
      await db.destroy();
      await onClose?.();
    },
  };
}

/** Opens (creating if needed) the embedded database in `dataDir`, refusing a folder another process holds. */
export async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const lock = acquireLock(join(dir, 'service.lock'));
  try {
    const pgdata = join(dir, 'pgdata');
    if (!existsSync(join(pgdata, 'PG_VERSION')) && !copyTemplate(pgdata)) await initdbInChild(pgdata);
    const { PGlite } = await import('@electric-sql/pglite');
    const pglite = await PGlite.create(pgdata);
    return await wrapPglite(pglite, async () => {
      await pglite.close();
      lock.release();
    });
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** The version of @electric-sql/pglite installed (its package.json is not among its exports: found from its entry). */
export function installedPgliteVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * A first start on an empty folder copies the migrated cluster that `npm run build` made (dist/pglite-template/):
 * about 0.3 s instead of an initdb of about 3 s plus every migration. Migrations still run after it as on every
 * start (those added since the build). False when there is no template, or one of another PGlite version (its
 * files would not open). The copy goes to a temporary folder first: an interrupted copy is never taken for a cluster.
 */
function copyTemplate(pgdata: string): boolean {
  const template = join(PGLITE_TEMPLATE_DIR, 'pgdata');
  try {
    const stamp = JSON.parse(readFileSync(join(PGLITE_TEMPLATE_DIR, 'template.json'), 'utf8')) as { pglite?: string };
    if (stamp.pglite !== installedPgliteVersion() || !existsSync(join(template, 'PG_VERSION'))) return false;
  } catch {
    return false;
  }
  const temporary = `${pgdata}.tmp-${process.pid}`;
  rmSync(temporary, { recursive: true, force: true });
  cpSync(template, temporary, { recursive: true });
  rmSync(pgdata, { recursive: true, force: true });
  renameSync(temporary, pgdata);
  return true;
}

/**
 * Creates a new PGlite cluster in a short-lived child process. initdb inside PGlite grows the WebAssembly memory to
 * about 650 MB that the process never gives back; a service that reopens the finished folder starts at about 250 MB.
 */
async function initdbInChild(pgdata: string): Promise<void> {
  const module = import.meta.resolve('@electric-sql/pglite');
  const code = `const { PGlite } = await import(${JSON.stringify(module)}); const db = await PGlite.create(${JSON.stringify(pgdata)}); await db.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'inherit', 'inherit'] });
  const exit = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (exit !== 0) throw new Error(`Creating the embedded database in ${pgdata} failed (exit ${exit})`);
}

export async function openDatabase(config: { databaseUrl: string | null; dataDir: string }, onError?: (error: Error) => void): Promise<DatabaseHandle> {
  return config.databaseUrl ? openPostgres(config.databaseUrl, 10, onError) : openPglite(config.dataDir);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function acquireLock(path: string): { release(): void } {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return { release: () => rmSync(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new Error(`The database folder ${resolve(path, '..')} is in use by process ${holder}; ` + 'stop it first or set DATA_DIR to another folder.');
      }
      rmSync(path, { force: true }); // a stale lock left by a process that died
    }
  }
  throw new Error(`Could not lock ${path}`);
}
