import type pg from 'pg';

/**
 * How many heap pages a bitmap heap scan of this service's sessions reads ahead (PostgreSQL's
 * `effective_io_concurrency`, whose default of 1 reads them one at a time). Search finds its matches through GIN
 * bitmaps and reads a few hundred scattered rows per query; read one at a time from disk, as on a database larger
 * than its memory, they made a million issues' search p95 178 ms against 79 ms read ahead (issue 37, cold cache:
 * `bench/search-stages.ts`; 16 measured 88 ms, 256 measured 87).
 */
export const IO_CONCURRENCY = 64;

/**
 * How long a pooled connection (the pool's, and the replicas') may sit idle before it is closed; node-postgres' default
 * is 10 s. A new connection is a new backend, which reads the catalog entries of every table, partition and index it
 * touches and prepares each statement again: a search after 12 s of quiet took 93-260 ms against 28-46 ms on the
 * connections of a second before (search's 27 monthly partitions, 1,000,000 issues; docs/decisions/search.md,
 * "Connections kept warm").
 */
export const POOL_IDLE_TIMEOUT_MS = 60_000;

/**
 * The session settings of each new direct PostgreSQL connection (the pool's, and the replicas'). A value the operator
 * chose (on the server, the database or the role) is kept: only the compiled default is raised. Not behind a
 * transaction pooler (`DATABASE_POOLER=transaction`), where the service holds no session state: the setting would stay
 * on whichever server connection ran it; there the operator sets it on the database or the role. A failure is
 * ignored: the connection works as before, and a lost connection is reported by its own error listener.
 */
export function applySessionSettings(client: pg.ClientBase): void {
  client
    .query(`SELECT set_config('effective_io_concurrency', '${IO_CONCURRENCY}', false) WHERE current_setting('effective_io_concurrency') = '1'`)
    .catch(() => undefined);
}
