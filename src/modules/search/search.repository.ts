import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { CUSTOM_PLAN } from '../../db/named-statements.js';
import { SIMILAR_CANDIDATES, type SimilarCandidate, withoutRepeatedLexemes } from './search.rules.js';

// The SQL of search (contract 23.1) and similar issues (23.4), on the documents of migrations 1092 and 1100 (by month).

export type SearchRepository = ReturnType<typeof searchRepository>;

/** At most this many matches are ranked and counted; beyond it the total reads 1000 with `total_capped`. */
export const RANKED = 1000;

/** The filters a search takes (contract 23.1), already checked. */
export interface SearchFilter {
  projectId?: string;
  stateGroups?: string[];
  priorities?: string[];
  assignees?: { ids: string[]; none: boolean };
  labelIds?: string[];
}

export interface RankedIssue {
  id: string;
  /** The issue's creation time: the month of its document (the snippets read only those months). */
  created_at: Date;
  by_key: boolean;
  score: number;
}

/**
 * The score of each field (contract 23.1's ranking: the name over the description over comments and custom values):
 * an issue scores by the best field that holds the whole query, and issues of one score are ordered by `updated_at`.
 */
export const SCORES = { name: 1, description: 0.4, part: 0.2 } as const;

/**
 * Any reading of the words, stemmed or as written (migration 1092's documents hold both): what the snippets highlight
 * and similar issues compare.
 */
const tsquery = (language: string, text: string) =>
  language === 'simple'
    ? sql`to_tsquery('wis_simple'::regconfig, ${text})`
    : sql`(to_tsquery(${`wis_${language}`}::regconfig, ${text}) || to_tsquery('wis_simple'::regconfig, ${text}))`;

/**
 * The query in a workspace's language (contract 23.1), as a tsquery. Every document holds the stemmed lexemes of its
 * words and the words as written (migration 1092), and a word as written is found wherever its stem is: the stemmed
 * query alone finds every match, with a third of the index entries to intersect. The words as written are searched
 * instead when stemming leaves nothing (stop words alone: "the who"), and beside the stemmed ones while the
 * workspace's documents are rebuilt in a new language (a document not yet rebuilt holds its old stems).
 */
const matchQuery = (workspaceId: string, text: string) => sql`(
  SELECT CASE WHEN w.search_language = 'simple' THEN s
              WHEN w.search_language <> w.search_language_built THEN e || s
              WHEN numnode(e) > 0 THEN e ELSE s END
  FROM workspaces w
  CROSS JOIN LATERAL to_tsquery(('wis_' || w.search_language)::regconfig, ${text}) e
  CROSS JOIN to_tsquery('wis_simple'::regconfig, ${text}) s
  WHERE w.id = ${workspaceId}::uuid)`;

/** The query restricted to names (weight A): each lexeme of the tsquery's text marked `:A`. */
export function nameQueryText(query: string): string {
  return query.replace(/'((?:[^']|'')*)'(?::([*A-D]+))?/g, (_, lexeme: string, flags = '') => `'${lexeme}':${flags.replace(/[A-D]/g, '')}A`);
}

/** The query resolved for a workspace: the tsquery searched, and the same restricted to names (the name's score). */
export interface ResolvedQuery {
  query: string;
  nameQuery: string;
}

function conditions(filter: SearchFilter): RawBuilder<unknown>[] {
  const where: RawBuilder<unknown>[] = [];
  if (filter.projectId) where.push(sql`i.project_id = ${filter.projectId}::uuid`);
  if (filter.stateGroups?.length) where.push(sql`i.state_group = ANY(${filter.stateGroups}::text[])`);
  if (filter.priorities?.length) where.push(sql`i.priority = ANY(${filter.priorities}::text[])`);
  if (filter.assignees) {
    const { ids, none } = filter.assignees;
    const either = [...(ids.length ? [sql`i.assignee_ids && ${ids}::uuid[]`] : []), ...(none ? [sql`i.assignee_ids = '{}'`] : [])];
    where.push(sql`(${sql.join(either, sql` OR `)})`);
  }
  if (filter.labelIds?.length) where.push(sql`i.label_ids && ${filter.labelIds}::uuid[]`);
  return where;
}

