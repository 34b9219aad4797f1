import { invalid } from '../../kernel/errors.js';

// The rules of search (contract 23.1) that need no database: the query's syntax, and snippets out of ts_headline.

/** At most this many words in a query: a query's cost grows with its terms, and 200 characters hold about 66. */
export const MAX_QUERY_WORDS = 24;
/** The last word matches as a prefix only from this length on: a one- or two-letter prefix names half the vocabulary. */
export const MIN_PREFIX_LENGTH = 3;
export const MAX_QUERY_LENGTH = 200;
export const SNIPPET_LENGTH = 200;

/** One term of a query: a word, or a quoted phrase (its words in order), maybe excluded (`-`). */
export interface SearchAtom {
  words: string[];
  negated: boolean;
  /** The last word also matches as a prefix (type-ahead). */
  prefix: boolean;
}

export interface SearchQuery {
  /** Clauses ANDed, each a set of atoms ORed (`a or b c`: (a | b) & c). */
  clauses: SearchAtom[][];
  /** Issue keys named in the query (`WEB-12`, any case): identifier upper-cased and sequence. */
  keys: { identifier: string; sequence: number }[];
  /** `#12`: sequence numbers, which name an issue when the search has a `project_id`. */
  numbers: number[];
}

const KEY = /^([A-Za-z][A-Za-z0-9]{0,9})-(\d{1,9})$/;
const NUMBER = /^#(\d{1,9})$/;
/** What a word is made of; anything else separates words (`e-mail` is the phrase `e mail`, as the parser reads it). */
const NOT_WORD = /[^\p{L}\p{N}\p{M}]+/u;

