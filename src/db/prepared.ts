import {
  type CompiledQuery,
  type Compilable,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import type { Executor } from './database.js';
import type { Database } from './schema.js';

/** Builds and compiles PostgreSQL queries without a connection (for `prepared`). */
export const queryBuilder = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const sentinel = (i: number): string => `\u0000prepared-parameter-${i}\u0000`;

/**
 * A Kysely query built and compiled once, then run with new parameter values. For the queries every request runs
 * (token and membership lookups): building and compiling them each time costs more CPU than the rest of the
 * framework together (measured with `npm run bench -- --profile`). `build` is called once with placeholder values;
 * each placeholder's position in the compiled parameters is remembered and filled with the real value on each run.
 */
export function prepared<Row, Args extends unknown[]>(
  build: (...args: Args) => Compilable<Row>,
  arity: Args['length'],
): (executor: Executor, ...args: Args) => Promise<Row[]> {
  let compiled: CompiledQuery<Row> | undefined;
  let slots: number[] = [];
  return async (executor, ...args) => {
    if (!compiled) {
      const placeholders = Array.from({ length: arity }, (_, i) => sentinel(i)) as unknown as Args;
      compiled = build(...placeholders).compile();
      slots = compiled.parameters.map((p) => {
        const index = placeholders.indexOf(p as never);
        if (index < 0) throw new Error(`prepared query has a constant parameter: ${String(p)}`);
        return index;
      });
    }
    const result: QueryResult<Row> = await executor.executeQuery({ ...compiled, parameters: slots.map((i) => args[i]) });
    return result.rows;
  };
}
