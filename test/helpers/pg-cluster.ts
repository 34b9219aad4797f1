/**
 * Throwaway PostgreSQL servers for the database-operations tests (contract section 27: failover, transaction
 * poolers, replicas). Each is a real postmaster of the installed PostgreSQL, on a free port and in a temporary folder
 * of its own: the shared server on 127.0.0.1:5432 that the other tests use is never touched.
 *
 * initdb, pg_ctl and postgres refuse to run as root, so under root every PostgreSQL program runs as the `postgres`
 * user (the spawn's uid/gid, the same as `runuser -u postgres`), in folders it owns. A postmaster outlives the
 * process that started it (pg_ctl detaches it), so every server is registered and stopped at once when the test
 * process exits (normally, on an uncaught error, or on SIGINT, SIGTERM or SIGHUP); those of a process killed outright
 * (SIGKILL) are swept by the next start. The hook needs a process of its own: vitest's `forks` pool (this
 * repository's), not worker threads.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import pg from 'pg';

/** PG_BIN, or the newest PostgreSQL of the Debian layout (/usr/lib/postgresql/<major>/bin). */
export const PG_BIN =
  process.env.PG_BIN ??
  (() => {
    const root = '/usr/lib/postgresql';
    const majors = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
    majors.sort((a, b) => Number(b) - Number(a));
    return join(root, majors[0] ?? '15', 'bin');
  })();

const bin = (name: string) => join(PG_BIN, name);

/** Who runs PostgreSQL's programs: the `postgres` user under root, else ourselves (undefined). */
export function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const fields = line?.split(':');
  if (!fields?.[2] || !fields[3]) throw new Error('running as root, but there is no `postgres` user to run PostgreSQL as');
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/** Whether the PostgreSQL programs (and, under root, a user to run them as) exist; the tests skip otherwise. */
export function available(): boolean {
  if (!['initdb', 'pg_ctl', 'postgres', 'pg_basebackup'].every((p) => existsSync(bin(p)))) return false;
  try {
    postgresUser();
    return true;
  } catch {
    return false;
  }
}

/** A port nobody listens on now (the OS picks it), as `freePort` in test-app.ts. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The environment without PG* variables, so nothing of the shared server's settings (PGPORT, PGHOST) leaks in. */
export function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PG')));
}

/** A folder under os.tmpdir() that the PostgreSQL user owns; named after this process for the orphan sweep. */
export function makeTempDir(kind: 'pg' | 'pgbouncer'): string {
  const dir = mkdtempSync(join(tmpdir(), `wis-${kind}-${process.pid}-`));
  const user = postgresUser();
  if (user) chownSync(dir, user.uid, user.gid);
  return dir;
}

/** Runs a PostgreSQL program as the PostgreSQL user; a failure carries its output. */
export function runAsPostgres(file: string, args: string[], cwd: string, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, env: childEnv(), timeout: timeoutMs, ...postgresUser() }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${basename(file)} ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Blocks (for the exit hook, where nothing asynchronous runs any more). */
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Whether the process runs; a zombie does not (a detached postmaster waits for init to reap it, here not at once). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return !existsSync('/proc/self/stat'); // no /proc: trust kill(0)
  }
};

/**
 * Stops, at once, the process whose pid file is `pidFile` (a postmaster's postmaster.pid, whose first line is the
 * pid), but only if its command line names `mustMention` (a stale pid file may point at a pid reused by another
 * program). SIGQUIT is PostgreSQL's immediate shutdown; pgbouncer also exits on it. Synchronous: used on exit.
 */
export function killByPidFileSync(pidFile: string, mustMention: string): void {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  } catch {
    return; // not running
  }
  if (!(pid > 0) || !alive(pid)) return;
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(mustMention)) return;
  } catch {
    return;
  }
  try {
    process.kill(pid, 'SIGQUIT');
  } catch {
    return;
  }
  for (let i = 0; i < 300 && alive(pid); i++) sleepSync(10);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

