import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Migration, type MigrationProvider, type MigrationResultSet, Migrator, sql } from 'kysely';
import type { Db } from './database.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** Forward-only, numbered SQL files: `NNNN_name.sql`, applied in name order, each in its own transaction. */
class SqlFileMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[a-z0-9_-]+\.sql$/.test(f)).sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      const text = await readFile(MIGRATIONS_DIR + file, 'utf8');
      migrations[file.replace(/\.sql$/, '')] = { up: async (db) => void (await sql.raw(text).execute(db)) };
    }
    return migrations;
  }
}

/**
 * True when the database has applied exactly the migrations there are files for: the common case of every start
 * but the first after an upgrade, answered with two small queries. Kysely's Migrator would first introspect every
 * table of the database and take its lock (about half a second of a PGlite start-up).
 */
async function upToDate(db: Db, names: string[]): Promise<boolean> {
  const done = new Set(await appliedMigrations(db));
  return done.size === names.length && names.every((name) => done.has(name));
}

/** The names of the migrations the database has applied, in order (none when it has never been migrated). */
export async function appliedMigrations(db: Db): Promise<string[]> {
  const table = await sql<{ oid: string | null }>`SELECT to_regclass('kysely_migration')::text AS oid`.execute(db);
  if (!table.rows[0]?.oid) return [];
  const applied = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db);
  return applied.rows.map((r) => r.name);
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  const provider = new SqlFileMigrationProvider();
  if (await upToDate(db, Object.keys(await provider.getMigrations()))) return [];
  const migrator = new Migrator({ db, provider });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(result.error)}`, {
      cause: result.error,
    });
  }
  return (result.results ?? []).map((r) => r.migrationName);
}

/** Applies the migrations up to and including `name` (tests of a migration on data written before it). */
export async function migrateTo(db: Db, name: string): Promise<void> {
  const result = await new Migrator({ db, provider: new SqlFileMigrationProvider() }).migrateTo(name);
  if (result.error) throw new Error(`Migration to ${name} failed: ${String(result.error)}`, { cause: result.error });
}
