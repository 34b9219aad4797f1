import type { ColumnType } from 'kysely';

type Tsvector = ColumnType<string, string, string>;

/** Migration 1092: an issue's search document (name and description; contract 23.1), kept by triggers. */
export interface IssueSearchTable {
  issue_id: string;
  workspace_id: string;
  project_id: string;
  language: string;
  created_at: ColumnType<Date, Date, Date>;
  name_folded: string;
  document: Tsvector;
}

/** Migration 1092: a comment's or a text/url custom value's search document, kept by triggers. */
export interface IssueSearchPartsTable {
  workspace_id: string;
  issue_id: string;
  part_id: string;
  kind: 'comment' | 'custom_value';
  language: string;
  created_at: ColumnType<Date, Date, Date>;
  document: Tsvector;
}

/** Migration 1092: the folded words of a workspace's issue names (the fuzzy fallback). */
export interface SearchWordsTable {
  workspace_id: string;
  word: string;
}

export interface SearchTables {
  search_words: SearchWordsTable;
  issue_search: IssueSearchTable;
  issue_search_parts: IssueSearchPartsTable;
}
