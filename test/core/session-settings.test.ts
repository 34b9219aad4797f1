/**
 * The session settings of the service's PostgreSQL connections (`src/db/session-settings.ts`): bitmap heap scans read
 * ahead, unless the operator chose a value of their own. PGlite has no such setting (WebAssembly reads no file ahead).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openPostgres } from '../../src/db/database.js';
import { IO_CONCURRENCY } from '../../src/db/session-settings.js';
import { openEmptyDatabase } from '../helpers/databases.js';

const show = async (handle: DatabaseHandle) =>
  (await sql<{ effective_io_concurrency: string }>`SHOW effective_io_concurrency`.execute(handle.db)).rows[0]!.effective_io_concurrency;

describe.runIf(process.env.DATABASE_URL)('session settings on PostgreSQL', () => {
  let database: DatabaseHandle;
  let url: string;
  beforeAll(async () => {
    database = await openEmptyDatabase();
    url = new URL(process.env.DATABASE_URL!).toString();
    const name = (await sql<{ name: string }>`SELECT current_database() AS name`.execute(database.db)).rows[0]!.name;
    const u = new URL(url);
    u.pathname = `/${name}`;
    url = u.toString();
  });
  afterAll(() => database.close());

  it('reads ahead on every connection of the pool', async () => {
    const handle = openPostgres(url, 3);
    try {
      // several connections at once: each has its setting before its first statement
      const values = await Promise.all([1, 2, 3].map(() => handle.db.transaction().execute(async (tx) => show({ ...handle, db: tx }))));
      expect(values).toEqual([String(IO_CONCURRENCY), String(IO_CONCURRENCY), String(IO_CONCURRENCY)]);
    } finally {
      await handle.close();
    }
  });

  it('sets nothing behind a transaction pooler, where the service holds no session state', async () => {
    const handle = openPostgres(url, { poolSize: 1, pooler: 'transaction' });
    try {
      expect(await show(handle)).toBe('1');
    } finally {
      await handle.close();
    }
  });

  it("keeps the operator's own value", async () => {
    const name = (await sql<{ name: string }>`SELECT current_database() AS name`.execute(database.db)).rows[0]!.name;
    await sql.raw(`ALTER DATABASE "${name}" SET effective_io_concurrency = 8`).execute(database.db);
    const handle = openPostgres(url, 1);
    try {
      expect(await show(handle)).toBe('8');
    } finally {
      await handle.close();
      await sql.raw(`ALTER DATABASE "${name}" RESET effective_io_concurrency`).execute(database.db);
    }
  });
});
