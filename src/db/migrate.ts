import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Db } from './database.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/**
 * Serialises migrations across instances: a transaction-scoped advisory lock, taken first in each migration's
 * transaction. Kysely's Migrator took a session-level lock (`pg_advisory_lock`, then `pg_advisory_unlock` in a later
 * statement), which a transaction pooler hands to whichever server connection it likes: three instances starting
 * at once behind PgBouncer left the lock held by a pooled connection and one died waiting (contract 27.2).
 */
const MIGRATION_LOCK = 'wis.migrations';

interface MigrationFile {
  name: string;
  text: string;
}

/** Forward-only, numbered SQL files: `NNNN_name.sql`, applied in name order, each in its own transaction. */
async function migrationFiles(): Promise<MigrationFile[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[a-z0-9_-]+\.sql$/.test(f)).sort();
  return Promise.all(files.map(async (file) => ({ name: file.replace(/\.sql$/, ''), text: await readFile(MIGRATIONS_DIR + file, 'utf8') })));
}

/** The names of the migrations the database has applied, in order (none when it has never been migrated). */
export async function appliedMigrations(db: Db): Promise<string[]> {
  const table = await sql<{ oid: string | null }>`SELECT to_regclass('kysely_migration')::text AS oid`.execute(db);
  if (!table.rows[0]?.oid) return [];
  const applied = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db);
  return applied.rows.map((r) => r.name);
}

/**
 * Applies, in name order, every migration file up to `last` (all when unset) that the database has not applied.
 * The bookkeeping table is the one Kysely's Migrator kept (`kysely_migration`: name, timestamp), so databases it
 * migrated carry on. A migration another instance applied meanwhile is seen under the lock and skipped.
 */
async function applyPending(db: Db, last?: string): Promise<string[]> {
  const files = (await migrationFiles()).filter((f) => last === undefined || f.name <= last);
  if (last !== undefined && !files.some((f) => f.name === last)) throw new Error(`No migration named ${last}`);
  const done = new Set(await appliedMigrations(db));
  // The common case of every start but the first after an upgrade: two small queries and no lock.
  if (files.every((f) => done.has(f.name))) return [];
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file.name)) continue;
    try {
      const ran = await db.transaction().execute(async (tx) => {
        await sql`SELECT pg_advisory_xact_lock(hashtext(${MIGRATION_LOCK}))`.execute(tx);
        await sql`CREATE TABLE IF NOT EXISTS kysely_migration (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL)`.execute(tx);
        const seen = await sql`SELECT 1 FROM kysely_migration WHERE name = ${file.name}`.execute(tx);
        if (seen.rows.length > 0) return false;
        await sql.raw(file.text).execute(tx);
        await sql`INSERT INTO kysely_migration (name, timestamp) VALUES (${file.name}, ${new Date().toISOString()})`.execute(tx);
        return true;
      });
      if (ran) applied.push(file.name);
    } catch (error) {
      throw new Error(`Migration ${file.name} failed: ${String(error)}`, { cause: error });
    }
  }
  return applied;
}

/** Applies every pending migration; returns the names it applied. */
export function migrateToLatest(db: Db): Promise<string[]> {
  return applyPending(db);
}

/** Applies the migrations up to and including `name` (tests of a migration on data written before it). */
export async function migrateTo(db: Db, name: string): Promise<void> {
  await applyPending(db, name);
}
