import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';

/**
 * Who holds a database connection, and for how long. PGlite is one session: while a background duty or a long
 * transaction holds it, every request waits, so the time each holder keeps a connection checked out is the measure
 * of issue 28 (`db_connection_hold_seconds{holder}` on `/metrics`). A periodic job runs under its own name
 * (`job-runner.ts`); anything else (a request, the CLI) counts as `request`.
 */
const holder = new AsyncLocalStorage<string>();

/** Runs `fn` with the connections it checks out counted under `name`. */
export function holdingAs<T>(name: string, fn: () => Promise<T>): Promise<T> {
  return holder.run(name, fn);
}

export type HoldObserver = (holder: string, seconds: number) => void;

/**
 * Wraps `pool.connect` so each checkout reports its holder and how long it held the client, on release. Kysely checks
 * out one client per statement outside a transaction and one per transaction inside it.
 */
export function watchHolds(pool: pg.Pool): (observer: HoldObserver) => void {
  let observe: HoldObserver | undefined;
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
    const client = await connect();
    if (!observe) return client;
    const name = holder.getStore() ?? 'request';
    const start = performance.now();
    const release = client.release;
    client.release = (err?: Error | boolean) => {
      client.release = release;
      observe?.(name, (performance.now() - start) / 1000);
      return release.call(client, err);
    };
    return client;
  };
  return (observer) => {
    observe = observer;
  };
}
