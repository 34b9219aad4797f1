/**
 * Whether the database can be reached (contract 27.1), and whether a transaction pooler was met without
 * `DATABASE_POOLER=transaction` (27.2).
 *
 * A connection-level error (the server stopped, restarted or failed over; a connection refused, reset or timed out)
 * marks the database unavailable: requests that meet such an error answer 503 `database_unavailable` with
 * `Retry-After`, `/readyz` answers 503 and the periodic duties skip their runs. A probe (`SELECT 1` every
 * `probeMs`) marks it available again as soon as the database accepts connections; requests do not wait for the
 * probe, they simply try (the pool opens a new connection on demand), so the service serves again at once.
 */

/** SQLSTATE classes and codes that mean "no connection" rather than "this statement is wrong". */
const UNAVAILABLE_CODES = new Set([
  '57P01', // admin_shutdown: the server is stopping (fast or immediate)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, shutting down, in recovery
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '08007',
  '08P01', // a pooler's "server login failed" or "server conn crashed"
  '58P03', // PgBouncer: server is down / no server connection available (some versions)
]);

/** Node's socket errors, and node-postgres' own messages for a connection that went away. */
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Connection ended unexpectedly',
  'the database system is',
];

/** Prepared-statement errors that only a transaction pooler in front of named statements causes. */
const POOLER_CODES = new Set(['26000', '42P05']);

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** True when `error` (or the error it wraps) says the database could not be reached. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = codeOf(e);
    if (code && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_ERRNOS.has(code))) return true;
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    const message = e instanceof Error ? e.message : '';
    if (UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
  }
  return false;
}

export function isPoolerStatementError(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && POOLER_CODES.has(code);
}

/**
 * One short line for a database error: its code and message, never the client object pg attaches. node-postgres
 * gives a connection closed under it ("Connection terminated unexpectedly") no code: it is logged as SQLSTATE 08006,
 * connection_failure, which is what it is.
 */
export function describeDatabaseError(error: unknown): { code: string; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  const code = codeOf(error) ?? (isDatabaseUnavailable(error) ? '08006' : 'unknown');
  return { code, message };
}

export interface AvailabilityLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export interface DatabaseAvailability {
  /** False from a connection-level error until the probe reaches the database again. */
  readonly available: boolean;
  /** Set (for good, until restart) when a named statement met a transaction pooler without DATABASE_POOLER. */
  readonly poolerMisconfigured: boolean;
  /** Looks at an error of any statement: marks the database unavailable, or the pooler misconfigured. */
  observe(error: unknown): void;
  /** A lost connection: logged as one line with its code, and the database marked unavailable. */
  connectionLost(error: unknown): void;
  /** Where lines go (the app's logger once it exists; stderr before). */
  setLog(log: AvailabilityLog): void;
  stop(): void;
}

const consoleLog: AvailabilityLog = {
  warn: (fields, message) => console.error(message, JSON.stringify(fields)),
  error: (fields, message) => console.error(message, JSON.stringify(fields)),
  info: (fields, message) => console.error(message, JSON.stringify(fields)),
};

/** The embedded database is in process: it never goes away, and has no pooler in front. */
export const alwaysAvailable: DatabaseAvailability = {
  available: true,
  poolerMisconfigured: false,
  observe: () => undefined,
  connectionLost: () => undefined,
  setLog: () => undefined,
  stop: () => undefined,
};

export function trackAvailability(probe: () => Promise<unknown>, options: { probeMs?: number; pooler: 'none' | 'transaction' }): DatabaseAvailability {
  const probeMs = options.probeMs ?? 250;
  let log = consoleLog;
  let available = true;
  let since = 0;
  let poolerMisconfigured = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const schedule = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      probe().then(
        () => {
          if (available) return;
          available = true;
          log.info({ unavailable_ms: Date.now() - since }, 'database available again; duties resume');
        },
        () => schedule(),
      );
    }, probeMs);
    timer.unref();
  };

  const markUnavailable = (error: unknown) => {
    if (!available) return;
    available = false;
    since = Date.now();
    log.error({ err: describeDatabaseError(error) }, 'database unavailable: requests answer 503 and duties pause until it is back');
    schedule();
  };

  return {
    get available() {
      return available;
    },
    get poolerMisconfigured() {
      return poolerMisconfigured;
    },
    observe(error) {
      if (isDatabaseUnavailable(error)) markUnavailable(error);
      else if (options.pooler === 'none' && isPoolerStatementError(error) && !poolerMisconfigured) {
        poolerMisconfigured = true;
        log.error(
          { err: describeDatabaseError(error) },
          'a prepared statement was lost between requests: the database is reached through a transaction pooler ' +
            '(PgBouncer, Supavisor, RDS Proxy). Set DATABASE_POOLER=transaction and restart; /readyz answers 503 until then',
        );
      }
    },
    connectionLost(error) {
      log.warn({ err: describeDatabaseError(error) }, 'database connection lost; the pool replaces it');
      if (isDatabaseUnavailable(error)) markUnavailable(error);
    },
    setLog(next) {
      log = next;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