/**
 * A timestamp as epoch milliseconds (a float8, microseconds as its fraction): a search reads up to 1,001 times of
 * creation and of update only to order them, and a number is read without the Date parsing (and its garbage) that
 * cost about 1.3 ms of JavaScript per search at a million issues (a CPU profile of the service).
 */
const EPOCH_MS = (column: RawBuilder<unknown>) => sql<number>`(extract(epoch FROM ${column}) * 1000)::float8`;

const and = (parts: RawBuilder<unknown>[]) => (parts.length ? sql` AND ${sql.join(parts, sql` AND `)}` : sql``);

/**
 * The windows of creation time similar issues' candidates are looked for in, newest first (days before now, then the
 * rest): the documents are partitioned by month (migration 1100), and a window's statement reads only its months.
 */
const WINDOW_DAYS = [45, 135, 375];
const DAY_MS = 86_400_000;

/** The windows of creation time (conditions on `d.created_at`), newest first. */
function windowRanges(now: Date): RawBuilder<unknown>[] {
  const ranges: RawBuilder<unknown>[] = [];
  let upper: Date | null = null;
  for (const lower of [...WINDOW_DAYS.map((days) => new Date(now.getTime() - days * DAY_MS)), null]) {
    ranges.push(rangeOf(lower, upper));
    upper = lower;
  }
  return ranges;
}

/** `lower <= d.created_at < upper`, either bound left out when null. */
function rangeOf(lower: Date | null, upper: Date | null): RawBuilder<unknown> {
  const from = lower ? sql`AND d.created_at >= ${lower}` : sql``;
  const to = upper ? sql`AND d.created_at < ${upper}` : sql``;
  return sql`${from} ${to}`;
}

/**
 * The issues' own matches are asked window by window of creation time, newest first, each window a statement planned
 * with its values over its own months (migration 1100): the first window is the last `FIRST_WINDOW_DAYS`, and each
 * next one is sized by the density of matches found so far, to hold the matches still missing with room to spare
 * (`WINDOW_ROOM`). A common word is found in the first window's months alone (the other months are neither planned
 * nor read); a rarer one reads about the months its 1,001 newest matches are in, where fixed windows read each window
 * whole, up to eight months more than needed. After `WINDOW_STATEMENTS - 1` windows, or when the windows so far found
 * nothing, the last one is every older month.
 */
const FIRST_WINDOW_DAYS = 45;
const WINDOW_ROOM = 1.5;
const WINDOW_STATEMENTS = 4;

/** The lower bound of the window after one ending at `upper` (ms), or null for every older month. */
export function nextWindowStart(input: { now: number; upper: number; found: number; missing: number; statements: number }): number | null {
  if (input.found === 0 || input.statements >= WINDOW_STATEMENTS - 1) return null;
  const searched = input.now - input.upper;
  const lower = input.upper - Math.ceil((searched * input.missing * WINDOW_ROOM) / input.found);
  // Before 1970 (a span PostgreSQL's timestamps may not even hold): every older month.
  return lower > 0 ? lower : null;
}

interface OwnMatch {
  issue_id: string;
  created_ms: number;
  in_name: boolean;
  updated_ms: number | null;
}

/**
 * The newest `limit` matches of a query among a table's documents (`issue_search`, or `issue_search_parts`: several
 * rows per issue), newest first. Planned with its values (the tsquery is a constant the planner sees, with the
 * lexemes' statistics): a common word walks the newest documents through (workspace_id, created_at) and stops after
 * `limit` matches, a rare one is found through the GIN index. The issues' documents are asked window by window (see
 * `FIRST_WINDOW_DAYS`); each window is planned on its own months' statistics, so a word common over the years but rare
 * this month is looked up in this month's index instead of walking.
 */
