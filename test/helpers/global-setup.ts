import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createPglite, openPostgres, wrapPglite } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { templateName, withDb } from './databases.js';
import { startPgbouncer } from './pgbouncer.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string;
    /** TEST_PGBOUNCER=transaction: a PgBouncer in transaction mode in front of DATABASE_URL's server (27.2). */
    pooledDatabaseUrl: string;
  }
}

/**
 * One migrated template per run; every test file then gets its own copy (a PGlite data-dir dump, or a PostgreSQL
 * database created from the template), so files run in parallel without sharing state.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const template = templateName(url);
    const admin = openPostgres(url, 1);
    const { sql } = await import('kysely');
    await sql.raw(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`).execute(admin.db);
    await sql.raw(`CREATE DATABASE "${template}"`).execute(admin.db);
    const tpl = openPostgres(withDb(url, template), 1);
    await migrateToLatest(tpl.db);
    await tpl.close();
    project.provide('postgresTemplate', template);
    project.provide('pgliteTemplate', '');
    // The service's tests through Debian's PgBouncer in transaction mode, each test database reached through it with
    // DATABASE_POOLER=transaction (contract 27.2); creating and dropping them stays on the direct connection.
    const bouncer =
      process.env.TEST_PGBOUNCER === 'transaction'
        ? await startPgbouncer({ host: new URL(url).hostname, port: Number(new URL(url).port || 5432), poolMode: 'transaction', poolSize: 40 })
        : undefined;
    project.provide('pooledDatabaseUrl', bouncer ? bouncer.url('postgres') : '');
    return async () => {
      await bouncer?.stop();
      await sql.raw(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`).execute(admin.db);
      await admin.close();
    };
  }
  const pglite = await createPglite();
  const handle = await wrapPglite(pglite, () => pglite.close());
  await migrateToLatest(handle.db);
  const dump = await pglite.dumpDataDir('none');
  const path = join(tmpdir(), `wis-template-${process.pid}.tar`);
  await writeFile(path, Buffer.from(await dump.arrayBuffer()));
  await handle.close();
  project.provide('pgliteTemplate', path);
  project.provide('postgresTemplate', '');
  project.provide('pooledDatabaseUrl', '');
  return async () => {
    const { rm } = await import('node:fs/promises');
    await rm(path, { force: true });
  };
}