/** Last-resort cleanups, run synchronously when the process exits or is told to stop by a signal. */
const exitCleanups = new Set<() => void>();
let hooked = false;
const runExitCleanups = () => {
  for (const cleanup of [...exitCleanups]) {
    try {
      cleanup();
    } catch {
      // keep going: the others must still stop
    }
  }
  exitCleanups.clear();
};

export function onExit(cleanup: () => void): () => void {
  if (!hooked) {
    hooked = true;
    process.on('exit', runExitCleanups);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      const handler = () => {
        runExitCleanups();
        process.removeListener(signal, handler);
        // Our listener suppressed the default (dying): die as the signal meant, unless someone else handles it.
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      };
      process.on(signal, handler);
    }
  }
  exitCleanups.add(cleanup);
  return () => exitCleanups.delete(cleanup);
}

/**
 * The folders left by test processes that were killed outright (SIGKILL runs no exit hook): their servers are
 * stopped and the folders removed. A folder is an orphan only if the pid in its name is gone.
 */
function sweepOrphans(): void {
  for (const name of readdirSync(tmpdir())) {
    const match = /^wis-(pg|pgbouncer)-(\d+)-/.exec(name);
    if (!match || alive(Number(match[2]))) continue;
    const dir = join(tmpdir(), name);
    try {
      if (match[1] === 'pg') killByPidFileSync(join(dir, 'data', 'postmaster.pid'), join(dir, 'data'));
      else killByPidFileSync(join(dir, 'pgbouncer.pid'), join(dir, 'pgbouncer.ini'));
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // another process sweeping the same folder, or one we may not touch: leave it
    }
  }
}
let swept = false;
export function sweepOrphansOnce(): void {
  if (swept) return;
  swept = true;
  sweepOrphans();
}

export type StopMode = 'smart' | 'fast' | 'immediate';
export type Settings = Record<string, string | number | boolean>;

export interface PgCluster {
  readonly port: number;
  /** The temporary folder: `data/` (the data directory), the Unix socket and `postgres.log`. */
  readonly dir: string;
  readonly dataDir: string;
  readonly logFile: string;
  /** postgres://postgres@127.0.0.1:PORT/db (trust authentication, no password). */
  url(dbName?: string): string;
  /** One statement on a connection of its own to the `postgres` database; the rows. */
  query<R extends pg.QueryResultRow = any>(sql: string, params?: unknown[]): Promise<R[]>;
  /** pg_ctl start; resolves once the server accepts connections. */
  start(): Promise<void>;
  /** pg_ctl stop; `immediate` is a crash (the next start recovers from the WAL). Default `fast`. */
  stop(options?: { mode?: StopMode }): Promise<void>;
  restart(options?: { mode?: StopMode }): Promise<void>;
  /** Stops immediately (if running) and removes the folder. */
  destroy(): Promise<void>;
  /** The server log (for failure messages). */
  log(): Promise<string>;
}

export interface PgReplica extends PgCluster {
  readonly primary: PgCluster;
  /** Stops applying WAL (it is still received), so the replica lags on purpose until resumeReplay(). */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Waits until the replica has applied everything the primary had written when this was called. */
  waitForReplay(timeoutMs?: number): Promise<void>;
  /** Waits until the replica has received (not necessarily applied) everything the primary had written. */
  waitForReceive(timeoutMs?: number): Promise<void>;
  /** Makes the replica a primary (failover): pg_ctl promote, waiting until it accepts writes. */
  promote(): Promise<void>;
}

export interface ClusterOptions {
  /** More postgresql.conf settings (they win over the harness's). */
  settings?: Settings;
}

/** Speed over durability against OS crashes (there are none to survive), and what a primary with replicas needs. */
const BASE_SETTINGS: Settings = {
  listen_addresses: '127.0.0.1',
  max_connections: 200,
  // The data is thrown away; fsync=off only matters if the machine crashes. synchronous_commit stays on: an
  // immediate stop (a crash of PostgreSQL, not of the OS) must not lose an acknowledged commit.
  fsync: 'off',
  wal_level: 'replica',
  max_wal_senders: 5,
  // A replica stopped for a while (or one being made) still finds the WAL it missed.
  wal_keep_size: '128MB',
};

