import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { CUSTOM_PLAN } from '../../db/named-statements.js';

// The SQL of search (contract 23.1) and similar issues (23.4), on the documents of migration 1092.

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
  by_key: boolean;
  score: number;
}

/** The weights of ts_rank for D, C, B, A: comments and custom values (C), description (B), key and name (A). */
const WEIGHTS = '{0.05,0.2,0.4,1.0}';

/**
 * The query in a workspace's language: its stemmed lexemes or those as written (migration 1092's documents hold both),
 * so that a stemmed match never hides an exact one, and a document not yet rebuilt in a new language still matches.
 */
const tsquery = (language: string, text: string) =>
  language === 'simple'
    ? sql`to_tsquery('wis_simple'::regconfig, ${text})`
    : sql`(to_tsquery(${`wis_${language}`}::regconfig, ${text}) || to_tsquery('wis_simple'::regconfig, ${text}))`;

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

/** An issue's rank: the best of its own document's and its comments' and values' (which weigh C). */
const rankOf = (workspaceId: string, issueId: RawBuilder<unknown>, query: RawBuilder<unknown>) => sql`greatest(
  coalesce((SELECT ts_rank(${WEIGHTS}::real[], s.document, ${query}) FROM issue_search s WHERE s.workspace_id = ${workspaceId}::uuid AND s.issue_id = ${issueId}), 0),
  coalesce((SELECT max(ts_rank(${WEIGHTS}::real[], p.document, ${query})) FROM issue_search_parts p
            WHERE p.workspace_id = ${workspaceId}::uuid AND p.issue_id = ${issueId} AND p.document @@ ${query}), 0))`;

const and = (parts: RawBuilder<unknown>[]) => (parts.length ? sql` AND ${sql.join(parts, sql` AND `)}` : sql``);

/**
 * The ranked matches (see `search`), in three statements whose plans the planner makes with every value known:
 * 1. the issues whose own document matches, newest first through (workspace_id, created_at): a common word walks the
 *    newest issues and stops after 1,001 matches, a rare one is found through the GIN index and sorted;
 * 2. the issues with a matching comment or value, newest first, no older than the 1,001st of (1) when (1) filled
 *    its window (the newest 1,001 of the union cannot be older): exact, and as short a span as (1)'s;
 * 3. the newest 1,001 of both (and the issues named by key), ranked, the page cut out and the total counted.
 */
