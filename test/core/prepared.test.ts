import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { prepared, queryBuilder as qb } from '../../src/db/prepared.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('prepared queries', () => {
  it('fills each parameter from its argument, whatever their order in the SQL, on every run', async () => {
    const { database } = ctx();
    // The arguments come in the opposite order of their parameters, and one is used twice.
    const query = prepared(
      (b: string, a: number) => qb.selectNoFrom([sql<number>`${a}::int`.as('a'), sql<string>`${b}::text`.as('b'), sql<number>`${a}::int + 1`.as('c')]),
      2,
    );
    expect(await query(database.db, 'x', 1)).toEqual([{ a: 1, b: 'x', c: 2 }]);
    expect(await query(database.db, 'y', 41)).toEqual([{ a: 41, b: 'y', c: 42 }]);
  });

  it('refuses a query with a constant parameter, which would be silently frozen', async () => {
    const { database } = ctx();
    const query = prepared((a: number) => qb.selectNoFrom([sql<number>`${a}::int + ${7}::int`.as('n')]), 1);
    await expect(query(database.db, 1)).rejects.toThrow(/constant parameter/);
  });
});
