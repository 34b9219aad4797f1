/**
 * The query parser and the snippets of search (contract 23.1) against simple models, on open input (fast-check), and
 * the Turkish and English folding written down case by case, through HTTP on any text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/kernel/errors.js';
import { sql } from 'kysely';
import {
  MAX_QUERY_WORDS,
  parseSearchQuery,
  START_MARK,
  STOP_MARK,
  snippetFromHeadline,
  tsqueryText,
  withoutRepeatedLexemes,
} from '../../src/modules/search/search.rules.js';
import { createIssue, createProject, createWorkspace } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

const WORD = /^[\p{L}\p{N}\p{M}]+$/u;
const MARKS = new RegExp(`[${START_MARK}${STOP_MARK}]`, 'g');
/** No lone surrogate: every high surrogate followed by a low one, every low one preceded by a high one. */
const wellFormed = (s: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe('the query parser', () => {
  it('answers a 400 or a query whose every term is letters, digits and marks only (nothing reaches to_tsquery unescaped)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 220 }), (q) => {
        let parsed;
        try {
          parsed = parseSearchQuery(q);
        } catch (error) {
          expect(error).toBeInstanceOf(AppError);
          expect((error as AppError).code).toBe('validation_failed');
          return;
        }
        const words = parsed.clauses.flat().flatMap((atom) => atom.words);
        expect(words.every((w) => WORD.test(w))).toBe(true);
        expect(words.length).toBeLessThanOrEqual(MAX_QUERY_WORDS);
        // Quotes only around words; operators only between them.
        const text = tsqueryText(parsed);
        expect(text.replace(/'[\p{L}\p{N}\p{M}]+'(:\*)?/gu, 'w')).toMatch(/^[w!()&|<\->\s]*$/);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads words, phrases, or, exclusions, keys and the prefix the way a person means them', () => {
    const q = parseSearchQuery('login "page broken" or crash -mobile WEB-12 #7 depl');
    expect(q.keys).toEqual([{ identifier: 'WEB', sequence: 12 }]);
    expect(q.numbers).toEqual([7]);
    expect(tsqueryText(q)).toBe("'login' & (('page' <-> 'broken') | 'crash') & !'mobile' & 'depl':*");
    expect(tsqueryText(parseSearchQuery('"unbalanced quote'))).toBe("('unbalanced' <-> 'quote')");
    expect(tsqueryText(parseSearchQuery('e-mail'))).toBe("('e' <-> 'mail')");
    // A prefix only from three letters on, and never on a phrase or an exclusion.
    expect(tsqueryText(parseSearchQuery('go'))).toBe("'go'");
    expect(tsqueryText(parseSearchQuery('a -foo'))).toBe("'a' & !'foo'");
    expect(tsqueryText(parseSearchQuery('ödeme İSTANBUL ışık'))).toBe("'ödeme' & 'İSTANBUL' & 'ışık':*");
  });
});

describe('repeated lexemes in an OR (the planner counted each copy)', () => {
  it('are left out once, and nothing else changes', () => {
    expect(withoutRepeatedLexemes("'schema' & ( 'file' | 'file' | 'file' | 'fileer' | 'file' )")).toBe("'schema' & ( 'file' | 'fileer' )");
    expect(withoutRepeatedLexemes("'file' | 'file':* | 'file'")).toBe("'file' | 'file':*");
    expect(withoutRepeatedLexemes("( 'a' | 'a' ) & !'x' & 'go' <-> 'home'")).toBe("'a' & !'x' & 'go' <-> 'home'");
    expect(withoutRepeatedLexemes("'it''s' | 'it''s'")).toBe("'it''s'");
    expect(withoutRepeatedLexemes("( 'a' & 'b' ) | ( 'a' & 'b' )")).toBe("( 'a' & 'b' ) | ( 'a' & 'b' )");
  });

  it('matches the same documents as the query with them, in the database', async () => {
    const { database } = ctx();
    const lexeme = fc.constantFrom('a', 'b', 'c', "d'e");
    const atom = fc.tuple(lexeme, fc.boolean()).map(([l, prefix]) => `'${l.replace(/'/g, "''")}'${prefix ? ':*' : ''}`);
    const group = fc.array(atom, { minLength: 1, maxLength: 4 }).map((xs) => (xs.length === 1 ? xs[0]! : `( ${xs.join(' | ')} )`));
    const query = fc.tuple(fc.array(group, { minLength: 1, maxLength: 3 }), fc.constantFrom(' & ', ' | ')).map(([gs, op]) => gs.join(op));
    const doc = fc.array(fc.constantFrom('a', 'b', 'c', "d'e", 'ab', 'cd'), { maxLength: 4 }).map((ws) => ws.join(' '));
    await fc.assert(
      fc.asyncProperty(query, fc.array(doc, { minLength: 1, maxLength: 5 }), async (q, docs) => {
        const rows = await sql<{ before: boolean; after: boolean }>`
          SELECT to_tsvector('simple', d) @@ ${q}::tsquery AS before, to_tsvector('simple', d) @@ ${withoutRepeatedLexemes(q)}::tsquery AS after
          FROM unnest(${docs}::text[]) d`.execute(database.db);
        for (const r of rows.rows) expect(r.after).toBe(r.before);
      }),
      { numRuns: 60 },
    );
  });
});