async function newestMatches(
  tx: Executor,
  table: 'issue_search' | 'issue_search_parts',
  input: { workspaceId: string; query: string; nameQuery: string; filters: RawBuilder<unknown>[]; limit: number; now: Date },
): Promise<OwnMatch[]> {
  const ws = input.workspaceId;
  const filterOn = input.filters.length
    ? sql`AND EXISTS (SELECT 1 FROM issues i WHERE i.workspace_id = ${ws}::uuid AND i.id = d.issue_id ${and(input.filters)})`
    : sql``;
  const matches = async (range: RawBuilder<unknown>, limit: number) =>
    (
      await sql<OwnMatch>`
        SELECT d.issue_id, ${EPOCH_MS(sql`d.created_at`)} AS created_ms,
               ${table === 'issue_search' ? sql`d.document @@ ${input.nameQuery}::tsquery` : sql`false`} AS in_name,
               ${table === 'issue_search' ? EPOCH_MS(sql`d.updated_at`) : sql`NULL::float8`} AS updated_ms
        FROM ${sql.table(table)} d
        WHERE d.workspace_id = ${ws}::uuid AND d.document @@ ${input.query}::tsquery ${range} ${filterOn}
        ORDER BY d.created_at DESC LIMIT ${limit} ${sql.raw(CUSTOM_PLAN)}`.execute(tx)
    ).rows;
  if (table === 'issue_search_parts') return matches(sql``, input.limit);

  const now = input.now.getTime();
  const rows: OwnMatch[] = [];
  let upper: number | null = null;
  let lower: number | null = now - FIRST_WINDOW_DAYS * DAY_MS;
  for (let statements = 1; ; statements++) {
    rows.push(...(await matches(rangeOf(lower === null ? null : new Date(lower), upper === null ? null : new Date(upper)), input.limit - rows.length)));
    if (rows.length >= input.limit || lower === null) return rows;
    upper = lower;
    lower = nextWindowStart({ now, upper, found: rows.length, missing: input.limit - rows.length, statements });
  }
}

interface Candidate {
  created: number;
  score: number;
  /** `updated_at` (epoch ms) when the match's row holds it (the issue's own document, migration 1102); null for a part. */
  updated: number | null;
}

/**
 * The ranked matches (see `search`):
 * 1. the newest 1,001 issues whose own document matches (`newestMatches`), each with its score (the name holds the
 *    query, or the description does) and its `updated_at`, both from the document's row;
 * 2. when (1) found fewer, the issues with a matching comment or value, newest first, scored as comments (when (1)
 *    found 1,001, the total is capped and issues matched by a comment alone could only rank after its 1,001);
 * 3. the newest 1,001 of both are the matches: the total; the page is cut out of them by score, then `updated_at`
 *    (read from the issues only for the matches of (2) that the page reaches). The issues named by key come first when
 *    they pass the filters.
 */
