import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { PGLITE_TEMPLATE_DIR } from '../config/paths.js';
import { alwaysAvailable, type DatabaseAvailability, trackAvailability } from './availability.js';
import { type HoldObserver, watchHolds } from './holds.js';
import { nameStatements } from './named-statements.js';
import { type ReplicaRouting, routeReads } from './replicas.js';
import { applySessionSettings, POOL_IDLE_TIMEOUT_MS } from './session-settings.js';
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
  /** PGlite: this open created the cluster from the build's migrated template (its migrations came with it). */
  createdFromTemplate?: boolean;
  /** Reports each connection checkout's holder and hold time (`holds.ts`); the metrics set it. */
  onHold(observer: HoldObserver): void;
  /** Whether the database can be reached, and whether a pooler was met unannounced (contract 27). */
  availability: DatabaseAvailability;
  /** DATABASE_REPLICA_URLS: where reads that tolerate a replica go (27.3); unset without replicas. */
  replicas?: ReplicaRouting;
  close(): Promise<void>;
}

// bigint (count(*), sums) comes back as a number: every count here is far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));
// numeric too (sums of integers come back as numeric); values here are integral and small.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));
// date (issue start and target dates) stays the `YYYY-MM-DD` text it is: a Date would shift it by the process zone.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);

/** How the service reaches PostgreSQL: directly (`none`), or through a transaction pooler such as PgBouncer. */
export type PoolerMode = 'none' | 'transaction';

export interface PostgresOptions {
  poolSize?: number;
  /** `transaction` (DATABASE_POOLER): every statement unnamed, so that any server connection can run it (27.2). */
  pooler?: PoolerMode;
  /** Read replicas (DATABASE_REPLICA_URLS) and the replay lag over which one is skipped (REPLICA_MAX_LAG_S). */
  replicaUrls?: string[];
  replicaMaxLagS?: number;
}

export function openPostgres(url: string, options: PostgresOptions | number = {}): DatabaseHandle {
  const { poolSize = 10, pooler = 'none', replicaUrls = [], replicaMaxLagS = 5 } = typeof options === 'number' ? { poolSize: options } : options;
  // connectionTimeoutMillis: a database that does not answer (a failover under way, a dropped network) fails the
  // request with a 503 after 5 s instead of holding it; keepAlive finds a dead peer without waiting for a statement.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000, idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS, keepAlive: true });
  const probe = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 2_000, idleTimeoutMillis: 1 });
  probe.on('error', () => undefined); // its one connection is closed after each probe; a loss there means nothing
  const availability = trackAvailability(() => probe.query('SELECT 1'), { pooler });
  // Every connection gets an error listener for its whole life: node-postgres emits 'error' on a connection the
  // server closes (restart, failover, termination), and one checked out by a request had none, which ended the
  // process (contract 27.1). The pool's own 'error' event (idle connections) is the same loss: logged once, here.
  pool.on('connect', (client) => {
    client.on('error', (error) => availability.connectionLost(error));
    // Behind a transaction pooler the service holds no session state: a setting would stay on whichever server
    // connection ran it (the operator sets it on the database or role there).
    if (pooler === 'none') applySessionSettings(client);
  });
  pool.on('error', () => undefined);
  if (pooler === 'none') nameStatements(pool);
  observeErrors(pool, availability);
  const onHold = watchHolds(pool);
  const replicas = replicaUrls.length > 0 ? routeReads(pool, replicaUrls, { maxLagS: replicaMaxLagS, pooler, poolSize }) : undefined;
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: replicas?.pool ?? pool }) });
  return {
    db,
    kind: 'postgres',
    pool,
    onHold,
    availability,
    ...(replicas ? { replicas } : {}),
    close: async () => {
      availability.stop();
      await replicas?.close();
      await db.destroy();
      await probe.end();
    },
  };
}

/**
 * Shows the availability every failed connect and statement: a connection-level failure marks the database
 * unavailable (503s, duties paused); a prepared-statement error behind an undeclared pooler marks that.
 */
function observeErrors(pool: pg.Pool, availability: DatabaseAvailability): void {
  const wrapped = new WeakSet<object>();
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
    let client: pg.PoolClient;
    try {
      client = await connect();
    } catch (error) {
      availability.observe(error);
      throw error;
    }
    if (wrapped.has(client)) return client;
    wrapped.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const result = query(...args);
      if (result instanceof Promise) {
        return result.catch((error: unknown) => {
          availability.observe(error);
          throw error;
        });
      }
      return result;
    };
    return client;
  };
}

/**
 * PGlite is a single session: one pool of size 1 carries every query, so a transaction never sees another's
 * half-done work and nothing may hold the connection while waiting on a second one.
 */
