import { randomBytes } from 'node:crypto';
import type pg from 'pg';

/**
 * Every statement with parameters runs as a named prepared statement, parsed once per database session: PostgreSQL
 * skips parsing and analysis on each later run, and after five runs may keep a generic plan and skip planning too
 * (`plan_cache_mode` auto, PostgreSQL's own rule for choosing it). On the embedded database this is most of a
 * short statement's cost: the token lookup ran in 347 µs unnamed and 73 µs named, a read of an issue by key in 188
 * against 93 µs (issue 28; docs/decisions/pglite-session.md). node-postgres does the bookkeeping: it sends the Parse
 * once per connection and only Bind/Execute after it.
 *
 * Bounded: at most `MAX_NAMES` distinct texts get a name in the process and `MAX_PER_SESSION` per session (the texts
 * are the service's own queries, but an `IN` list or a multi-row insert has one text per length); beyond that a
 * statement runs unnamed as before. Statements without parameters (BEGIN, COMMIT, migrations, scripts of several
 * statements) always run unnamed, through the simple protocol.
 *
 * A statement whose best plan depends on its values so much that one generic plan would be ruinous (the issue list
 * filtered by a label: a common label wants the sequence index, a rare one the label index; generic, the common
 * label's first page took 1.1 s against 0.8 ms) carries `CUSTOM_PLAN` in its text and always runs unnamed, so it is
 * planned with its values each time.
 *
 * A schema change under a prepared statement that changes its result columns ("cached plan must not change result
 * type", which only a migration run by another instance can cause) fails that run once; the text is then prepared
 * anew under a new name.
 */
const MAX_NAMES = 2_000;
/** A comment that keeps a statement unnamed (planned with its values on every run). */
export const CUSTOM_PLAN = '/* custom plan */';
const MAX_PER_SESSION = 300;

type Query = (...args: unknown[]) => unknown;

export function nameStatements(pool: pg.Pool): void {
  const names = new Map<string, string>();
  let counter = 0;
  // Names of this pool only, should another pool ever share its session (one PGlite wrapped twice).
  const prefix = `k${randomBytes(4).toString('hex')}_`;
  // Per session: PGlite's node-postgres adapter hands every client of its pool the same connection object, which is
  // also where node-postgres remembers what it parsed, so the connection is the session's key.
  const parsedBy = new WeakMap<object, Set<string>>();
  const wrapped = new WeakSet<object>();

  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMES) {
      name = `${prefix}${++counter}`;
      names.set(text, name);
    }
    return name;
  };

  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
    const client = await connect();
    if (wrapped.has(client)) return client;
    wrapped.add(client);
    const session = (client as unknown as { connection: object }).connection;
    let parsed = parsedBy.get(session);
    if (!parsed) parsedBy.set(session, (parsed = new Set()));
    const query = client.query.bind(client) as Query;
    (client as unknown as { query: Query }).query = (...args: unknown[]) => {
      const [text, values] = args;
      if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0 && !text.includes(CUSTOM_PLAN)) {
        const name = nameOf(text);
        if (name !== undefined && (parsed.has(name) || parsed.size < MAX_PER_SESSION)) {
          parsed.add(name);
          return (query({ name, text, values }) as Promise<unknown>).catch((error: unknown) => {
            // A table changed under a statement this session prepared (a migration run by a newer instance while
            // this one serves): PostgreSQL refuses to run it again. The next run of the text gets a new name, and
            // so a fresh Parse; this one fails as any statement that met a concurrent schema change.
            if ((error as { code?: string }).code === '0A000' && names.get(text) === name) names.delete(text);
            throw error;
          });
        }
      }
      return query(...args);
    };
    return client;
  };
}