async function rankedMatches(
  tx: Executor,
  input: { workspaceId: string; resolved: ResolvedQuery | null; keyIds: string[]; filter: SearchFilter; offset: number; limit: number; now: Date },
) {
  const ws = input.workspaceId;
  const filters = conditions(input.filter);
  const candidates = new Map<string, Candidate>();
  if (input.resolved) {
    const { query, nameQuery } = input.resolved;
    const own = await newestMatches(tx, 'issue_search', { workspaceId: ws, query, nameQuery, filters, limit: RANKED + 1, now: input.now });
    for (const row of own)
      candidates.set(row.issue_id, { created: row.created_ms, score: row.in_name ? SCORES.name : SCORES.description, updated: row.updated_ms });
    // When 1,001 issues match by their own words, the total is capped, and the page holds none that only a comment or
    // value matches (those score lowest): the comments are not looked at. Otherwise all of them count.
    if (own.length <= RANKED) {
      // Parts are rows, several per issue: more rows are read until enough issues are found or none is left.
      for (let limit = 2 * (RANKED + 1); ; limit *= 4) {
        const parts = await newestMatches(tx, 'issue_search_parts', { workspaceId: ws, query, nameQuery, filters, limit, now: input.now });
        const issues = new Set([...candidates.keys(), ...parts.map((p) => p.issue_id)]);
        if (parts.length === limit && issues.size <= RANKED) continue;
        for (const row of parts)
          if (!candidates.has(row.issue_id)) candidates.set(row.issue_id, { created: row.created_ms, score: SCORES.part, updated: null });
        break;
      }
    }
  }
  for (const id of input.keyIds) candidates.delete(id);
  const matched = [...candidates].sort((a, b) => b[1].created - a[1].created || (a[0] < b[0] ? 1 : -1)).slice(0, RANKED + 1);
  if (matched.length === 0 && input.keyIds.length === 0) return { rows: [] as RankedIssue[], found: 0 };

  // Only the scores the page reaches are ordered: the best score's issues, then the next, until the page is full. The
  // issues' own matches came with their `updated_at`; it is read from the issues only for the matches by a comment or
  // a value the page reaches, and for the issues named by key (which must also pass the filters).
  const byScore = [SCORES.name, SCORES.description, SCORES.part].map((score) => matched.filter(([, c]) => c.score === score));
  const reached: [string, Candidate][] = [];
  for (const group of byScore) {
    if (reached.length >= input.offset + input.limit) break;
    reached.push(...group);
  }
  const unknown = reached.filter(([, c]) => c.updated === null).map(([id]) => id);
  const read =
    unknown.length > 0 || input.keyIds.length > 0
      ? (
          await sql<{ id: string; created_ms: number; updated_ms: number; by_key: boolean }>`
            SELECT i.id, ${EPOCH_MS(sql`i.created_at`)} AS created_ms, ${EPOCH_MS(sql`i.updated_at`)} AS updated_ms, i.id = ANY(${input.keyIds}::uuid[]) AS by_key
            FROM issues i
            WHERE i.workspace_id = ${ws}::uuid
              AND (i.id = ANY(${unknown}::uuid[]) OR (i.id = ANY(${input.keyIds}::uuid[]) ${and(filters)}))`.execute(tx)
        ).rows
      : [];
  const readById = new Map(read.map((r) => [r.id, r]));
  const ranked = [
    ...read.filter((r) => r.by_key).map((r) => ({ id: r.id, created_ms: r.created_ms, by_key: true, score: 0, updated: r.updated_ms })),
    ...reached.flatMap(([id, c]) => {
      const updated = c.updated ?? readById.get(id)?.updated_ms;
      // A match by a part whose issue is gone since (deleted in between): left out, as the issues' read did before.
      return updated === undefined ? [] : [{ id, created_ms: c.created, by_key: false, score: c.score, updated }];
    }),
  ].sort((a, b) => Number(b.by_key) - Number(a.by_key) || b.score - a.score || b.updated - a.updated || (a.id < b.id ? 1 : -1));
  const keyed = ranked.filter((r) => r.by_key).length;
  return {
    rows: ranked
      .slice(input.offset, input.offset + input.limit)
      .map(({ id, created_ms, by_key, score }) => ({ id, created_at: new Date(created_ms), by_key, score })),
    found: matched.length + keyed,
  };
}

