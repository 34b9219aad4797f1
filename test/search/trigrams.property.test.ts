/**
 * Similar issues' scores (contract 23.4) are pg_trgm's `similarity` and `word_similarity`, computed in the service:
 * the same numbers as the database's own functions, on open input (fast-check).
 */
import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { trigramSimilarity, trigrams, wordSimilarity } from '../../src/modules/search/search.rules.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

/** Texts of few letters (so that trigrams repeat and runs overlap), digits, case and separators. */
const text = fc
  .array(fc.constantFrom('a', 'b', 'c', 'ab', 'abc', 'bca', 'A', 'B', '1', '2', ' ', ' ', '-', '_', '.', 'deploy', 'deploys'), { maxLength: 14 })
  .map((parts) => parts.join(''));

describe("similar issues' trigram scores", () => {
  it('makes the trigrams pg_trgm shows', () => {
    expect(new Set(trigrams('Cat'))).toEqual(new Set(['  c', ' ca', 'cat', 'at ']));
    expect(trigrams('a')).toEqual(['  a', ' a ']);
    expect(trigrams(' -- ')).toEqual([]);
  });

  it('equal the database’s similarity and word_similarity, both ways', async () => {
    const { database } = ctx();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 20 }), async (pairs) => {
        const rows = await sql<{ similarity: number; word_ab: number; word_ba: number }>`
          SELECT similarity(a, b)::float8 AS similarity, word_similarity(a, b)::float8 AS word_ab, word_similarity(b, a)::float8 AS word_ba
          FROM unnest(${pairs.map((p) => p[0])}::text[], ${pairs.map((p) => p[1])}::text[]) WITH ORDINALITY AS t(a, b, n)
          ORDER BY n`.execute(database.db);
        pairs.forEach(([a, b], i) => {
          const row = rows.rows[i]!;
          expect([a, b, trigramSimilarity(a, b)]).toEqual([a, b, Number(row.similarity)]);
          expect([a, b, wordSimilarity(a, b)]).toEqual([a, b, Number(row.word_ab)]);
          expect([b, a, wordSimilarity(b, a)]).toEqual([b, a, Number(row.word_ba)]);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('equal them on letters of other scripts on PostgreSQL (PGlite runs in the C locale, where they separate words)', async (test) => {
    const { database } = ctx();
    if (database.kind !== 'postgres') test.skip();
    const other = fc
      .array(fc.constantFrom('д', 'о', 'м', 'Д', 'ж', '😀', 'ü', 'İ', 'ı', 'a', 'b', ' ', '-', '1'), { maxLength: 12 })
      .map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(other, other), { minLength: 1, maxLength: 20 }), async (pairs) => {
        const rows = await sql<{ similarity: number; word_ab: number }>`
          SELECT similarity(a, b)::float8 AS similarity, word_similarity(a, b)::float8 AS word_ab
          FROM unnest(${pairs.map((p) => p[0])}::text[], ${pairs.map((p) => p[1])}::text[]) WITH ORDINALITY AS t(a, b, n)
          ORDER BY n`.execute(database.db);
        pairs.forEach(([a, b], i) => {
          expect([a, b, trigramSimilarity(a, b)]).toEqual([a, b, Number(rows.rows[i]!.similarity)]);
          expect([a, b, wordSimilarity(a, b)]).toEqual([a, b, Number(rows.rows[i]!.word_ab)]);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('equal them on names as people write them', async () => {
    const { database } = ctx();
    const names = [
      ['login page fails on safari', 'Login fails on Safari after the update'],
      ['payment webhook retries', 'webhook retry storm after payment outage'],
      ['odeme sayfasi hata veriyor', 'odeme sayfasinda hata'],
      ['export csv', 'Export to CSV is slow for big projects'],
      ['x', 'y'],
    ] as const;
    for (const [a, b] of names) {
      const row = (
        await sql<{ s: number; w: number }>`SELECT similarity(${a}, ${b})::float8 AS s, word_similarity(${a}, ${b})::float8 AS w`.execute(database.db)
      ).rows[0]!;
      expect(trigramSimilarity(a, b)).toBe(Number(row.s));
      expect(wordSimilarity(a, b)).toBe(Number(row.w));
    }
  });
});