/** The query as typed (trimmed): 1..200 characters, no NUL; words, phrases, `or`, `-word`, keys and `#n`. */
export function parseSearchQuery(raw: string, path = '/querystring/q'): SearchQuery {
  const q = raw.trim();
  if (q.length === 0) throw invalid(path, 'must not be empty');
  if ([...q].length > MAX_QUERY_LENGTH) throw invalid(path, `must be at most ${MAX_QUERY_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(q)) throw invalid(path, 'must not contain control characters');

  const clauses: SearchAtom[][] = [];
  const keys: SearchQuery['keys'] = [];
  const numbers: number[] = [];
  let orNext = false;
  let last: { atom: SearchAtom; quoted: boolean } | null = null;
  let i = 0;
  while (i < q.length) {
    if (/\s/.test(q[i]!)) {
      i++;
      continue;
    }
    let negated = false;
    if (q[i] === '-' && i + 1 < q.length && !/\s/.test(q[i + 1]!)) {
      negated = true;
      i++;
    }
    let text: string;
    let quoted = false;
    if (q[i] === '"') {
      const end = q.indexOf('"', i + 1);
      // An unbalanced quote quotes the rest of the query.
      text = q.slice(i + 1, end < 0 ? q.length : end);
      i = end < 0 ? q.length : end + 1;
      quoted = true;
    } else {
      let end = i;
      while (end < q.length && !/\s/.test(q[end]!) && q[end] !== '"') end++;
      text = q.slice(i, end);
      i = end;
    }
    if (!quoted && !negated && text.toLowerCase() === 'or') {
      orNext = clauses.length > 0;
      continue;
    }
    const key = !quoted && !negated ? KEY.exec(text) : null;
    if (key) {
      keys.push({ identifier: key[1]!.toUpperCase(), sequence: Number(key[2]) });
      orNext = false;
      continue;
    }
    const number = !quoted && !negated ? NUMBER.exec(text) : null;
    if (number) {
      numbers.push(Number(number[1]));
      orNext = false;
      continue;
    }
    const words = text.split(NOT_WORD).filter((w) => w !== '');
    if (words.length === 0) {
      orNext = false;
      continue;
    }
    const atom: SearchAtom = { words, negated, prefix: false };
    if (orNext) clauses[clauses.length - 1]!.push(atom);
    else clauses.push([atom]);
    orNext = false;
    last = { atom, quoted };
  }
  // Type-ahead: the last word typed, as long as it is a plain word still being typed.
  if (last && !last.quoted && !last.atom.negated && last.atom.words.length === 1 && last.atom.words[0]!.length >= MIN_PREFIX_LENGTH) {
    last.atom.prefix = true;
  }
  const wordCount = clauses.flat().reduce((n, atom) => n + atom.words.length, 0);
  if (wordCount > MAX_QUERY_WORDS) throw invalid(path, `must have at most ${MAX_QUERY_WORDS} words`);
  // A clause of exclusions only would match nearly every issue: some word must be looked for.
  const positive = clauses.filter((clause) => clause.some((atom) => !atom.negated));
  if (positive.length === 0 && keys.length === 0 && numbers.length === 0) {
    throw invalid(path, 'must hold a word to look for (a query of operators or exclusions alone finds nothing)');
  }
  return { clauses: positive.length > 0 ? clauses : [], keys, numbers };
}

/** Words carry only letters, digits and marks: quoted for to_tsquery, they need no escaping. */
const lexeme = (word: string, prefix: boolean) => `'${word}'${prefix ? ':*' : ''}`;

/** The word the type-ahead completes (the query's last plain word, 3 letters or more), if any. */
export function prefixWord(query: SearchQuery): string | null {
  return query.clauses.flat().find((atom) => atom.prefix)?.words[0] ?? null;
}

function atomText(atom: SearchAtom, completions: string[] | undefined): string {
  const words = atom.words.map((w, i) => {
    if (!atom.prefix || i !== atom.words.length - 1) return lexeme(w, false);
    if (!completions) return lexeme(w, true);
    // The word as typed, and the workspace's words that begin with it (`completions`, letters and digits only).
    const choices = [...new Set([w, ...completions.filter((c) => !NOT_WORD.test(c))])].map((c) => lexeme(c, false));
    return choices.length === 1 ? choices[0]! : `(${choices.join(' | ')})`;
  });
  const text = words.length === 1 ? words[0]! : `(${words.join(' <-> ')})`;
  return atom.negated ? `!${text}` : text;
}

/**
 * The query in to_tsquery's syntax; empty when only keys were named. With `completions`, the type-ahead's word is
 * that word or one of them (the search); without, a prefix (`'depl':*`, what the snippets highlight).
 */
export function tsqueryText(query: SearchQuery, completions?: string[]): string {
  const text = (atom: SearchAtom) => atomText(atom, completions);
  return query.clauses.map((clause) => (clause.length === 1 ? text(clause[0]!) : `(${clause.map(text).join(' | ')})`)).join(' & ');
}

const LEXEME = String.raw`'(?:[^']|'')*'(?::[*A-D]+)?`;
const OR_GROUP = new RegExp(String.raw`\(\s*(${LEXEME}(?:\s*\|\s*${LEXEME})+)\s*\)`, 'g');
const OR_ALONE = new RegExp(String.raw`^\s*${LEXEME}(?:\s*\|\s*${LEXEME})+\s*$`);
const lexemesOf = (text: string) => [...new Set(text.match(new RegExp(LEXEME, 'g')) ?? [])];

/**
 * A tsquery's text (as PostgreSQL prints it) without repeated lexemes in an OR of lexemes: `'file' | 'file' | 'fileer'`
 * is `'file' | 'fileer'`. The type-ahead's completions ("file", "files", "filed") stem to one lexeme, and the planner
 * adds up each copy's frequency: a query looked several times as common as it is, and was answered by walking the
 * newest documents instead of through the index (100 ms against 15 for "schema fil" with a million issues). The
 * matches are the same.
 */