export function searchRepository() {
  return {
    async workspaceLanguage(tx: Executor, workspaceId: string) {
      const row = await tx.selectFrom('workspaces').select('search_language').where('id', '=', workspaceId).executeTakeFirst();
      return row?.search_language ?? 'english';
    },

    /** Issues named by key (`WEB-12`) in a workspace, or by number in a project (`#12`). */
    async issuesByKey(tx: Executor, workspaceId: string, keys: { identifier: string; sequence: number }[], numbers: { projectId: string; sequence: number }[]) {
      if (keys.length === 0 && numbers.length === 0) return [];
      const named = [
        ...keys.map((k) => sql`(p.identifier = ${k.identifier} AND i.sequence_id = ${k.sequence}::int)`),
        ...numbers.map((n) => sql`(p.id = ${n.projectId}::uuid AND i.sequence_id = ${n.sequence}::int)`),
      ];
      const rows = await sql<{ id: string }>`
        SELECT i.id FROM issues i JOIN projects p ON p.workspace_id = i.workspace_id AND p.id = i.project_id
        WHERE i.workspace_id = ${workspaceId}::uuid AND p.workspace_id = ${workspaceId}::uuid AND (${sql.join(named, sql` OR `)})`.execute(tx);
      return rows.rows.map((r) => r.id);
    },

    /**
     * The words of the workspace's issue names and descriptions that begin with `prefix` (folded: migration 1099's
     * `search_terms`), at most 64, shortest first: the type-ahead's completions.
     */
    async completions(tx: Executor, workspaceId: string, prefix: string) {
      const rows = await sql<{ word: string }>`
        SELECT t.word FROM search_terms t, (SELECT search_fold(${prefix}) COLLATE "C" AS p) f
        WHERE t.workspace_id = ${workspaceId}::uuid AND t.word >= f.p AND t.word < f.p || chr(1114111)
        ORDER BY length(t.word), t.word LIMIT 64`.execute(tx);
      return rows.rows.map((r) => r.word);
    },

    /** The query of `text` (to_tsquery's syntax) in the workspace's language; null when it holds no lexeme. */
    async resolveQuery(tx: Executor, workspaceId: string, text: string): Promise<ResolvedQuery | null> {
      if (text === '') return null;
      const row = (await sql<{ query: string | null }>`SELECT ${matchQuery(workspaceId, text)}::text AS query`.execute(tx)).rows[0];
      if (!row?.query) return null;
      const query = withoutRepeatedLexemes(row.query);
      return { query, nameQuery: nameQueryText(query) };
    },

    /**
     * The matches of a query in a workspace, ranked: the issues named by key first, then by score (the name holds the
     * query, then the description, then a comment or a custom value), then the most recently updated. At most 1,001
     * matches are found (the newest, when more match), so the total is exact up to 1,000; a page is cut out of them.
     */
    async search(tx: Executor, input: { workspaceId: string; text: string; keyIds: string[]; filter: SearchFilter; offset: number; limit: number; now: Date }) {
      const resolved = await this.resolveQuery(tx, input.workspaceId, input.text);
      return rankedMatches(tx, { ...input, resolved });
    },

    /** `q` on the issue list (contract 23.2): the issue's words, a comment's or a value's match, or the query names it by key. */
    listCondition(workspaceId: string, resolved: ResolvedQuery | null, keyIds: string[]) {
      const matches = resolved
        ? sql`i.id IN (SELECT s.issue_id FROM issue_search s WHERE s.workspace_id = ${workspaceId}::uuid AND s.document @@ ${resolved.query}::tsquery
                       UNION
                       SELECT p.issue_id FROM issue_search_parts p WHERE p.workspace_id = ${workspaceId}::uuid AND p.document @@ ${resolved.query}::tsquery)`
        : sql`false`;
      return sql<boolean>`(${matches} OR i.id = ANY(${keyIds}::uuid[]))`;
    },

    /** The list's `relevance` sort: ascending puts the issue named by key first, then the best score (as `search`). */
    relevance(workspaceId: string, resolved: ResolvedQuery | null, keyIds: string[]) {
      const own = (query: string) =>
        sql`EXISTS (SELECT 1 FROM issue_search s WHERE s.workspace_id = ${workspaceId}::uuid AND s.issue_id = i.id AND s.created_at = i.created_at
                            AND s.document @@ ${query}::tsquery)`;
      const score = resolved
        ? sql`CASE WHEN ${own(resolved.nameQuery)} THEN ${sql.lit(SCORES.name)}
                   WHEN ${own(resolved.query)} THEN ${sql.lit(SCORES.description)}
                   WHEN EXISTS (SELECT 1 FROM issue_search_parts p WHERE p.workspace_id = ${workspaceId}::uuid AND p.issue_id = i.id
                                  AND p.document @@ ${resolved.query}::tsquery) THEN ${sql.lit(SCORES.part)}
                   ELSE 0 END`
        : sql`0`;
      return sql<number>`-(CASE WHEN i.id = ANY(${keyIds}::uuid[]) THEN 1000 ELSE 0 END + ${score})`;
    },

    /**
     * Where the query's words were found in each issue of a page (the name, the description, a comment, the text and
     * url custom values: any of the query's words, `anyText`), and the snippet's text: the first field that matched in
     * that order (of the comments, the best-ranked), highlighted by ts_headline between the marks \u0001 and \u0002.
     * Only that field is highlighted, and the comments are ranked only when one is the snippet. The issues' creation
     * times bound the months of their documents: the statement is planned over those partitions only (planned over
     * every month, it took 6 ms to plan with two years of them).
     */
    async hits(tx: Executor, input: { workspaceId: string; language: string; anyText: string; issues: { id: string; created_at: Date }[] }) {
      if (input.issues.length === 0 || input.anyText === '') return [];
      const issueIds = input.issues.map((i) => i.id);
      // From the oldest issue's millisecond to past the newest's: a Date holds milliseconds, a timestamp microseconds.
      const times = input.issues.map((i) => i.created_at.getTime());
      const [from, to] = [new Date(Math.min(...times)), new Date(Math.max(...times) + 1)];
      const config = sql`${`wis_${input.language}`}::regconfig`;
      const headline = (text: RawBuilder<unknown>) =>
        sql`ts_headline(${config}, ${text}, q.query, 'StartSel=' || chr(1) || ', StopSel=' || chr(2) || ', MaxWords=30, MinWords=12, ShortWord=2, MaxFragments=1, FragmentDelimiter=" … "')`;
      const rows = await sql<{
        issue_id: string;
        name_hit: boolean;
        description_hit: boolean;
        comment_hit: boolean;
        value_hit: boolean;
        snippet_field: 'name' | 'description' | 'comment' | 'custom_value' | null;
        comment_id: string | null;
        headline: string | null;
      }>`
        SELECT h.issue_id, h.name_hit, h.description_hit, h.comment_hit, h.value_text IS NOT NULL AS value_hit, h.field AS snippet_field,
               c.id AS comment_id,
               CASE h.field WHEN 'name' THEN ${headline(sql`h.name`)}
                            WHEN 'description' THEN ${headline(sql`h.description`)}
                            WHEN 'comment' THEN ${headline(sql`c.body`)}
                            WHEN 'custom_value' THEN ${headline(sql`h.value_text`)} END AS headline
        FROM (
          SELECT f.*, CASE WHEN f.name_hit THEN 'name' WHEN f.description_hit THEN 'description'
                           WHEN f.comment_hit THEN 'comment' WHEN f.value_text IS NOT NULL THEN 'custom_value' END AS field
          FROM (
            SELECT s.issue_id, i.name, i.description, q.query,
                   ts_filter(s.document, '{a}') @@ q.query AS name_hit,
                   ts_filter(s.document, '{b}') @@ q.query AS description_hit,
                   EXISTS (SELECT 1 FROM issue_search_parts p
                           WHERE p.workspace_id = ${input.workspaceId}::uuid AND p.issue_id = s.issue_id AND p.kind = 'comment'
                             AND p.document @@ q.query) AS comment_hit,
                   v.text AS value_text
            FROM issues i
            JOIN issue_search s ON s.issue_id = i.id AND s.created_at = i.created_at
            CROSS JOIN (SELECT ${tsquery(input.language, input.anyText)} AS query) q
            LEFT JOIN LATERAL (
              SELECT string_agg(cv.value_text, ' · ') AS text
              FROM issue_search_parts p JOIN custom_values cv ON cv.issue_id = p.issue_id AND cv.property_id = p.part_id
              WHERE p.workspace_id = ${input.workspaceId}::uuid AND p.issue_id = s.issue_id AND p.kind = 'custom_value' AND p.document @@ q.query) v ON true
            WHERE s.workspace_id = ${input.workspaceId}::uuid AND i.workspace_id = ${input.workspaceId}::uuid
              AND i.id = ANY(${issueIds}::uuid[]) AND s.created_at >= ${from} AND s.created_at < ${to}
          ) f
        ) h
        -- the best-ranked matching comment, read only when it is the snippet (an issue may have hundreds)
        LEFT JOIN LATERAL (
          SELECT c.id, c.body FROM issue_search_parts p JOIN comments c ON c.id = p.part_id
          WHERE h.field = 'comment' AND p.workspace_id = ${input.workspaceId}::uuid AND p.issue_id = h.issue_id AND p.kind = 'comment'
            AND p.document @@ h.query
          ORDER BY ts_rank(p.document, h.query) DESC, c.created_at DESC LIMIT 1) c ON true
        CROSS JOIN (SELECT ${tsquery(input.language, input.anyText)} AS query) q`.execute(tx);
      return rows.rows;
    },

    /**
     * The fuzzy fallback's first step: for each word, up to 3 words of the workspace's issue names like it (trigram
     * similarity at least 0.4, through the trigram index of `search_words`), most similar first.
     */
    async similarWords(tx: Executor, workspaceId: string, words: string[]) {
      if (words.length === 0) return [];
      // A transaction-local setting: it ends with the transaction (safe behind a transaction pooler).
      await sql`SELECT set_config('pg_trgm.similarity_threshold', '0.4', true)`.execute(tx);
      const rows = await sql<{ typed: string; word: string; similarity: number }>`
        SELECT t.typed, w.word, w.similarity FROM unnest(${words}::text[]) AS t(typed)
        CROSS JOIN LATERAL (
          SELECT sw.word, similarity(sw.word, search_fold(t.typed)) AS similarity FROM search_words sw
          WHERE sw.workspace_id = ${workspaceId}::uuid AND sw.word % search_fold(t.typed)
          ORDER BY sw.word <-> search_fold(t.typed), sw.word LIMIT 3) w`.execute(tx);
      return rows.rows.map((r) => ({ typed: r.typed, word: r.word, similarity: Number(r.similarity) }));
    },

    /**
     * The workspace's search language, and the new issue's name and its description's first 300 characters folded as the
     * documents' names are (similar issues, contract 23.4).
     */
    async similarInput(tx: Executor, workspaceId: string, name: string, description: string) {
      const row = await sql<{ language: string | null; name: string; description: string }>`
        SELECT (SELECT search_language FROM workspaces WHERE id = ${workspaceId}::uuid) AS language,
               search_fold(${name}) AS name, search_fold(left(${description}, 300)) AS description`.execute(tx);
      const found = row.rows[0]!;
      return { language: found.language ?? 'english', name: found.name, description: found.description };
    },

    /**
     * Similar issues' candidates (contract 23.4): open issues of the project and those completed since `since` that
     * share words with the new one (`anyText`: any two of its words, or its one word), the newest 200, with their folded
     * names (and their descriptions' first 300 characters folded, when `descriptions`). The service scores them.
     */
    async similarCandidates(
      tx: Executor,
      input: { workspaceId: string; projectId: string; language: string; anyText: string; since: Date; now: Date; descriptions: boolean },
    ): Promise<SimilarCandidate[]> {
      if (input.anyText === '') return [];
      // No parallel workers: PostgreSQL planned the newest window's bitmap scans in parallel, and starting the two
      // workers took 35 of the statement's 42 ms (their work, 1.5 ms). Transaction-local (safe behind a pooler): the
      // caller passes a transaction.
      await sql`SELECT set_config('max_parallel_workers_per_gather', '0', true)`.execute(tx);
      // The candidates, newest first, window by window until there are 200: the newest window is planned over its
      // own months and usually holds them all (a statement over every window plans them all, 4 ms of 12 at p50).
      const candidates: SimilarCandidate[] = [];
      for (const range of windowRanges(input.now)) {
        const found = await sql<{ id: string; name: string; updated_ms: number }>`
          SELECT d.issue_id AS id, d.name_folded AS name, ${EPOCH_MS(sql`d.updated_at`)} AS updated_ms FROM issue_search d
          WHERE d.workspace_id = ${input.workspaceId}::uuid AND d.project_id = ${input.projectId}::uuid
            AND d.document @@ ${tsquery(input.language, input.anyText)} ${range}
            AND EXISTS (SELECT 1 FROM issues o WHERE o.workspace_id = ${input.workspaceId}::uuid AND o.id = d.issue_id
                          AND (o.state_group NOT IN ('completed', 'cancelled') OR (o.state_group = 'completed' AND o.completed_at >= ${input.since})))
          ORDER BY d.created_at DESC LIMIT ${SIMILAR_CANDIDATES - candidates.length} ${sql.raw(CUSTOM_PLAN)}`.execute(tx);
        candidates.push(...found.rows.map((r) => ({ id: r.id, name: r.name, updatedMs: Number(r.updated_ms), description: null })));
        if (candidates.length >= SIMILAR_CANDIDATES) break;
      }
      if (!input.descriptions || candidates.length === 0) return candidates;
      const described = await sql<{ id: string; description: string }>`
        SELECT id, coalesce(search_fold(left(description, 300)), '') AS description FROM issues
        WHERE workspace_id = ${input.workspaceId}::uuid AND id = ANY(${candidates.map((c) => c.id)}::uuid[])`.execute(tx);
      const byId = new Map(described.rows.map((r) => [r.id, r.description]));
      return candidates.map((c) => ({ ...c, description: byId.get(c.id) ?? '' }));
    },

    /**
     * The monthly partitions of the documents (migration 1100) from `since`'s month to `upto`'s, each made once (and a
     * month's documents that waited in the default partition moved to it): how many were made. Gives up after waiting
     * 2 s for a lock (the partitioned table's, taken briefly), to try again on the duty's next run.
     */
    async ensurePartitions(tx: Executor, since: Date, upto: Date) {
      await sql`SET LOCAL lock_timeout = '2s'`.execute(tx);
      const row = await sql<{ made: number }>`SELECT search_partitions_ensure(${since}, ${upto}) AS made`.execute(tx);
      return Number(row.rows[0]?.made ?? 0);
    },

    /** Workspaces whose documents are not all in their language yet (the `search.reindex` duty). */
    async workspacesToRebuild(tx: Executor) {
      return tx
        .selectFrom('workspaces')
        .select(['id', 'search_language'])
        .whereRef('search_language', '<>', 'search_language_built')
        .orderBy('id')
        .limit(10)
        .execute();
    },

    /**
     * Rebuilds up to `batch` documents of a workspace in its language; when none is left, records the language as built.
     * Answers how many it rebuilt. A workspace whose language changed meanwhile is rebuilt again by the next run.
     */
    async rebuildDocuments(tx: Executor, workspaceId: string, language: string, batch: number) {
      const issues = await sql`
        UPDATE issue_search s SET language = ${language}, document = search_issue_doc(${language}, i.name, i.description)
        FROM issues i
        WHERE i.id = s.issue_id AND s.issue_id IN (
          SELECT issue_id FROM issue_search WHERE workspace_id = ${workspaceId}::uuid AND language <> ${language}
          LIMIT ${batch} FOR UPDATE SKIP LOCKED)`.execute(tx);
      const comments = await sql`
        UPDATE issue_search_parts p SET language = ${language}, document = search_vector(${language}, c.body, 'C')
        FROM comments c
        WHERE p.kind = 'comment' AND c.id = p.part_id AND (p.issue_id, p.part_id) IN (
          SELECT issue_id, part_id FROM issue_search_parts
          WHERE workspace_id = ${workspaceId}::uuid AND language <> ${language} AND kind = 'comment'
          LIMIT ${batch} FOR UPDATE SKIP LOCKED)`.execute(tx);
      const values = await sql`
        UPDATE issue_search_parts p SET language = ${language}, document = search_vector(${language}, v.value_text, 'C')
        FROM custom_values v
        WHERE p.kind = 'custom_value' AND v.issue_id = p.issue_id AND v.property_id = p.part_id AND (p.issue_id, p.part_id) IN (
          SELECT issue_id, part_id FROM issue_search_parts
          WHERE workspace_id = ${workspaceId}::uuid AND language <> ${language} AND kind = 'custom_value'
          LIMIT ${batch} FOR UPDATE SKIP LOCKED)`.execute(tx);
      const counts = [issues, comments, values].map((r) => Number(r.numAffectedRows ?? 0));
      if (counts.every((c) => c < batch)) {
        await sql`
          UPDATE workspaces SET search_language_built = search_language
          WHERE id = ${workspaceId}::uuid AND search_language = ${language}
            AND NOT EXISTS (SELECT 1 FROM issue_search WHERE workspace_id = ${workspaceId}::uuid AND language <> ${language})
            AND NOT EXISTS (SELECT 1 FROM issue_search_parts WHERE workspace_id = ${workspaceId}::uuid AND language <> ${language})`.execute(tx);
      }
      return counts.reduce((a, b) => a + b, 0);
    },
  };
}
