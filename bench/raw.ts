import type { Kysely } from 'kysely';
import { CompiledQuery } from 'kysely';
import pg from 'pg';

/** A query runner with no query builder in between: text + parameters in, rows out. */
export type Query = <R = Record<string, any>>(text: string, params?: readonly unknown[]) => Promise<{ rows: R[]; rowCount: number }>;

export interface RawExec {
  query: Query;
  /** BEGIN [mode] ... COMMIT on one connection (ROLLBACK on error). */
  tx<T>(fn: (q: Query) => Promise<T>, mode?: string): Promise<T>;
  close(): Promise<void>;
}

/** A plain pg pool of its own (the floor of the throughput comparison on PostgreSQL). */
export function rawPostgres(url: string, max = 10): RawExec {
  const pool = new pg.Pool({ connectionString: url, max });
  const query: Query = async (text, params = []) => {
    const r = await pool.query(text, params as unknown[]);
    return { rows: r.rows, rowCount: r.rowCount ?? 0 };
  };
  return {
    query,
    async tx(fn, mode = '') {
      const client = await pool.connect();
      try {
        await client.query(`BEGIN ${mode}`);
        const q: Query = async (text, params = []) => {
          const r = await client.query(text, params as unknown[]);
          return { rows: r.rows, rowCount: r.rowCount ?? 0 };
        };
        const result = await fn(q);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** A raw runner whose transaction also hands out its connection as a Kysely executor. */
export interface KyselyRawExec extends RawExec {
  /** `conn` is the transaction's connection, for statements borrowed from the product's own code. */
  tx<T>(fn: (q: Query, conn: Kysely<any>) => Promise<T>, mode?: string): Promise<T>;
}

/**
 * The same over a Kysely instance's connection, with no builder and no compilation (PGlite has exactly one connection,
 * owned by the app's Kysely pool, so the minimal routes must share it).
 */
export function rawKysely(db: Kysely<any>): KyselyRawExec {
  const on =
    (executor: Kysely<any>): Query =>
    async (text, params = []) => {
      const r = await executor.executeQuery(CompiledQuery.raw(text, [...params]));
      return { rows: r.rows as any[], rowCount: Number(r.numAffectedRows ?? r.rows.length) };
    };
  return {
    query: on(db),
    async tx(fn, mode = '') {
      return db.connection().execute(async (conn) => {
        const q = on(conn);
        await q(`BEGIN ${mode}`);
        try {
          const result = await fn(q, conn);
          await q('COMMIT');
          return result;
        } catch (error) {
          await q('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    },
    close: async () => undefined,
  };
}