async function rankedMatches(
  tx: Executor,
  input: { workspaceId: string; language: string; text: string; keyIds: string[]; filter: SearchFilter; offset: number; limit: number },
) {
  const ws = input.workspaceId;
  const filters = conditions(input.filter);
  const filterOn = (column: RawBuilder<unknown>) =>
    filters.length ? sql`AND EXISTS (SELECT 1 FROM issues i WHERE i.workspace_id = ${ws}::uuid AND i.id = ${column} ${and(filters)})` : sql``;
  const query = tsquery(input.language, input.text);
  const newest = new Map<string, number>();
  if (input.text !== '') {
    const own = await sql<{ issue_id: string; created_at: Date }>`
      SELECT s.issue_id, s.created_at FROM issue_search s
      WHERE s.workspace_id = ${ws}::uuid AND s.document @@ ${query} ${filterOn(sql`s.issue_id`)}
      ORDER BY s.created_at DESC LIMIT ${RANKED + 1} ${sql.raw(CUSTOM_PLAN)}`.execute(tx);
    const since = own.rows.length > RANKED ? own.rows[RANKED]!.created_at : null;
    const parts = await sql<{ issue_id: string; created_at: Date }>`
      SELECT p.issue_id, max(p.created_at) AS created_at FROM issue_search_parts p
      WHERE p.workspace_id = ${ws}::uuid AND p.document @@ ${query} ${filterOn(sql`p.issue_id`)}
        ${since ? sql`AND p.created_at >= ${since}` : sql``}
      GROUP BY p.issue_id ORDER BY 2 DESC LIMIT ${RANKED + 1} ${sql.raw(CUSTOM_PLAN)}`.execute(tx);
    for (const row of [...own.rows, ...parts.rows]) newest.set(row.issue_id, Math.max(newest.get(row.issue_id) ?? 0, row.created_at.getTime()));
  }
  for (const id of input.keyIds) newest.delete(id);
  const matched = [...newest]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1))
    .slice(0, RANKED + 1)
    .map(([id]) => id);
  if (matched.length === 0 && input.keyIds.length === 0) return { rows: [] as RankedIssue[], found: 0 };
  const score = input.text === '' ? sql`0::real` : rankOf(ws, sql`i.id`, query);
  const rows = await sql<RankedIssue & { found: number }>`
    SELECT i.id, i.id = ANY(${input.keyIds}::uuid[]) AS by_key, ${score} AS score, count(*) OVER ()::int AS found
    FROM issues i
    WHERE i.workspace_id = ${ws}::uuid
      AND (i.id = ANY(${matched}::uuid[]) OR (i.id = ANY(${input.keyIds}::uuid[]) ${and(filters)}))
    ORDER BY 2 DESC, 3 DESC, i.updated_at DESC, i.id DESC
    OFFSET ${input.offset} LIMIT ${input.limit}`.execute(tx);
  // Past the last page no row says how many matched: the matches and the keyed issues that pass the filters.
  let found = rows.rows[0]?.found;
  if (found === undefined) {
    const keyed = input.keyIds.length
      ? (
          await sql<{
            n: number;
          }>`SELECT count(*)::int AS n FROM issues i WHERE i.workspace_id = ${ws}::uuid AND i.id = ANY(${input.keyIds}::uuid[]) ${and(filters)}`.execute(tx)
        ).rows[0]!.n
      : 0;
    found = matched.length + keyed;
  }
  return { rows: rows.rows.map(({ id, by_key, score }) => ({ id, by_key, score: Number(score) })), found };
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
     * The matches of a query in a workspace, ranked: the issues named by key first, then by rank (weights: name, then
     * description, then comments and custom values), then the most recently updated. At most 1,001 matches are found
     * (the newest, when more match), so the total is exact up to 1,000; a page is cut out of the ranked matches.
     */
    async search(
      tx: Executor,
      input: { workspaceId: string; language: string; text: string; keyIds: string[]; filter: SearchFilter; offset: number; limit: number },
    ) {
      return rankedMatches(tx, input);
    },

    /** `q` on the issue list (contract 23.2): the issue's words, a comment's or a value's match, or the query names it by key. */
    listCondition(workspaceId: string, language: string, text: string, keyIds: string[]) {
      const matches =
        text === ''
          ? sql`false`
          : sql`i.id IN (SELECT s.issue_id FROM issue_search s WHERE s.workspace_id = ${workspaceId}::uuid AND s.document @@ ${tsquery(language, text)}
                         UNION
                         SELECT p.issue_id FROM issue_search_parts p WHERE p.workspace_id = ${workspaceId}::uuid AND p.document @@ ${tsquery(language, text)})`;
      return sql<boolean>`(${matches} OR i.id = ANY(${keyIds}::uuid[]))`;
    },

    /** The list's `relevance` sort: ascending puts the issue named by key first, then the best ranked. */
    relevance(workspaceId: string, language: string, text: string, keyIds: string[]) {
      const rank = text === '' ? sql`0` : rankOf(workspaceId, sql`i.id`, tsquery(language, text));
      return sql<number>`-(CASE WHEN i.id = ANY(${keyIds}::uuid[]) THEN 1000 ELSE 0 END + ${rank})`;
    },

    /**
     * Where the query's words were found in each issue of a page, and the text around them: the name, the description,
     * the latest matching comment and the text and url custom values, each highlighted by ts_headline between the marks
     * \u0001 and \u0002 (`anyText`: any of the query's words).
     */
    async hits(tx: Executor, input: { workspaceId: string; language: string; anyText: string; issueIds: string[] }) {
      if (input.issueIds.length === 0 || input.anyText === '') return [];
      const config = sql`${`wis_${input.language}`}::regconfig`;
      const headline = (text: RawBuilder<unknown>) =>
        sql`ts_headline(${config}, ${text}, q.query, 'StartSel=' || chr(1) || ', StopSel=' || chr(2) || ', MaxWords=30, MinWords=12, ShortWord=2, MaxFragments=1, FragmentDelimiter=" … "')`;
      const rows = await sql<{
        issue_id: string;
        name_hit: boolean;
        description_hit: boolean;
        name_headline: string | null;
        description_headline: string | null;
        comment_id: string | null;
        comment_headline: string | null;
        value_headline: string | null;
      }>`
        SELECT s.issue_id,
               ts_filter(s.document, '{a}') @@ q.query AS name_hit,
               ts_filter(s.document, '{b}') @@ q.query AS description_hit,
               CASE WHEN ts_filter(s.document, '{a}') @@ q.query THEN ${headline(sql`i.name`)} END AS name_headline,
               CASE WHEN ts_filter(s.document, '{b}') @@ q.query THEN ${headline(sql`i.description`)} END AS description_headline,
               c.id AS comment_id,
               CASE WHEN c.id IS NOT NULL THEN ${headline(sql`c.body`)} END AS comment_headline,
               CASE WHEN v.text IS NOT NULL THEN ${headline(sql`v.text`)} END AS value_headline
        FROM issue_search s
        JOIN issues i ON i.id = s.issue_id
        CROSS JOIN (SELECT ${tsquery(input.language, input.anyText)} AS query) q
        LEFT JOIN LATERAL (
          SELECT c.id, c.body FROM issue_search_parts p JOIN comments c ON c.id = p.part_id
          WHERE p.workspace_id = ${input.workspaceId}::uuid AND p.issue_id = s.issue_id AND p.kind = 'comment' AND p.document @@ q.query
          ORDER BY ts_rank(p.document, q.query) DESC, c.created_at DESC LIMIT 1) c ON true
        LEFT JOIN LATERAL (
          SELECT string_agg(cv.value_text, ' · ') AS text
          FROM issue_search_parts p JOIN custom_values cv ON cv.issue_id = p.issue_id AND cv.property_id = p.part_id
          WHERE p.workspace_id = ${input.workspaceId}::uuid AND p.issue_id = s.issue_id AND p.kind = 'custom_value' AND p.document @@ q.query) v ON true
        WHERE s.workspace_id = ${input.workspaceId}::uuid AND i.workspace_id = ${input.workspaceId}::uuid
          AND s.issue_id = ANY(${input.issueIds}::uuid[])`.execute(tx);
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
     * Similar issues (contract 23.4): open issues of the project and those completed since `since` that share words
     * with the new one (`anyText`: any two of its words, or its one word; newest 200), scored by the similarity of the
     * names (and of the descriptions' beginnings, when one is given); at least 0.3, best 5.
     */
    async similar(
      tx: Executor,
      input: { workspaceId: string; projectId: string; language: string; name: string; description: string; anyText: string; since: Date },
    ) {
      if (input.anyText === '') return [];
      const describe = input.description === '' ? sql`0` : sql`similarity(search_fold(left(i.description, 300)), search_fold(left(${input.description}, 300)))`;
      const rows = await sql<{ id: string; similarity: number }>`
        SELECT id, similarity FROM (
          SELECT i.id, i.updated_at,
                 greatest(similarity(s.name_folded, q.name), word_similarity(q.name, s.name_folded) * 0.9, ${describe} * 0.8) AS similarity
          FROM (
            SELECT s.issue_id FROM issue_search s
            WHERE s.workspace_id = ${input.workspaceId}::uuid AND s.project_id = ${input.projectId}::uuid
              AND s.document @@ ${tsquery(input.language, input.anyText)}
              AND EXISTS (SELECT 1 FROM issues o WHERE o.workspace_id = ${input.workspaceId}::uuid AND o.id = s.issue_id
                            AND (o.state_group NOT IN ('completed', 'cancelled') OR (o.state_group = 'completed' AND o.completed_at >= ${input.since})))
            ORDER BY s.created_at DESC LIMIT 200) c
          JOIN issue_search s ON s.issue_id = c.issue_id
          JOIN issues i ON i.id = s.issue_id,
          (SELECT search_fold(${input.name}) AS name) q
          WHERE i.workspace_id = ${input.workspaceId}::uuid
        ) r
        WHERE similarity >= 0.3
        ORDER BY similarity DESC, updated_at DESC, id DESC LIMIT 5`.execute(tx);
      return rows.rows.map((r) => ({ id: r.id, similarity: Number(r.similarity) }));
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
