import type { Executor } from '../../db/database.js';
import { isPgError, PG_ERROR } from '../../db/pg-errors.js';
import type { Actor } from '../../kernel/actor.js';
import { invalid } from '../../kernel/errors.js';
import { idList, parseList, uuidList } from '../../kernel/query-lists.js';
import { PRIORITIES, STATE_GROUPS } from '../../kernel/work-items.js';
import type { IssueFilterProvider, IssueSortProvider } from '../work-items/index.js';
import type { SearchDeps } from './search.deps.js';
import { RANKED, type RankedIssue, type SearchFilter } from './search.repository.js';
import {
  anyWordText,
  fuzzyText,
  parseSearchQuery,
  plainWords,
  prefixWord,
  type SearchQuery,
  type Snippet,
  type SnippetField,
  snippetFromHeadline,
  pairsText,
  rankSimilar,
  tsqueryText,
} from './search.rules.js';

export type SearchService = ReturnType<typeof createSearchService>;

/** Rebuilt per run of the `search.reindex` duty and workspace (a transaction of a few hundred milliseconds at most). */
const REINDEX_BATCH = 2000;
/** The documents' monthly partitions are made this far ahead (the `search.partitions` duty). */
const PARTITIONS_AHEAD_DAYS = 92;
/** Similar issues look at open issues and at those completed this recently (contract 23.4). */
const SIMILAR_DAYS = 90;