/** A replica reconnects to a restarted or new primary within a fraction of a second, not the default 5 s. */
const REPLICA_SETTINGS: Settings = { wal_retrieve_retry_interval: '200ms' };

const HBA = `# The harness's own cluster: trust, over the Unix socket and 127.0.0.1 only (replication included).
local all all trust
local replication all trust
host all all 127.0.0.1/32 trust
host replication all 127.0.0.1/32 trust
`;

const quote = (value: string | number | boolean): string => {
  const text = typeof value === 'boolean' ? (value ? 'on' : 'off') : String(value);
  return `'${text.replaceAll("'", "''")}'`;
};

/** Settings of our own go to harness.conf, included last by postgresql.conf; lines appended later win. */
const settingsText = (settings: Settings): string =>
  Object.entries(settings)
    .map(([k, v]) => `${k} = ${quote(v)}\n`)
    .join('');

const isPortTaken = (log: string) => /could not bind|Address already in use/i.test(log);

function makeHandle(dir: string, initialPort: number): PgCluster & { setPort(port: number): Promise<void> } {
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  let port = initialPort;
  const url = (dbName = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${dbName}`;
  const pgCtl = (args: string[], timeoutMs?: number) => runAsPostgres(bin('pg_ctl'), [...args, '-D', dataDir], dir, timeoutMs);
  const log = () => readFile(logFile, 'utf8').catch(() => '');
  const unregister = onExit(() => {
    killByPidFileSync(join(dataDir, 'postmaster.pid'), dataDir);
    rmSync(dir, { recursive: true, force: true });
  });

  const query = async <R extends pg.QueryResultRow = any>(sql: string, params?: unknown[]): Promise<R[]> => {
    const client = new pg.Client({ connectionString: url(), connectionTimeoutMillis: 5_000 });
    client.on('error', () => {}); // the server going away under an idle client is not this query's failure
    await client.connect();
    try {
      return (await client.query<R>(sql, params)).rows;
    } finally {
      await client.end().catch(() => {});
    }
  };

  const start = async () => {
    try {
      // -w waits until the postmaster reports itself ready (for a hot standby: accepting read-only connections).
      await pgCtl(['start', '-w', '-t', '60', '-l', logFile]);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- ${logFile} ---\n${(await log()).slice(-4_000)}`, { cause: error });
    }
    // ... and a connection over TCP, as the tests will connect.
    for (let attempt = 0; ; attempt++) {
      try {
        await query('SELECT 1');
        return;
      } catch (error) {
        if (attempt >= 100) throw error;
        await sleep(50);
      }
    }
  };

  const stop = async ({ mode = 'fast' }: { mode?: StopMode } = {}) => {
    if (!existsSync(join(dataDir, 'postmaster.pid'))) return;
    await pgCtl(['stop', '-w', '-t', '60', '-m', mode]);
  };

  return {
    get port() {
      return port;
    },
    dir,
    dataDir,
    logFile,
    url,
    query,
    start,
    stop,
    restart: async (options) => {
      await stop(options);
      await start();
    },
    destroy: async () => {
      await stop({ mode: 'immediate' }).catch(() => killByPidFileSync(join(dataDir, 'postmaster.pid'), dataDir));
      rmSync(dir, { recursive: true, force: true });
      unregister();
    },
    log,
    setPort: async (next: number) => {
      port = next;
      await appendFile(join(dataDir, 'harness.conf'), settingsText({ port, unix_socket_directories: dir }));
    },
  };
}

/** Starts, and retries on a new port if another program took the free port between our look and the bind. */
async function startOnFreePort(handle: ReturnType<typeof makeHandle>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await handle.start();
      return;
    } catch (error) {
      if (attempt >= 3 || !isPortTaken(await handle.log())) throw error;
      await handle.setPort(await freePort());
    }
  }
}

