import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { inject } from 'vitest';
import { createPglite, type DatabaseHandle, openPostgres, wrapPglite } from '../../src/db/database.js';
import { isPgError, PG_ERROR } from '../../src/db/pg-errors.js';

/** The database of DATABASE_URL holds nothing of the tests; they live in `<name>_tpl` and `<name>_t_<random>`. */
const dbName = (url: string): string => new URL(url).pathname.replace(/^\//, '') || 'postgres';
export const templateName = (url: string): string => `${dbName(url)}_tpl`;
export const withDb = (url: string, name: string): string => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

/**
 * Drops a test database once its connections are gone. Pool.end() can return before the server has seen every
 * disconnect, so wait for them rather than killing them (WITH FORCE) under a client that is still listening.
 */
async function dropDatabase(admin: DatabaseHandle, name: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await sql.raw(`DROP DATABASE IF EXISTS "${name}"`).execute(admin.db);
      return;
    } catch (error) {
      if (!isPgError(error, PG_ERROR.objectInUse)) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await sql.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).execute(admin.db);
}

/** A fresh, migrated database for one test file. */
export async function openTestDatabase(templates: { pgliteTemplate: string; postgresTemplate: string }): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL;
  if (url && templates.postgresTemplate) {
    const name = `${dbName(url)}_t_${randomBytes(5).toString('hex')}`;
    const admin = openPostgres(url, 1);
    for (let attempt = 0; ; attempt++) {
      try {
        await sql.raw(`CREATE DATABASE "${name}" TEMPLATE "${templates.postgresTemplate}"`).execute(admin.db);
        break;
      } catch (error) {
        // Two files copying the template at the same instant: PostgreSQL refuses one; try again.
        if (attempt >= 20) throw error;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
    // Through the suite's PgBouncer when there is one (TEST_PGBOUNCER): it keeps server connections to the database
    // after the test's pool closes, so the drop ends them (WITH FORCE) rather than waiting for them.
    const pooled = inject('pooledDatabaseUrl');
    const handle = pooled ? openPostgres(withDb(pooled, name), { poolSize: 10, pooler: 'transaction' }) : openPostgres(withDb(url, name), 10);
    return {
      ...handle,
      close: async () => {
        await handle.close();
        if (pooled) await sql.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).execute(admin.db);
        else await dropDatabase(admin, name);
        await admin.close();
      },
    };
  }
  const dump = await readFile(templates.pgliteTemplate);
  const pglite = await createPglite(undefined, { loadDataDir: new Blob([dump]) });
  return wrapPglite(pglite, () => pglite.close());
}

/** An empty, unmigrated database (a migration's test applies the ones before it, writes data, then the rest). */
export async function openEmptyDatabase(): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `${dbName(url)}_t_${randomBytes(5).toString('hex')}`;
    const admin = openPostgres(url, 1);
    await sql.raw(`CREATE DATABASE "${name}"`).execute(admin.db);
    const handle = openPostgres(withDb(url, name), 2);
    return {
      ...handle,
      close: async () => {
        await handle.close();
        await dropDatabase(admin, name);
        await admin.close();
      },
    };
  }
  const pglite = await createPglite();
  return wrapPglite(pglite, () => pglite.close());
}
