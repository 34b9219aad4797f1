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

/** The database's own scores of each pair, in order: similarity(a, b), word_similarity(a, b) and word_similarity(b, a). */
async function databaseScores(pairs: readonly (readonly [string, string])[]) {
  const rows = await sql<{ similarity: number; word_ab: number; word_ba: number }>`
    SELECT similarity(a, b)::float8 AS similarity, word_similarity(a, b)::float8 AS word_ab, word_similarity(b, a)::float8 AS word_ba
    FROM unnest(${pairs.map((p) => p[0])}::text[], ${pairs.map((p) => p[1])}::text[]) WITH ORDINALITY AS t(a, b, n)
    ORDER BY n`.execute(ctx().database.db);
  return rows.rows.map((r) => ({ similarity: Number(r.similarity), wordAB: Number(r.word_ab), wordBA: Number(r.word_ba) }));
}

describe("similar issues' trigram scores", () => {
  it('makes the trigrams pg_trgm shows', () => {
    expect(new Set(trigrams('Cat'))).toEqual(new Set(['  c', ' ca', 'cat', 'at ']));
    expect(trigrams('a')).toEqual(['  a', ' a ']);
    expect(trigrams(' -- ')).toEqual([]);
  });

  it('equal the database’s similarity and word_similarity, both ways', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 20 }), async (pairs) => {
        const scores = await databaseScores(pairs);
        pairs.forEach(([a, b], i) => {
          const row = scores[i]!;
          expect([a, b, trigramSimilarity(a, b)]).toEqual([a, b, row.similarity]);
          expect([a, b, wordSimilarity(a, b)]).toEqual([a, b, row.wordAB]);
          expect([b, a, wordSimilarity(b, a)]).toEqual([b, a, row.wordBA]);
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
        const scores = await databaseScores(pairs);
        pairs.forEach(([a, b], i) => {
          expect([a, b, trigramSimilarity(a, b)]).toEqual([a, b, scores[i]!.similarity]);
          expect([a, b, wordSimilarity(a, b)]).toEqual([a, b, scores[i]!.wordAB]);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('equal them on names as people write them', async () => {
    const names = [
      ['login page fails on safari', 'Login fails on Safari after the update'],
      ['payment webhook retries', 'webhook retry storm after payment outage'],
      ['odeme sayfasi hata veriyor', 'odeme sayfasinda hata'],
      ['export csv', 'Export to CSV is slow for big projects'],
      ['x', 'y'],
    ] as const;
    const scores = await databaseScores(names);
    names.forEach(([a, b], i) => {
      expect(trigramSimilarity(a, b)).toBe(scores[i]!.similarity);
      expect(wordSimilarity(a, b)).toBe(scores[i]!.wordAB);
    });
  });
});