export function withoutRepeatedLexemes(query: string): string {
  const unique = (group: string) => lexemesOf(group).join(' | ');
  if (OR_ALONE.test(query)) return unique(query);
  return query.replace(OR_GROUP, (_, group: string) => {
    const lexemes = lexemesOf(group);
    return lexemes.length === 1 ? lexemes[0]! : `( ${lexemes.join(' | ')} )`;
  });
}

/** Any of the query's wanted words, for telling where they were found and what to highlight. */
export function anyWordText(query: SearchQuery): string {
  const atoms = query.clauses.flat().filter((atom) => !atom.negated);
  return atoms.flatMap((atom) => atom.words.map((w, i) => lexeme(w, atom.prefix && i === atom.words.length - 1))).join(' | ');
}

/** The plain words of the query (the fuzzy fallback compares them with names). */
export function plainWords(query: SearchQuery): string[] {
  return query.clauses
    .flat()
    .filter((atom) => !atom.negated)
    .flatMap((atom) => atom.words);
}

export type SnippetField = 'key' | 'name' | 'description' | 'comment' | 'custom_value';

export interface Snippet {
  field: SnippetField;
  text: string;
  highlights: [number, number][];
}

/** The marks ts_headline is asked to put around a match (characters no stored text holds: the API refuses them). */
export const START_MARK = '\u0001';
export const STOP_MARK = '\u0002';

/**
 * A snippet out of ts_headline's output: the text without the marks, the marked ranges as UTF-16 offsets, cut to at most
 * 200 code units around the first match (never inside a surrogate pair), with an ellipsis where it was cut.
 */
export function snippetFromHeadline(field: SnippetField, headline: string, maxLength = SNIPPET_LENGTH): Snippet {
  let text = '';
  const highlights: [number, number][] = [];
  let start = -1;
  for (const ch of headline) {
    if (ch === START_MARK) start = text.length;
    else if (ch === STOP_MARK) {
      if (start >= 0 && text.length > start) highlights.push([start, text.length]);
      start = -1;
    } else text += ch;
  }
  return cut(field, text.replace(/\s+/g, ' '), normalizeOffsets(text, highlights), maxLength);
}

/** Offsets after the whitespace runs of `text` became single spaces. */
function normalizeOffsets(text: string, highlights: [number, number][]): [number, number][] {
  const map: number[] = [];
  let out = 0;
  for (let i = 0; i < text.length; i++) {
    map.push(out);
    if (!(/\s/.test(text[i]!) && i > 0 && /\s/.test(text[i - 1]!))) out++;
  }
  map.push(out);
  return highlights.map(([a, b]) => [map[a]!, map[b]!]);
}