interface SearchInput {
  q: string;
  project_id?: string;
  state_group?: string | string[];
  priority?: string | string[];
  assignee_id?: string | string[];
  label_id?: string | string[];
  offset: number;
  per_page: number;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

export function createSearchService({ db, repo, clock, identity, workItems }: SearchDeps) {
  /** The query's text as searched: the type-ahead's word completed to the workspace's words that begin with it. */
  async function searchText(tx: Executor, workspaceId: string, query: SearchQuery) {
    const prefix = prefixWord(query);
    return tsqueryText(query, prefix === null ? [] : await repo.completions(tx, workspaceId, prefix));
  }

  /**
   * The list's `q` (a string, or repeated: its values joined), parsed, with the issues it names by key. The filter and
   * the relevance sort of one request see the same query record: its preparation (keys, completions, the language's
   * query) runs once for both.
   */
  const preparedLists = new WeakMap<Record<string, unknown>, ReturnType<typeof prepareListQuery>>();
  function listQuery(tx: Executor, workspaceId: string, projectId: string | null, query: Record<string, unknown>) {
    let prepared = preparedLists.get(query);
    if (!prepared) {
      prepared = prepareListQuery(tx, workspaceId, projectId, query.q);
      preparedLists.set(query, prepared);
    }
    return prepared;
  }

  async function prepareListQuery(tx: Executor, workspaceId: string, projectId: string | null, raw: unknown) {
    if (raw === undefined || raw === '') return null;
    const query = parseSearchQuery(Array.isArray(raw) ? raw.map(String).join(' ') : String(raw));
    const numbers = projectId === null ? [] : query.numbers.map((sequence) => ({ projectId, sequence }));
    const keyIds = await repo.issuesByKey(tx, workspaceId, query.keys, numbers);
    return { resolved: await repo.resolveQuery(tx, workspaceId, await searchText(tx, workspaceId, query)), keyIds };
  }

  /** `q` on the issue lists (contract 23.2): the issues matching it. */
  const issueFilter: IssueFilterProvider = async ({ tx, workspaceId, projectId, query }) => {
    const parsed = await listQuery(tx, workspaceId, projectId, query);
    if (!parsed) return [];
    const condition = repo.listCondition(workspaceId, parsed.resolved, parsed.keyIds);
    return [() => condition];
  };

  /** `order_by=relevance` (the default with `q`): the issue named by key first, then by rank. */
  const issueSort: IssueSortProvider = async ({ tx, workspaceId, projectId, key, query }) => {
    if (key !== 'relevance') return null;
    const parsed = await listQuery(tx, workspaceId, projectId, query);
    if (!parsed) throw invalid('/querystring/order_by', 'relevance needs q');
    const rank = repo.relevance(workspaceId, parsed.resolved, parsed.keyIds);
    return () => rank;
  };

  /** The issues of a page of matches as results: the issue's card, its score, where the words were found, a snippet. */
  async function resultsOf(workspaceId: string, language: string, page: { rows: RankedIssue[] }, anyText: string) {
    const ids = page.rows.map((r) => r.id);
    const [cards, hits] = await Promise.all([workItems.issueCards(db, workspaceId, ids), repo.hits(db, { workspaceId, language, anyText, issues: page.rows })]);
    const ranked = new Map(page.rows.map((r) => [r.id, r]));
    const hitOf = new Map(hits.map((h) => [h.issue_id, h]));
    return {
      results: cards.map((issue) => {
        const row = ranked.get(issue.id)!;
        const hit = hitOf.get(issue.id);
        const matched: SnippetField[] = [];
        if (row.by_key) matched.push('key');
        if (hit?.name_hit) matched.push('name');
        if (hit?.description_hit) matched.push('description');
        if (hit?.comment_hit) matched.push('comment');
        if (hit?.value_hit) matched.push('custom_value');
        let snippet: Snippet & { comment_id?: string };
        if (row.by_key) snippet = { field: 'key', text: issue.key, highlights: [[0, issue.key.length]] };
        else if (hit?.snippet_field && hit.headline !== null) {
          snippet = snippetFromHeadline(hit.snippet_field, hit.headline);
          if (hit.snippet_field === 'comment' && hit.comment_id) snippet.comment_id = hit.comment_id;
        } else snippet = snippetFromHeadline('name', issue.name);
        return { issue, score: round(row.by_key ? 1 + row.score : row.score, 4), matched_in: matched, snippet };
      }),
    };
  }

  return {
    issueFilter,
    issueSort,

    /** A page of the workspace's issues matching `q` (contract 23.1). */
    async search(actor: Actor, slug: string, input: SearchInput) {
      const ws = await identity.access(actor, slug, 'read');
      const query = parseSearchQuery(input.q);
      const projectId = input.project_id?.toLowerCase();
      if (projectId !== undefined) await workItems.findProject(db, ws.workspaceId, projectId);
      const assignees = idList(input.assignee_id, 'assignee_id', { me: ws.userId, none: true });
      const filter: SearchFilter = {
        ...(projectId !== undefined && { projectId }),
        ...(input.state_group !== undefined && { stateGroups: parseList(input.state_group, STATE_GROUPS, 'state_group') }),
        ...(input.priority !== undefined && { priorities: parseList(input.priority, PRIORITIES, 'priority') }),
        ...(assignees && { assignees: { ids: assignees.filter((id) => id !== null), none: assignees.includes(null) } }),
        ...(input.label_id !== undefined && { labelIds: uuidList(input.label_id, 'label_id') }),
      };
      const page = { offset: input.offset, per_page: input.per_page };
      const language = await repo.workspaceLanguage(db, ws.workspaceId);
      const numbers = projectId === undefined ? [] : query.numbers.map((sequence) => ({ projectId, sequence }));
      const keyIds = await repo.issuesByKey(db, ws.workspaceId, query.keys, numbers);
      const text = await searchText(db, ws.workspaceId, query);
      const now = clock.now();
      const first = await repo.search(db, { workspaceId: ws.workspaceId, text, keyIds, filter, offset: page.offset, limit: page.per_page, now });
      if (first.found > 0 || text === '')
        return { ...(await resultsOf(ws.workspaceId, language, first, anyWordText(query))), ...totals(first.found, page), fuzzy: false };

      // Nothing has the words: the words of issue names like them (a typo), searched in names.
      const alternatives = await db.transaction().execute((tx) => repo.similarWords(tx, ws.workspaceId, plainWords(query)));
      const fuzzy = fuzzyText(plainWords(query), alternatives);
      if (fuzzy.text === '') return { results: [], ...totals(0, page), fuzzy: true };
      const found = await repo.search(db, {
        workspaceId: ws.workspaceId,
        text: fuzzy.text,
        keyIds: [],
        filter,
        offset: page.offset,
        limit: page.per_page,
        now,
      });
      return { ...(await resultsOf(ws.workspaceId, language, found, fuzzy.anyText)), ...totals(found.found, page), fuzzy: true };
    },

    /** Up to 5 issues of the project like the one being written (contract 23.4). */
    async similar(actor: Actor, slug: string, projectId: string, input: { name: string; description?: string }) {
      const ws = await identity.access(actor, slug, 'read');
      await workItems.findProject(db, ws.workspaceId, projectId);
      const name = input.name.trim();
      if ([...name].length < 3 || [...name].length > 255) throw invalid('/querystring/name', 'must be 3..255 characters after trimming');
      // eslint-disable-next-line no-control-regex
      const clean = (s: string) => s.replace(/[\u0000-\u001f]/g, ' ');
      const description = clean((input.description ?? '').trim()).slice(0, 2000);
      // The words of the name (and the description's first ones), any of them: candidates that share a word.
      const words = [...new Set(`${name} ${description.slice(0, 300)}`.split(/[^\p{L}\p{N}\p{M}]+/u).filter((w) => [...w].length >= 3))].slice(0, 24);
      const anyText = pairsText(words.slice(0, 8));
      const typed = await repo.similarInput(db, ws.workspaceId, clean(name), description);
      const now = clock.now();
      const since = new Date(now.getTime() - SIMILAR_DAYS * 86_400_000);
      const candidates = await db.transaction().execute((tx) =>
        repo.similarCandidates(tx, {
          workspaceId: ws.workspaceId,
          projectId,
          language: typed.language,
          anyText,
          since,
          now,
          descriptions: description !== '',
        }),
      );
      const rows = rankSimilar(typed, candidates);
      const cards = await workItems.issueCards(
        db,
        ws.workspaceId,
        rows.map((r) => r.id),
      );
      const similarity = new Map(rows.map((r) => [r.id, r.similarity]));
      return cards.map((issue) => ({ issue, similarity: Math.min(1, round(similarity.get(issue.id)!, 2)) }));
    },

    /**
     * The `search.partitions` duty: the documents' monthly partitions from this month to three months ahead (the
     * search statements read the newest months first). Answers how many it made; 0 when another instance held the
     * lock longer than 2 s (the next run tries again, and the months ahead leave time).
     */
    async runPartitions() {
      const now = clock.now();
      const upto = new Date(now.getTime() + PARTITIONS_AHEAD_DAYS * 86_400_000);
      try {
        return await db.transaction().execute((tx) => repo.ensurePartitions(tx, now, upto));
      } catch (error) {
        if (isPgError(error, PG_ERROR.lockNotAvailable)) return 0;
        throw error;
      }
    },

    /**
     * The `search.reindex` duty: rebuilds the documents of workspaces whose `search_language` changed, a batch per
     * workspace and run (search keeps working throughout: the documents also hold the words as written). Answers how
     * many documents it rebuilt.
     */
    async runReindex() {
      const workspaces = await repo.workspacesToRebuild(db);
      let rebuilt = 0;
      for (const ws of workspaces) {
        rebuilt += await db.transaction().execute((tx) => repo.rebuildDocuments(tx, ws.id, ws.search_language, REINDEX_BATCH));
      }
      return rebuilt;
    },
  };
}

/** The totals of a page: exact up to 1,000 matches; beyond, 1000 and capped. */
function totals(found: number, page: { offset: number; per_page: number }) {
  return { total: Math.min(found, RANKED), total_capped: found > RANKED, offset: page.offset, per_page: page.per_page };
}
