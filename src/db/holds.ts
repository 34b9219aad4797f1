import { performance } from 'node:perf_hooks';
import type pg from 'pg';

/**
 * How long each checkout of a database connection holds it. PGlite is one session: while a background duty or a long
 * transaction holds it, every request waits, so the hold times are the measure of issue 28
 * (`db_connection_hold_seconds` on `/metrics`). Kysely checks out one connection per statement outside a transaction
 * and one per transaction inside it.
 *
 * Not labelled by holder: telling a job's checkouts from a request's needs AsyncLocalStorage, which on Node 20 makes
 * every `await` of the process about 2.2 times as expensive (promise hooks); docs/decisions/pglite-session.md has the
 * per-holder figures measured with it once.
 */
export type HoldObserver = (seconds: number) => void;

/** Wraps `pool.connect` so each checkout reports how long it held its client, on release. */
export function watchHolds(pool: pg.Pool): (observer: HoldObserver) => void {
  let observe: HoldObserver | undefined;
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
    const client = await connect();
    if (!observe) return client;
    const start = performance.now();
    const release = client.release;
    client.release = (err?: Error | boolean) => {
      client.release = release;
      observe?.((performance.now() - start) / 1000);
      return release.call(client, err);
    };
    return client;
  };
  return (observer) => {
    observe = observer;
  };
}