function cut(field: SnippetField, text: string, highlights: [number, number][], maxLength: number): Snippet {
  if (text.length <= maxLength) return { field, text, highlights };
  const first = highlights[0]?.[0] ?? 0;
  // Some context before the first match, the rest after it.
  let from = Math.max(0, Math.min(first - 40, text.length - (maxLength - 1)));
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from++;
  const lead = from > 0 ? '…' : '';
  let to = from + maxLength - lead.length;
  const tail = to < text.length ? '…' : '';
  to -= tail.length;
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to--;
  const body = text.slice(from, to);
  const shift = lead.length - from;
  const kept = highlights.filter(([a, b]) => a >= from && b <= to).map(([a, b]) => [a + shift, b + shift] as [number, number]);
  return { field, text: lead + body + tail, highlights: kept };
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * The fuzzy fallback's query: each typed word that has words like it (among the words of issue names) becomes the
 * choice of them (`('deployment' | 'deploy')`), ANDed; a typed word with none is left out. `anyText`: any of them, to
 * highlight. Not restricted to names by weight: a weighted match needs every candidate's document read again, and
 * the ranking puts name matches first anyway.
 */
export function fuzzyText(typed: string[], alternatives: { typed: string; word: string }[]): { text: string; anyText: string } {
  const clauses: string[] = [];
  const any: string[] = [];
  for (const word of new Set(typed)) {
    const like = [...new Set(alternatives.filter((a) => a.typed === word).map((a) => a.word))].filter((w) => !NOT_WORD.test(w));
    if (like.length === 0) continue;
    clauses.push(`(${like.map((w) => `'${w}'`).join(' | ')})`);
    any.push(...like.map((w) => `'${w}'`));
  }
  return { text: clauses.join(' & '), anyText: any.join(' | ') };
}

/** Similar issues' candidates: issues holding two of these words (any two), or the one word when there is one. */
export function pairsText(words: string[]): string {
  const quoted = [...new Set(words)].map((w) => `'${w}'`);
  if (quoted.length <= 1) return quoted.join('');
  const pairs: string[] = [];
  for (let i = 0; i < quoted.length; i++) for (let j = i + 1; j < quoted.length; j++) pairs.push(`(${quoted[i]} & ${quoted[j]})`);
  return pairs.join(' | ');
}

// ---- trigram similarity (similar issues, 23.4) -------------------------------------------------------------------------
// pg_trgm's `similarity` and `word_similarity`, computed here on the candidates' names rather than by the database:
// the same numbers (checked against pg_trgm's in test/search/trigrams.property.test.ts), at a fraction of the cost.

/** pg_trgm's words: runs of letters and digits (PostgreSQL reads other scripts' letters as letters in a UTF-8 locale). */
const TRIGRAM_WORD = /[\p{L}\p{N}]+/gu;
const SPACE = 0x20;
const CODE = 0x20000;

/** A trigram: its three code points packed in one number (each below 2^17, as nearly all are), or else as a string. */
type Trigram = number | string;

const trigramOf = (a: number, b: number, c: number): Trigram => ((a | b | c) < CODE ? (a * CODE + b) * CODE + c : String.fromCodePoint(a, b, c));

/** A text's trigrams in order, as pg_trgm makes them: each word in lower case, padded with two spaces before, one after. */
function trigramList(text: string): Trigram[] {
  const out: Trigram[] = [];
  for (const [word] of text.matchAll(TRIGRAM_WORD)) {
    let a = SPACE;
    let b = SPACE;
    // `İ` lowers to `i` in PostgreSQL (one letter); JavaScript's own rule adds a combining dot after it.
    for (const ch of (word.includes('İ') ? word.replaceAll('İ', 'i') : word).toLowerCase()) {
      const c = ch.codePointAt(0)!;
      out.push(trigramOf(a, b, c));
      a = b;
      b = c;
    }
    out.push(trigramOf(a, b, SPACE));
  }
  return out;
}

/** A text's trigrams as strings (what pg_trgm's `show_trgm` shows for them, in the text's order). */
export function trigrams(text: string): string[] {
  return trigramList(text).map((t) => (typeof t === 'string' ? t : String.fromCodePoint(Math.floor(t / CODE / CODE), Math.floor(t / CODE) % CODE, t % CODE)));
}

/** A text made ready to compare with many others: its trigrams in order, and each distinct one's number (0, 1, ...). */
export interface TrigramText {
  list: Trigram[];
  distinct: Map<Trigram, number>;
}

export function trigramText(text: string): TrigramText {
  const list = trigramList(text);
  const distinct = new Map<Trigram, number>();
  for (const t of list) if (!distinct.has(t)) distinct.set(t, distinct.size);
  return { list, distinct };
}

const ready = (text: string | TrigramText) => (typeof text === 'string' ? trigramText(text) : text);

/** pg_trgm's CALCSML in its single precision: shared trigrams over all distinct trigrams of both. */
const shareOf = (count: number, length1: number, length2: number) => Math.fround(count / (length1 + length2 - count));

/** pg_trgm's `similarity(a, b)`: the share of the two texts' distinct trigrams that both have (0..1). */
export function trigramSimilarity(a: string | TrigramText, b: string | TrigramText): number {
  const x = ready(a).distinct;
  const y = ready(b).distinct;
  if (x.size === 0 || y.size === 0) return 0;
  let common = 0;
  for (const t of x.keys()) if (y.has(t)) common++;
  return shareOf(common, x.size, y.size);
}

/**
 * pg_trgm's `word_similarity(query, text)`: the greatest similarity between the query's trigrams and those of a run of
 * the text's (its `iterate_word_similarity`, without the strict and check-only variants), 0..1.
 */
export function wordSimilarity(query: string | TrigramText, text: string | TrigramText): number {
  const q = ready(query).distinct;
  const queryLength = q.size;
  // Each trigram of the text by number: the query's own numbers (`found`: below queryLength), the others after them.
  const others = new Map<Trigram, number>();
  const index = ready(text).list.map((t) => {
    let id = q.get(t) ?? others.get(t);
    if (id === undefined) others.set(t, (id = queryLength + others.size));
    return id;
  });
  const lastPos = new Int32Array(queryLength + others.size).fill(-1);
  let lower = -1;
  let count = 0;
  let textLength = 0;
  let best = 0;
  for (let i = 0; i < index.length; i++) {
    const id = index[i]!;
    const found = id < queryLength;
    if (lower >= 0 || found) {
      if (lastPos[id]! < 0) {
        textLength++;
        if (found) count++;
      }
      lastPos[id] = i;
    }
    if (!found) continue;
    if (lower === -1) {
      lower = i;
      textLength = 1;
    }
    let current = shareOf(count, queryLength, textLength);
    // Try each later start of the run for a greater similarity.
    let tryCount = count;
    let tryLength = textLength;
    const previousLower = lower;
    for (let start = lower; start <= i; start++) {
      const share = shareOf(tryCount, queryLength, tryLength);
      if (share > current) {
        current = share;
        textLength = tryLength;
        lower = start;
        count = tryCount;
      }
      const startId = index[start]!;
      if (lastPos[startId] === start) {
        tryLength--;
        if (startId < queryLength) tryCount--;
      }
    }
    best = Math.max(best, current);
    for (let start = previousLower; start < lower; start++) {
      const startId = index[start]!;
      if (lastPos[startId] === start) lastPos[startId] = -1;
    }
  }
  return best;
}

/** Similar issues score at most this many candidates (the newest that share words with the new issue). */
export const SIMILAR_CANDIDATES = 200;
/** Only issues this similar are shown (contract 23.4). */
export const SIMILAR_MIN = 0.3;

/** An issue that may be like a new one: its folded name, its folded description's beginning (when asked), its update. */
export interface SimilarCandidate {
  id: string;
  name: string;
  description: string | null;
  updatedMs: number;
}

/**
 * The issues most like a new one (its name and description folded as the candidates' are), best first: the greatest of
 * the names' similarity, the new name's word similarity in a candidate's name (× 0.9) and the descriptions' similarity
 * (× 0.8, when a description is typed); at least `SIMILAR_MIN`; ties by the latest update, then by id (descending).
 */
export function rankSimilar(typed: { name: string; description: string }, candidates: readonly SimilarCandidate[], limit = 5) {
  const name = trigramText(typed.name);
  const description = typed.description === '' ? null : trigramText(typed.description);
  return candidates
    .map((c) => {
      const own = trigramText(c.name);
      const described = description && c.description !== null ? trigramSimilarity(trigramText(c.description), description) * 0.8 : 0;
      return { c, similarity: Math.max(trigramSimilarity(own, name), wordSimilarity(name, own) * 0.9, described) };
    })
    .filter((s) => s.similarity >= SIMILAR_MIN)
    .sort((a, b) => b.similarity - a.similarity || b.c.updatedMs - a.c.updatedMs || (a.c.id < b.c.id ? 1 : a.c.id > b.c.id ? -1 : 0))
    .slice(0, limit)
    .map((s) => ({ id: s.c.id, similarity: s.similarity }));
}
