import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { describeDatabaseError, type AvailabilityLog } from './availability.js';
import { nameStatements } from './named-statements.js';
import { applySessionSettings, POOL_IDLE_TIMEOUT_MS } from './session-settings.js';

/**
 * Read replicas (contract 27.3), after GitLab's database load balancer: reads that tolerate a replica go to a healthy
 * one that has replayed the client's own last write; everything else, and every read when no replica qualifies, goes
 * to the primary.
 *
 * - Health and lag: every `monitorMs` the primary's WAL position (`pg_current_wal_lsn()`) is sampled, and each
 *   replica's replay position (`pg_last_wal_replay_lsn()`). A replica's lag is how long ago the primary was at a
 *   position the replica has not replayed yet: 0 while it has replayed everything (an idle primary does not make it
 *   lag, unlike the time since its last replayed transaction). Over `maxLagS`, or failing, it is skipped.
 * - Read-your-writes: after a write request, the client's position is the primary's `pg_current_wal_insert_lsn()`;
 *   its reads go to the primary until a replica has replayed that far. The positions are kept in this process: a
 *   client whose writes and reads reach different instances reads its writes from a replica only once replayed as
 *   far as this instance knows (docs/decisions/database-ops.md).
 * - Routing is by async context: `readsFromReplica(client, work)` runs `work` with its connections taken from a
 *   replica; the HTTP layer does so only for the read-only routes of `REPLICA_ROUTES`.
 */

export interface ReplicaMetrics {
  read(target: 'primary' | 'replica'): void;
  lag(replica: string, seconds: number): void;
}

interface Replica {
  /** host:port, never the credentials (the metrics' label). */
  name: string;
  pool: pg.Pool;
  healthy: boolean;
  replayed: bigint;
  lagS: number;
}

interface ReadContext {
  /** The replica this request reads from (one for all its statements), or none: the primary. */
  replica: Replica | undefined;
}