/** A new, empty cluster (initdb), started. */
export async function startCluster(options: ClusterOptions = {}): Promise<PgCluster> {
  sweepOrphansOnce();
  const dir = makeTempDir('pg');
  const handle = makeHandle(dir, await freePort());
  try {
    await runAsPostgres(
      bin('initdb'),
      ['-D', handle.dataDir, '--auth=trust', '-U', 'postgres', '--no-sync', '--no-instructions', '-E', 'UTF8', '--locale=C.UTF-8'],
      dir,
    );
    // The files initdb wrote belong to the PostgreSQL user; rewriting or appending keeps their owner.
    await writeFile(join(handle.dataDir, 'pg_hba.conf'), HBA);
    await appendFile(join(handle.dataDir, 'postgresql.conf'), "\ninclude 'harness.conf'\n");
    await writeFile(
      join(handle.dataDir, 'harness.conf'),
      settingsText({ ...BASE_SETTINGS, port: handle.port, unix_socket_directories: dir, ...options.settings }),
    );
    chownToPostgres(join(handle.dataDir, 'harness.conf'));
    await startOnFreePort(handle);
    return handle;
  } catch (error) {
    await handle.destroy();
    throw error;
  }
}

function chownToPostgres(path: string): void {
  const user = postgresUser();
  if (user) chownSync(path, user.uid, user.gid);
}

/**
 * A streaming hot standby of `primary`: pg_basebackup -R (standby.signal and primary_conninfo) with the WAL streamed
 * during the copy, on a port of its own, started. It inherits the primary's settings (a standby needs at least its
 * primary's max_connections and max_wal_senders).
 */
export async function makeReplica(primary: PgCluster, options: ClusterOptions = {}): Promise<PgReplica> {
  sweepOrphansOnce();
  const dir = makeTempDir('pg');
  const handle = makeHandle(dir, await freePort());
  try {
    await runAsPostgres(
      bin('pg_basebackup'),
      ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', handle.dataDir, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync'],
      dir,
    );
    // The copy's harness.conf names the primary's port and socket; lines appended later win.
    await appendFile(
      join(handle.dataDir, 'harness.conf'),
      `# replica of port ${primary.port}\n${settingsText({ port: handle.port, unix_socket_directories: dir, ...REPLICA_SETTINGS, ...options.settings })}`,
    );
    await startOnFreePort(handle);
  } catch (error) {
    await handle.destroy();
    throw error;
  }

  const lsnWait = async (fn: 'pg_last_wal_replay_lsn' | 'pg_last_wal_receive_lsn', timeoutMs: number) => {
    const [{ lsn }] = (await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')) as [{ lsn: string }];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await handle.query<{ done: boolean; at: string | null }>(`SELECT ${fn}() >= $1::pg_lsn AS done, ${fn}()::text AS at`, [lsn]);
      if (row?.done) return;
      if (Date.now() > deadline) throw new Error(`replica on port ${handle.port}: ${fn}() is ${row?.at}, the primary was at ${lsn} (${timeoutMs} ms)`);
      await sleep(20);
    }
  };

  return Object.assign(handle, {
    primary,
    pauseReplay: async () => {
      await handle.query('SELECT pg_wal_replay_pause()');
      // The startup process pauses before the next WAL record it would apply; wait until it says so, briefly
      // (with no WAL arriving it may stay at 'pause requested', which already stops every later record).
      for (let i = 0; i < 50; i++) {
        const [row] = await handle.query<{ state: string }>('SELECT pg_get_wal_replay_pause_state() AS state');
        if (row?.state === 'paused') return;
        await sleep(20);
      }
    },
    resumeReplay: async () => {
      await handle.query('SELECT pg_wal_replay_resume()');
    },
    waitForReplay: (timeoutMs = 10_000) => lsnWait('pg_last_wal_replay_lsn', timeoutMs),
    waitForReceive: (timeoutMs = 10_000) => lsnWait('pg_last_wal_receive_lsn', timeoutMs),
    promote: async () => {
      await runAsPostgres(bin('pg_ctl'), ['promote', '-w', '-t', '60', '-D', handle.dataDir], dir);
    },
  });
}
