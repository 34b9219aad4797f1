export interface PageQuery {
  offset: number;
  per_page: number;
}

export interface Page<T> extends PageQuery {
  results: T[];
  total: number;
}

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;
/** The largest `offset` accepted (PostgreSQL's int4 range); beyond it a list is a 400, never a database error. */
export const MAX_OFFSET = 2_147_483_647;

export const pageOf = <T>(results: T[], total: number, query: PageQuery): Page<T> => ({
  results,
  total,
  offset: query.offset,
  per_page: query.per_page,
});
