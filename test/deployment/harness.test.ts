/**
 * The database-operations harness itself (contract section 27): a throwaway cluster that restarts and crashes, a
 * streaming replica that lags on purpose, and PgBouncer in transaction mode in front of the primary. The failover and
 * pooler tests build on these helpers; this checks them, and how long each step takes. Runs with
 * RUN_DB_OPS_TEST=1 on a machine with PostgreSQL's server programs (and PgBouncer); never near the shared server.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { available, makeReplica, type PgCluster, type PgReplica, startCluster } from '../helpers/pg-cluster.js';
import { type Pgbouncer, pgbouncerAvailable, startPgbouncer } from '../helpers/pgbouncer.js';

const enabled = process.env.RUN_DB_OPS_TEST === '1' && available() && pgbouncerAvailable();

describe.runIf(enabled)('the database-operations harness', () => {
  let primary: PgCluster | undefined;
  let replica: PgReplica | undefined;
  let bouncer: Pgbouncer | undefined;
  const timings: [string, number][] = [];
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await fn();
    } finally {
      timings.push([name, Math.round(performance.now() - started)]);
    }
  };

  afterAll(async () => {
    // A failed test leaves its servers here; a passing one has already stopped them (and timed it).
    if (bouncer || replica || primary) {
      await bouncer?.stop();
      await replica?.destroy();
      await primary?.destroy();
    }
    console.log(`harness timings (ms):\n${timings.map(([name, ms]) => `  ${name.padEnd(28)} ${String(ms).padStart(6)}`).join('\n')}`);
  });

  it('starts, restarts and crashes a cluster, replicates to a lagging replica, and pools through PgBouncer', async () => {
    primary = await step('initdb + start', () => startCluster());
    const p = primary;
    expect(p.port).not.toBe(5432);
    expect(await p.query('SHOW port')).toEqual([{ port: String(p.port) }]);
    await p.query('CREATE TABLE harness (id int PRIMARY KEY)');
    await p.query('INSERT INTO harness VALUES (1)');

    await step('restart (fast)', () => p.restart());
    await step('crash + recovery', () => p.restart({ mode: 'immediate' }));
    // An acknowledged commit survives the crash (synchronous_commit stays on).
    expect(await p.query('SELECT id FROM harness ORDER BY id')).toEqual([{ id: 1 }]);

    replica = await step('pg_basebackup + start', () => makeReplica(p));
    const r = replica;
    expect(r.port).not.toBe(p.port);
    expect(await r.query('SELECT pg_is_in_recovery() AS standby')).toEqual([{ standby: true }]);

    await p.query('INSERT INTO harness VALUES (2)');
    await step('replicate a write', () => r.waitForReplay());
    expect(await r.query('SELECT id FROM harness ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
    await expect(r.query('INSERT INTO harness VALUES (99)')).rejects.toThrow(/read-only transaction/);

    // Lag on purpose: the WAL of the next write arrives, but is not applied until replay resumes.
    await step('pause replay', () => r.pauseReplay());
    await p.query('INSERT INTO harness VALUES (3)');
    await step('receive while paused', () => r.waitForReceive());
    expect(await r.query('SELECT id FROM harness ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
    const [lag] = await r.query<{ behind: boolean }>('SELECT pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn() AS behind');
    expect(lag).toEqual({ behind: true });
    await expect(r.waitForReplay(300)).rejects.toThrow(/pg_last_wal_replay_lsn/);
    await step('resume + catch up', async () => {
      await r.resumeReplay();
      await r.waitForReplay();
    });
    expect(await r.query('SELECT id FROM harness ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);

    bouncer = await step('pgbouncer start', () => startPgbouncer({ host: '127.0.0.1', port: p.port, poolMode: 'transaction', poolSize: 2 }));
    const b = bouncer;
    const pool = new pg.Pool({ connectionString: b.url(), max: 5 });
    try {
      await step('queries through pgbouncer', async () => {
        // It is the primary behind it; parameters (the extended protocol) pass in transaction mode.
        expect((await pool.query('SHOW port')).rows).toEqual([{ port: String(p.port) }]);
        const rows = await Promise.all([1, 2, 3, 4, 5].map((n) => pool.query<{ n: number }>('SELECT $1::int AS n, pg_sleep(0.05)', [n])));
        expect(rows.map((res) => res.rows[0]?.n)).toEqual([1, 2, 3, 4, 5]);
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await client.query('INSERT INTO harness VALUES (4)');
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      });
    } finally {
      await pool.end();
    }
    const pools = await b.admin<{ database: string; pool_mode: string }>('SHOW POOLS');
    expect(pools.find((row) => row.database === 'postgres')?.pool_mode).toBe('transaction');
    await r.waitForReplay();
    expect(await r.query('SELECT count(*)::int AS n FROM harness')).toEqual([{ n: 4 }]);

    await step('cleanup', async () => {
      await b.stop();
      await r.destroy();
      await p.destroy();
    });
    bouncer = replica = primary = undefined;
    for (const dir of [b.dir, r.dir, p.dir]) expect(existsSync(dir)).toBe(false);
    await expect(p.query('SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
  });
});