export async function wrapPglite(pglite: PGlite, onClose?: () => Promise<void>): Promise<DatabaseHandle> {
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const pool = new pg.Pool(createPgConfig(pglite) as unknown as pg.PoolConfig);
  nameStatements(pool);
  const onHold = watchHolds(pool);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'pglite',
    pool,
    onHold,
    availability: alwaysAvailable,
    close: async () => {
      await db.destroy();
      await onClose?.();
    },
  };
}

/**
 * A PGlite instance with the extensions the migrations create (pg_trgm and unaccent for search, migration 1092): an
 * extension's files must be loaded on every open, not only the first. `dataDir` undefined: in memory.
 */
export async function createPglite(dataDir?: string, options: PGliteOptions = {}): Promise<PGlite> {
  const [{ PGlite }, { pg_trgm }, { unaccent }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('@electric-sql/pglite/contrib/unaccent'),
  ]);
  const withExtensions = { ...options, extensions: { ...options.extensions, pg_trgm, unaccent } };
  return dataDir === undefined ? PGlite.create(withExtensions) : PGlite.create(dataDir, withExtensions);
}

/** Opens (creating if needed) the embedded database in `dataDir`, refusing a folder another process holds. */
export async function openPglite(dataDir: string, options: { sharedBuffers?: string } = {}): Promise<DatabaseHandle> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const lock = acquireLock(join(dir, 'service.lock'));
  try {
    const pgdata = join(dir, 'pgdata');
    let createdFromTemplate = false;
    if (!existsSync(join(pgdata, 'PG_VERSION'))) {
      createdFromTemplate = copyTemplate(pgdata);
      if (!createdFromTemplate) await initdbInChild(pgdata);
    }
    const { PGlite } = await import('@electric-sql/pglite');
    const startParams = options.sharedBuffers ? [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.sharedBuffers}`] : undefined;
    const pglite = await createPglite(pgdata, startParams ? { startParams } : {});
    const handle = await wrapPglite(pglite, async () => {
      await pglite.close();
      lock.release();
    });
    return { ...handle, createdFromTemplate };
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

export async function openDatabase(config: {
  databaseUrl: string | null;
  dataDir: string;
  pgliteSharedBuffers?: string;
  databasePooler?: PoolerMode;
  databaseReplicaUrls?: string[];
  replicaMaxLagS?: number;
}): Promise<DatabaseHandle> {
  return config.databaseUrl
    ? openPostgres(config.databaseUrl, {
        pooler: config.databasePooler ?? 'none',
        replicaUrls: config.databaseReplicaUrls ?? [],
        replicaMaxLagS: config.replicaMaxLagS ?? 5,
      })
    : openPglite(config.dataDir, { sharedBuffers: config.pgliteSharedBuffers });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Start time of a process (clock ticks since boot, field 22 of /proc/<pid>/stat), or null where there is no /proc. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count the fields after its last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/**
 * The lock file: the pid on the first line (what older versions wrote and read), then `start=` and `boot=` lines.
 * A pid alone does not name a process for good: after a restart (a container's above all) the pid of the old holder
 * may belong to another, unrelated process. The holder's start time, and the boot id, tell them apart.
 */
function lockText(): string {
  const lines = [String(process.pid)];
  const start = processStartTime(process.pid);
  const boot = bootId();
  if (start) lines.push(`start=${start}`);
  if (boot) lines.push(`boot=${boot}`);
  return `${lines.join('\n')}\n`;
}

/** Whether the lock's text names a process that still runs: same pid, and (when recorded) same boot and start time. */
function heldByLiveProcess(text: string): number | null {
  const [first, ...rest] = text.split('\n');
  const holder = Number.parseInt(first ?? '', 10);
  if (!Number.isInteger(holder) || holder === process.pid || !isAlive(holder)) return null;
  const field = (name: string) =>
    rest
      .find((line) => line.startsWith(`${name}=`))
      ?.slice(name.length + 1)
      .trim() || null;
  const recordedBoot = field('boot');
  const currentBoot = bootId();
  if (recordedBoot && currentBoot && recordedBoot !== currentBoot) return null; // written before a reboot
  const recordedStart = field('start');
  const currentStart = processStartTime(holder);
  if (recordedStart && currentStart && recordedStart !== currentStart) return null; // the pid was reused
  return holder; // a lock of the old form (pid only) whose pid is alive is taken as held, as before
}

/** Locks the embedded database's folder against a second process; a lock whose holder is gone is taken over. */
export function acquireLock(path: string): { release(): void } {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, lockText(), { flag: 'wx' });
      return { release: () => rmSync(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = heldByLiveProcess(readFileSync(path, 'utf8'));
      if (holder !== null) {
        throw new Error(`The database folder ${resolve(path, '..')} is in use by process ${holder}; ` + 'stop it first or set DATA_DIR to another folder.');
      }
      rmSync(path, { force: true }); // a stale lock: its process died, or its pid now belongs to another process
    }
  }
  throw new Error(`Could not lock ${path}`);
}
