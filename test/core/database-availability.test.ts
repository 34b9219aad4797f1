/**
 * Contract 27.1/27.2 without a database of its own: what counts as "the database is away", the availability's
 * states, the job runner's pause, and the HTTP answers of a service whose database does not accept connections.
 * The real restart, stop and pooler runs are in test/deployment/database-ops.test.ts.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeDatabaseError, isDatabaseUnavailable, isPoolerStatementError, trackAvailability } from '../../src/db/availability.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { openPostgres } from '../../src/db/database.js';
import { lagSeconds, parseLsn } from '../../src/db/replicas.js';
import { createMetrics } from '../../src/http/metrics.js';
import { startJobs } from '../../src/job-runner.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const pgError = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('what counts as the database being away', () => {
  it('takes connection-level codes, socket errors and node-postgres messages, also wrapped', () => {
    for (const error of [
      pgError('57P01', 'terminating connection due to administrator command'),
      pgError('57P03', 'the database system is starting up'),
      pgError('08006'),
      pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1'),
      pgError('ECONNRESET'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Migration failed', { cause: pgError('ECONNREFUSED') }),
      new AggregateError([pgError('ECONNREFUSED')], ''),
    ]) {
      expect(isDatabaseUnavailable(error), String(error)).toBe(true);
    }
  });

  it("leaves statement errors alone: they are the request's own", () => {
    for (const error of [pgError('23505'), pgError('40001'), pgError('42P01'), pgError('22P02'), new Error('x'), null, undefined, 'text']) {
      expect(isDatabaseUnavailable(error)).toBe(false);
    }
    expect(isPoolerStatementError(pgError('26000'))).toBe(true);
    expect(isPoolerStatementError(pgError('42P05'))).toBe(true);
    expect(isPoolerStatementError(pgError('23505'))).toBe(false);
  });

  it('describes an error in one short line, without the client node-postgres hangs on it', () => {
    const error = Object.assign(pgError('57P01', 'terminating connection'), { client: { huge: 'x'.repeat(20_000) } });
    const line = JSON.stringify(describeDatabaseError(error));
    expect(line).toBe('{"code":"57P01","message":"terminating connection"}');
  });
});

describe('the availability', () => {
  const quietLog = () => {
    const lines: string[] = [];
    const add = (fields: object, message: string) => void lines.push(`${message} ${JSON.stringify(fields)}`);
    return { lines, log: { warn: add, error: add, info: add } };
  };

  it('turns unavailable on a connection error, logs once, and comes back when the probe succeeds', async () => {
    let up = false;
    const availability = trackAvailability(() => (up ? Promise.resolve() : Promise.reject(pgError('ECONNREFUSED'))), { pooler: 'none', probeMs: 10 });
    const { lines, log } = quietLog();
    availability.setLog(log);
    availability.observe(pgError('23505'));
    expect(availability.available).toBe(true);
    for (let i = 0; i < 5; i++) availability.observe(pgError('57P01'));
    expect(availability.available).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(availability.available).toBe(false);
    up = true;
    await expect.poll(() => availability.available, { timeout: 2_000, interval: 10 }).toBe(true);
    availability.stop();
    expect(lines.filter((l) => l.startsWith('database unavailable'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('database available again'))).toHaveLength(1);
  });

  it('flags a lost prepared statement as a pooler to declare, except when DATABASE_POOLER=transaction', () => {
    const direct = trackAvailability(() => Promise.resolve(), { pooler: 'none' });
    const { lines, log } = quietLog();
    direct.setLog(log);
    direct.observe(pgError('26000', 'prepared statement "k1" does not exist'));
    direct.observe(pgError('42P05', 'prepared statement "k1" already exists'));
    expect(direct.poolerMisconfigured).toBe(true);
    expect(direct.available).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('DATABASE_POOLER=transaction');
    const pooled = trackAvailability(() => Promise.resolve(), { pooler: 'transaction' });
    pooled.observe(pgError('26000'));
    expect(pooled.poolerMisconfigured).toBe(false);
  });
});

describe('the periodic duties', () => {
  it('skip their runs while the database is away and run again when it is back', async () => {
    const state = { available: false, poolerMisconfigured: false };
    let runs = 0;
    const metrics = createMetrics();
    const log = { error: () => undefined } as unknown as Parameters<typeof startJobs>[3];
    const jobs = startJobs([{ name: 'probe-job', run: async () => void runs++, intervalMs: 10 }], 10, metrics, log, state);
    await new Promise((r) => setTimeout(r, 80));
    expect(runs).toBe(0);
    state.available = true;
    await expect.poll(() => runs, { timeout: 2_000, interval: 10 }).toBeGreaterThan(0);
    await jobs.stop();
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/job_runs_total\{job="probe-job",outcome="paused"\} [1-9]/);
  });
});

describe('a service whose database does not accept connections', () => {
  let closedPort: Server;
  let ctx: TestApp;
  beforeAll(async () => {
    // A port that accepts nothing: bound, then closed again, so connecting is refused at once.
    closedPort = createServer();
    const port = await new Promise<number>((resolve) => closedPort.listen(0, '127.0.0.1', () => resolve((closedPort.address() as { port: number }).port)));
    await new Promise((r) => closedPort.close(r));
    ctx = await startTestApp({}, openPostgres(`postgres://postgres@127.0.0.1:${port}/nowhere`));
  });
  afterAll(async () => {
    await ctx?.close();
    await ctx?.database.close();
  });

  it('answers 503 database_unavailable with Retry-After, /readyz 503 and /healthz 200, and never ends', async () => {
    const signUp = await ctx.api.post('/api/auth/sign-up/', { email: 'a@example.com', password: 'correct horse battery', display_name: 'A' });
    expect(signUp.status).toBe(503);
    expect(signUp.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(signUp.headers.get('retry-after')).toBe('2');
    expect(signUp.body).toMatchObject({ status: 503, code: 'database_unavailable', title: 'Service Unavailable' });
    const list = await ctx.api.get('/api/workspaces/', { token: 'wis_not_a_real_token' });
    expect(list.status).toBe(503);
    expect((await fetch(`${ctx.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${ctx.url}/healthz`)).status).toBe(200);
    expect(ctx.database.availability.available).toBe(false);
  });
});

describe('read replicas: positions, lag and configuration', () => {
  it('reads pg_lsn text as one number', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('1/0')).toBe(1n << 32n);
    expect(parseLsn('A/FF') > parseLsn('9/FFFFFFFF')).toBe(true);
    expect(parseLsn(null)).toBe(0n);
  });

  it("measures lag by WAL position: 0 when caught up (an idle primary), else since the primary passed the replica's replay", () => {
    const samples = [
      { at: 1_000, lsn: 100n },
      { at: 2_000, lsn: 200n },
      { at: 3_000, lsn: 300n },
    ];
    expect(lagSeconds(samples, 300n, 60_000)).toBe(0); // idle for a minute, nothing to replay: no lag
    expect(lagSeconds(samples, 250n, 3_500)).toBe(0.5); // the primary passed 250 at its 3 000 sample
    expect(lagSeconds(samples, 100n, 3_500)).toBe(1.5);
    expect(lagSeconds(samples, 50n, 3_500)).toBe(2.5); // behind every sample: at least since the oldest
    expect(lagSeconds([], 0n, 1)).toBe(0);
  });

  it('takes DATABASE_REPLICA_URLS and REPLICA_MAX_LAG_S, and refuses replicas without DATABASE_URL or a bad pooler', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://p/db', DATABASE_REPLICA_URLS: 'postgres://r1/db, postgres://r2/db', REPLICA_MAX_LAG_S: '2' });
    expect(config.databaseReplicaUrls).toEqual(['postgres://r1/db', 'postgres://r2/db']);
    expect(config.replicaMaxLagS).toBe(2);
    expect(loadConfig({}).databaseReplicaUrls).toEqual([]);
    expect(loadConfig({}).replicaMaxLagS).toBe(5);
    expect(loadConfig({}).databasePooler).toBe('none');
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://r1/db' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://p/db', DATABASE_REPLICA_URLS: 'http://r1/db' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_POOLER: 'session' })).toThrow(/DATABASE_POOLER/);
    expect(loadConfig({ DATABASE_POOLER: 'transaction' }).databasePooler).toBe('transaction');
  });
});
