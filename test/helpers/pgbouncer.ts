/**
 * A PgBouncer in front of a test cluster (contract section 27: the service behind a transaction pooler). It runs in
 * the foreground as a child of the test process, as the `postgres` user under root (PgBouncer refuses root), with
 * its configuration, log and pid file in a temporary folder; stop() kills it, and so does the exit hook of
 * pg-cluster.ts if a test forgets.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { chown, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { childEnv, freePort, makeTempDir, onExit, postgresUser, sweepOrphansOnce } from './pg-cluster.js';

export const PGBOUNCER_BIN = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

export function pgbouncerAvailable(): boolean {
  if (!existsSync(PGBOUNCER_BIN)) return false;
  try {
    postgresUser();
    return true;
  } catch {
    return false;
  }
}

export interface PgbouncerOptions {
  /** The PostgreSQL server behind it. */
  host: string;
  port: number;
  poolMode: 'transaction' | 'session';
  /** Server connections per database and user (default_pool_size); default 20. */
  poolSize?: number;
  /** More [pgbouncer] settings (they win over the harness's). */
  settings?: Record<string, string | number>;
}

export interface Pgbouncer {
  readonly port: number;
  readonly dir: string;
  /** postgres://postgres@127.0.0.1:PORT/db: any database of the server behind (a wildcard entry). */
  url(dbName?: string): string;
  /** A command on PgBouncer's admin console (SHOW POOLS, PAUSE, RESUME, RELOAD, ...); the rows. */
  admin<R extends pg.QueryResultRow = any>(command: string): Promise<R[]>;
  /**
   * Points it at another server (failover to a promoted replica): rewrites the configuration and reloads it. The
   * clients stay connected; server connections to the old target are closed once idle.
   */
  retarget(target: { host: string; port: number }): Promise<void>;
  /** Its log so far (for failure messages). */
  log(): Promise<string>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startPgbouncer(options: PgbouncerOptions): Promise<Pgbouncer> {
  sweepOrphansOnce();
  const dir = makeTempDir('pgbouncer');
  const user = postgresUser();
  const ini = join(dir, 'pgbouncer.ini');
  const logFile = join(dir, 'pgbouncer.log');
  let port = await freePort();
  let target = { host: options.host, port: options.port };

  const write = async (path: string, text: string) => {
    await writeFile(path, text);
    if (user) await chown(path, user.uid, user.gid);
  };
  const writeIni = () => {
    const settings: Record<string, string | number> = {
      listen_addr: '127.0.0.1',
      listen_port: port,
      unix_socket_dir: dir,
      auth_type: 'trust',
      auth_file: join(dir, 'userlist.txt'),
      // The admin console (database `pgbouncer`) for SHOW POOLS, PAUSE, RELOAD.
      admin_users: 'postgres',
      pool_mode: options.poolMode,
      max_client_conn: 500,
      default_pool_size: options.poolSize ?? 20,
      // PgBouncer refuses a startup parameter it does not track ("unsupported startup parameter"); these two are
      // dropped instead. Dropped, not applied: `options` (-c search_path=...) never reaches the server. Others, such
      // as node-postgres's statement_timeout, are still refused.
      ignore_startup_parameters: 'extra_float_digits,options',
      logfile: logFile,
      // For the orphan sweep of pg-cluster.ts (written in the foreground too).
      pidfile: join(dir, 'pgbouncer.pid'),
      ...options.settings,
    };
    return write(
      ini,
      [
        '[databases]',
        // A wildcard: every database name goes to the same server, under its own name.
        `* = host=${target.host} port=${target.port}`,
        '',
        '[pgbouncer]',
        ...Object.entries(settings).map(([k, v]) => `${k} = ${v}`),
        '',
      ].join('\n'),
    );
  };

  await write(join(dir, 'userlist.txt'), '"postgres" ""\n');

  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const output: string[] = [];
  const running = () => !!child && child.exitCode === null && child.signalCode === null;
  const kill = () => {
    if (running()) child!.kill('SIGKILL');
  };
  /** SIGTERM is PgBouncer's immediate shutdown (it removes its pid file and socket); SIGKILL if it lingers. */
  const terminate = async () => {
    if (!running()) return;
    child!.kill('SIGTERM');
    const timer = setTimeout(kill, 2_000);
    await exited;
    clearTimeout(timer);
  };
  const unregister = onExit(() => {
    kill();
    rmSync(dir, { recursive: true, force: true });
  });
  const log = async () => (await readFile(logFile, 'utf8').catch(() => '')) || output.join('');

  const url = (dbName = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${dbName}`;
  const connect = async (dbName: string) => {
    const client = new pg.Client({ connectionString: url(dbName), connectionTimeoutMillis: 2_000 });
    client.on('error', () => {});
    await client.connect();
    return client;
  };

  const admin = async <R extends pg.QueryResultRow = any>(command: string): Promise<R[]> => {
    // The admin console speaks only the simple query protocol: a query without parameters.
    const client = await connect('pgbouncer');
    try {
      return (await client.query<R>(command)).rows;
    } finally {
      await client.end().catch(() => {});
    }
  };

  const spawnOnce = async (): Promise<boolean> => {
    await writeIni();
    output.length = 0;
    // Not daemonized (no -d): a child of ours whose pid we hold. uid/gid as `runuser -u postgres` would set them.
    const proc = spawn(PGBOUNCER_BIN, [ini], { cwd: dir, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'], ...user });
    child = proc;
    exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    proc.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
    proc.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    for (let attempt = 0; attempt < 200; attempt++) {
      if (proc.exitCode !== null || proc.signalCode !== null) return false;
      try {
        const client = await connect('postgres');
        try {
          await client.query('SELECT 1');
          return true;
        } finally {
          await client.end().catch(() => {});
        }
      } catch {
        await sleep(25);
      }
    }
    return false;
  };

  try {
    for (let attempt = 0; ; attempt++) {
      if (await spawnOnce()) break;
      const text = await log();
      kill();
      await exited;
      // Another program took the free port between our look and the bind: try a new one.
      if (attempt < 3 && /Address already in use|bind\(\) failed/i.test(text)) {
        port = await freePort();
        continue;
      }
      throw new Error(`pgbouncer did not answer SELECT 1 on port ${port}:\n${text.slice(-4_000)}`);
    }
  } catch (error) {
    kill();
    await exited;
    rmSync(dir, { recursive: true, force: true });
    unregister();
    throw error;
  }

  return {
    get port() {
      return port;
    },
    dir,
    url,
    admin,
    retarget: async (next) => {
      target = { ...next };
      await writeIni();
      // RELOAD on the console answers once the new configuration is in place (a SIGHUP would not say when).
      await admin('RELOAD');
    },
    log,
    stop: async () => {
      await terminate();
      rmSync(dir, { recursive: true, force: true });
      unregister();
    },
  };
}