describe("a new issue's document (migration 1101 parses each text once)", () => {
  it('is the document search_issue_doc makes, in every language, for any text', async () => {
    const { database } = ctx();
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.constantFrom('İstanbul', 'ISPARTA', 'ılık', 'Ödeme', 'naïve', 'https://pay.example.com/a?b=1', 'a@b.io', 'v2.1.3', 'foo-bar_baz', "don't", ''),
    );
    const text = fc.array(piece, { maxLength: 8 }).map((xs) => xs.join(' '));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('english', 'turkish', 'simple', 'german'), text, text, async (language, name, description) => {
        // eslint-disable-next-line no-control-regex
        const clean = (t: string) => t.replace(/\u0000/g, '');
        const row = await sql<{ same: boolean; terms: string[] }>`
          SELECT search_vector_of(${language}, ${clean(name)}, to_tsvector('wis_simple', ${clean(name)}), 'A')
                   || search_vector_of(${language}, ${clean(description)}, to_tsvector('wis_simple', ${clean(description)}), 'B')
                 = search_issue_doc(${language}, ${clean(name)}, ${clean(description)}) AS same,
                 ARRAY(SELECT search_term_words(to_tsvector('wis_simple', ${clean(name)}))) AS terms`.execute(database.db);
        expect(row.rows[0]!.same).toBe(true);
        // the type-ahead's words: lexemes the document holds, letters and digits of 3 to 40 characters
        // eslint-disable-next-line no-control-regex
        for (const term of row.rows[0]!.terms) expect(term).toMatch(/^[^\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]{3,40}$/u);
      }),
      { numRuns: 150 },
    );
  });
});

describe('snippets', () => {
  /** A text cut into pieces, some marked: the model of what ts_headline answers. */
  const pieces = fc.array(fc.record({ text: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }), marked: fc.boolean() }), { maxLength: 40 });

  it('turns the marks into UTF-16 ranges of the marked words, at most 200 code units, never splitting a surrogate pair', () => {
    fc.assert(
      fc.property(pieces, (parts) => {
        const clean = parts.map((p) => ({ ...p, text: p.text.replace(MARKS, 'x').replace(/\s/g, 'x') }));
        const headline = clean.map((p) => (p.marked ? `${START_MARK}${p.text}${STOP_MARK}` : p.text)).join(' ');
        const snippet = snippetFromHeadline('description', headline);
        expect(snippet.text.length).toBeLessThanOrEqual(200);
        expect(MARKS.test(snippet.text)).toBe(false);
        MARKS.lastIndex = 0;
        // No lone surrogate at either end of the cut.
        expect(wellFormed(snippet.text)).toBe(true);
        const marked = new Set(clean.filter((p) => p.marked).map((p) => p.text));
        for (const [a, b] of snippet.highlights) {
          expect(0 <= a && a < b && b <= snippet.text.length).toBe(true);
          expect(marked.has(snippet.text.slice(a, b))).toBe(true);
        }
        if (headline.replace(MARKS, '').length <= 200) {
          expect(snippet.highlights.length).toBe(clean.filter((p) => p.marked).length);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('search on any text, through HTTP', () => {
  it('answers 200 or a 400 problem for any query, never a 500', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    await createIssue(api, ws, project.id, { name: 'Ödeme İSTANBUL IŞIK deployment', description: 'e-mail "quoted" (paren) a & b | c' });
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 210 }), async (q) => {
        const res = await api.get(`/api/workspaces/${ws.slug}/search/?q=${encodeURIComponent(q)}`, { token: ws.admin.token });
        expect([200, 400], `${JSON.stringify(q)}: ${res.text}`).toContain(res.status);
      }),
      { numRuns: 150 },
    );
  });

  it('folds Turkish and English as a person expects, each case both ways', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const cases: [string, string[]][] = [
      ['Ödeme sayfası', ['odeme', 'ÖDEME', 'ödeme', 'Odeme']],
      ['İSTANBUL ofisi', ['istanbul', 'İstanbul', 'ISTANBUL']],
      ['IŞIK arızası', ['ışık', 'isik', 'IŞIK', 'Işık', 'arizasi']],
      ['Çağrı merkezi', ['cagri', 'ÇAĞRI', 'çağrı']],
      ['Şube müdürü', ['sube', 'mudur']],
      ['Running deployments', ['run', 'running', 'deployment', 'DEPLOY']],
      ['Café résumé naïve', ['cafe', 'resume', 'naive']],
    ];
    for (const [name] of cases) await createIssue(api, ws, project.id, { name });
    for (const [name, queries] of cases) {
      for (const q of queries) {
        const res = await api.get(`/api/workspaces/${ws.slug}/search/?q=${encodeURIComponent(q)}`, { token: ws.admin.token });
        expect(res.status, res.text).toBe(200);
        expect(
          res.body.results.map((r: { issue: { name: string } }) => r.issue.name),
          `${q} finds ${name}`,
        ).toContain(name);
      }
    }
  });
});
