import { sql } from 'kysely';
import type { Metrics } from '../kernel/metrics.js';
import type { Db } from './database.js';

/**
 * What autovacuum does on PostgreSQL, done by a duty on the embedded database (PGlite is one process: it has no
 * autovacuum launcher, so without this nothing is ever vacuumed or analyzed there).
 *
 * Without it, the planner kept the statistics of the table as the migrations left it: `issues` analyzed while empty
 * (1070 and 1090 end with `ANALYZE issues`, run when the build makes the empty template), so every estimate on it was
 * a guess of one row. With 1090's five indexes on `issues` those guesses tied and the wrong index won: the baseline
 * deviation's name lookup by `(workspace_id, id)` walked `issues_workspace_created_idx (workspace_id, created_at, id)`,
 * the whole workspace's entries for each of its 100 rows (14 pages a lookup instead of 3), and took 17-20 ms after the
 * mixed load's soak against 7 ms once analyzed. Dead rows piled up as well (`webhook_deliveries` two dead per live,
 * `custom_values` 37 live and 1,376 dead after a 40 s soak), and no page was ever marked all-visible, so no index-only
 * scan skipped the heap. docs/decisions/issue-filters.md, "The embedded database's mixed load", has the measurements.
 *
 * Each run decides per table of the `public` schema with autovacuum's own rules and settings (and the table's
 * `autovacuum_*` storage parameters, such as 1090's 5,000 dead rows for `issue_count_changes`):
 *   vacuum  when dead rows > vacuum_threshold + vacuum_scale_factor * rows, or rows inserted since the last vacuum >
 *           vacuum_insert_threshold + vacuum_insert_scale_factor * rows (this also empties a GIN index's pending
 *           list), or the table's oldest unfrozen transaction is older than autovacuum_freeze_max_age;
 *   analyze when rows changed since the last analyze > analyze_threshold + analyze_scale_factor * rows, or, on the
 *           first run of the process, the table has grown past its statistics (by more than 8 pages and 20 % of the
 *           pages of its last vacuum or analyze): PGlite's activity counters live in memory and start at zero with
 *           each process, so rows written by another process (the CLI's demo, an import) or before a restart are
 *           seen only by the size.
 * A run with nothing due costs one catalog query (2 ms at best on PGlite, 52 tables), so it runs every 2 s; a vacuum
 * or an analyze holds the one session while it runs (a few ms on the mixed load's tables; an analyze reads a sample
 * of at most 30,000 rows, so it stays bounded on a big table, and a big table's thresholds are large).
 *
 * Not for PostgreSQL: its autovacuum does this, in its own processes, without holding a connection of the service.
 */
export interface EmbeddedUpkeep {
  /** Vacuums and analyzes the tables that are due; answers which. */
  run(): Promise<{ vacuumed: string[]; analyzed: string[] }>;
}

/** A table grown past this many pages beyond its statistics (and 20 %) is analyzed whatever the counters say. */
const GROWN_PAGES = 8;

export function embeddedUpkeep(db: Db, metrics: Pick<Metrics, 'counter'>): EmbeddedUpkeep {
  const done = metrics.counter('db_upkeep_total', 'Tables vacuumed or analyzed by the embedded database upkeep', ['action']);
  // The tables' sizes are compared with their statistics on the first run of the process only: from then on the
  // activity counters see every write.
  let sized = true;
  return {
    async run() {
      // PGlite reports a session's table activity to the statistics only now and then (PostgreSQL's own rule is at
      // most once a second, when idle, and PGlite has no idle timer): forced here, so the counters read below are
      // current. The flush happens once this statement is done.
      await sql`SELECT pg_stat_force_next_flush()`.execute(db);
      const { rows } = await sql<{ name: string; vacuum: boolean; analyze: boolean }>`
        WITH t AS (
          SELECT c.relname, greatest(c.reltuples, 0) AS reltuples, c.relpages, age(c.relfrozenxid) AS xid_age,
            -- the size only when asked: a file-size call per table was most of an idle run's cost
            CASE WHEN ${sized}::boolean THEN pg_relation_size(c.oid) / current_setting('block_size')::int ELSE 0 END AS pages,
            pg_stat_get_dead_tuples(c.oid) AS n_dead_tup, pg_stat_get_ins_since_vacuum(c.oid) AS n_ins_since_vacuum,
            pg_stat_get_mod_since_analyze(c.oid) AS n_mod_since_analyze,
            coalesce((SELECT jsonb_object_agg(option_name, option_value) FROM pg_options_to_table(c.reloptions)), '{}') AS o
          FROM pg_class c
          JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind = 'r' AND n.nspname = 'public'
        ), s AS (
          SELECT relname, reltuples, relpages, pages, xid_age, n_dead_tup, n_ins_since_vacuum, n_mod_since_analyze,
            coalesce((o->>'autovacuum_enabled')::boolean, true) AS enabled,
            coalesce((o->>'autovacuum_vacuum_threshold')::float8, current_setting('autovacuum_vacuum_threshold')::float8)
              + coalesce((o->>'autovacuum_vacuum_scale_factor')::float8, current_setting('autovacuum_vacuum_scale_factor')::float8) * reltuples AS dead_max,
            coalesce((o->>'autovacuum_vacuum_insert_threshold')::float8, current_setting('autovacuum_vacuum_insert_threshold')::float8) AS ins_threshold,
            coalesce((o->>'autovacuum_vacuum_insert_scale_factor')::float8, current_setting('autovacuum_vacuum_insert_scale_factor')::float8) * reltuples AS ins_scaled,
            coalesce((o->>'autovacuum_analyze_threshold')::float8, current_setting('autovacuum_analyze_threshold')::float8)
              + coalesce((o->>'autovacuum_analyze_scale_factor')::float8, current_setting('autovacuum_analyze_scale_factor')::float8) * reltuples AS mod_max
          FROM t
        ), due AS (
          SELECT relname AS name,
            xid_age > current_setting('autovacuum_freeze_max_age')::int8
              OR (enabled AND (n_dead_tup > dead_max OR (ins_threshold >= 0 AND n_ins_since_vacuum > ins_threshold + ins_scaled))) AS vacuum,
            enabled AND (n_mod_since_analyze > mod_max OR pages > ${GROWN_PAGES}::int + 1.2 * greatest(relpages, 0)) AS "analyze"
          FROM s
        )
        SELECT * FROM due WHERE vacuum OR "analyze" ORDER BY 1`.execute(db);
      sized = false;
      const vacuumed: string[] = [];
      const analyzed: string[] = [];
      // One table a statement (VACUUM cannot run in a transaction), so each holds the session only for its own work.
      for (const r of rows) {
        const table = sql.table(r.name);
        if (r.vacuum) await sql`VACUUM ${r.analyze ? sql`(ANALYZE) ` : sql``}${table}`.execute(db);
        else await sql`ANALYZE ${table}`.execute(db);
        if (r.vacuum) vacuumed.push(r.name);
        if (r.analyze) analyzed.push(r.name);
      }
      if (vacuumed.length) done.inc({ action: 'vacuum' }, vacuumed.length);
      if (analyzed.length) done.inc({ action: 'analyze' }, analyzed.length);
      return { vacuumed, analyzed };
    },
  };
}