/** `X/Y` (pg_lsn as text) as one number. */
export function parseLsn(text: string | null | undefined): bigint {
  if (!text) return 0n;
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi ?? '0'}`) << 32n) + BigInt(`0x${lo ?? '0'}`);
}

/** Seconds since the primary was at a position beyond `replayed` (samples oldest first; 0 when caught up). */
export function lagSeconds(samples: { at: number; lsn: bigint }[], replayed: bigint, now: number): number {
  const latest = samples[samples.length - 1];
  if (!latest || replayed >= latest.lsn) return 0;
  const first = samples.find((s) => s.lsn > replayed) ?? samples[0]!;
  return Math.max(0, (now - first.at) / 1000);
}

/**
 * One statement on a pool checked out by hand: the primary's `connect` is wrapped (promise only), and pg-pool's own
 * `query` calls `connect` with a callback.
 */
async function lsnOf(pool: pg.Pool, text: string): Promise<string | null> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ lsn: string | null }>(text);
    return rows[0]?.lsn ?? null;
  } finally {
    client.release();
  }
}

export interface ReplicaRouting {
  /** The pool Kysely is given: connections from a replica inside `readsFromReplica`, else from the primary. */
  readonly pool: pg.Pool;
  readsFromReplica<T>(client: string | undefined, work: () => T): T;
  /** Remembers the primary's WAL position after a write request of `client`. */
  noteWrite(client: string): Promise<void>;
  /** Each replica's state, for /readyz-like views and tests. */
  state(): { name: string; healthy: boolean; lag_seconds: number }[];
  setMetrics(metrics: ReplicaMetrics): void;
  setLog(log: AvailabilityLog): void;
  close(): Promise<void>;
}

export function routeReads(
  primary: pg.Pool,
  replicaUrls: string[],
  options: { maxLagS: number; pooler: 'none' | 'transaction'; poolSize: number; monitorMs?: number },
): ReplicaRouting {
  const monitorMs = options.monitorMs ?? 500;
  const context = new AsyncLocalStorage<ReadContext>();
  let metrics: ReplicaMetrics | undefined;
  let log: AvailabilityLog | undefined;
  const replicas: Replica[] = replicaUrls.map((url) => {
    const u = new URL(url);
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize,
      connectionTimeoutMillis: 2_000,
      idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS,
      keepAlive: true,
    });
    pool.on('connect', (client) => {
      client.on('error', () => undefined);
      if (options.pooler === 'none') applySessionSettings(client);
    });
    pool.on('error', () => undefined);
    if (options.pooler === 'none') nameStatements(pool);
    return { name: `${u.hostname}:${u.port || '5432'}`, pool, healthy: false, replayed: 0n, lagS: Number.POSITIVE_INFINITY };
  });
  const writes = new Map<string, bigint>();
  const samples: { at: number; lsn: bigint }[] = [];
  let next = 0;

  const setHealth = (replica: Replica, healthy: boolean, why?: unknown) => {
    if (replica.healthy === healthy) return;
    replica.healthy = healthy;
    if (healthy) log?.info({ replica: replica.name }, 'read replica in use');
    else
      log?.warn(
        { replica: replica.name, lag_seconds: replica.lagS, err: why ? describeDatabaseError(why) : undefined },
        'read replica skipped: reads go to the primary',
      );
  };

  let monitoring: Promise<void> | undefined;
  const monitor = async () => {
    const now = Date.now();
    try {
      samples.push({ at: now, lsn: parseLsn(await lsnOf(primary, 'SELECT pg_current_wal_lsn()::text AS lsn')) });
    } catch {
      return; // the primary's own availability reports it; the replicas keep their last state meanwhile
    }
    const keepMs = Math.max(60_000, options.maxLagS * 4_000);
    while (samples.length > 2 && samples[0]!.at < now - keepMs) samples.shift();
    await Promise.all(
      replicas.map(async (replica) => {
        try {
          const lsn = await lsnOf(replica.pool, 'SELECT pg_last_wal_replay_lsn()::text AS lsn');
          if (lsn === null) throw new Error('not a replica: pg_last_wal_replay_lsn() is null');
          replica.replayed = parseLsn(lsn);
          replica.lagS = lagSeconds(samples, replica.replayed, Date.now());
          setHealth(replica, replica.lagS <= options.maxLagS);
        } catch (error) {
          replica.lagS = Number.POSITIVE_INFINITY;
          setHealth(replica, false, error);
        }
        metrics?.lag(replica.name, Number.isFinite(replica.lagS) ? replica.lagS : -1);
      }),
    );
    // Positions every healthy replica has replayed are no longer needed.
    const healthy = replicas.filter((r) => r.healthy);
    if (healthy.length === 0) return;
    const floor = healthy.reduce((min, r) => (r.replayed < min ? r.replayed : min), healthy[0]!.replayed);
    for (const [client, lsn] of writes) if (lsn <= floor) writes.delete(client);
  };
  const timer = setInterval(() => {
    monitoring ??= monitor().finally(() => (monitoring = undefined));
  }, monitorMs);
  timer.unref();
  void (monitoring = monitor().finally(() => (monitoring = undefined)));

  const pick = (minLsn: bigint): Replica | undefined => {
    for (let i = 0; i < replicas.length; i++) {
      const replica = replicas[(next + i) % replicas.length]!;
      if (replica.healthy && replica.replayed >= minLsn) {
        next = (next + i + 1) % replicas.length;
        return replica;
      }
    }
    return undefined;
  };

  // What Kysely's driver uses of a pool: connect() and end(). The primary's connect is looked up at each call, so
  // the wrappers put on it (named statements, hold times, error observation) stay in the path.
  const connect = () => primary.connect();
  const routing = {
    connect: async () => {
      const replica = context.getStore()?.replica;
      if (replica?.healthy) {
        try {
          return await replica.pool.connect();
        } catch (error) {
          replica.lagS = Number.POSITIVE_INFINITY;
          setHealth(replica, false, error);
        }
      }
      return connect();
    },
    end: () => primary.end(),
  } as unknown as pg.Pool;

  return {
    pool: routing,
    readsFromReplica(client, work) {
      const replica = pick((client && writes.get(client)) || 0n);
      metrics?.read(replica ? 'replica' : 'primary');
      return context.run({ replica }, work);
    },
    async noteWrite(client) {
      const lsn = parseLsn(await lsnOf(primary, 'SELECT pg_current_wal_insert_lsn()::text AS lsn'));
      if (lsn > (writes.get(client) ?? 0n)) writes.set(client, lsn);
    },
    state: () => replicas.map((r) => ({ name: r.name, healthy: r.healthy, lag_seconds: Number.isFinite(r.lagS) ? r.lagS : -1 })),
    setMetrics(next) {
      metrics = next;
    },
    setLog(next) {
      log = next;
    },
    async close() {
      clearInterval(timer);
      await monitoring;
      await Promise.all(replicas.map((r) => r.pool.end()));
    },
  };
}
