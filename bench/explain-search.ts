// Experiment helper: EXPLAIN (ANALYZE, BUFFERS) a statement with a search query's tsquery ($Q, $NQ) and workspace ($WS).
import { sql } from 'kysely';
import { openPostgres } from '../src/db/database.js';
import { searchRepository } from '../src/modules/search/search.repository.js';
import { parseSearchQuery, prefixWord, tsqueryText } from '../src/modules/search/search.rules.js';

const database = openPostgres(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres_bench_search', 1);
const repo = searchRepository();
const ws = (await sql<{ workspace_id: string }>`SELECT workspace_id FROM issue_search GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`.execute(database.db)).rows[0]!
  .workspace_id;
const parsed = parseSearchQuery(process.argv[2]!);
const prefix = prefixWord(parsed);
const text = tsqueryText(parsed, prefix === null ? [] : await repo.completions(database.db, ws, prefix));
const r = (await repo.resolveQuery(database.db, ws, text))!;
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const stmt = process.argv[3]!.replaceAll('$WS', `${lit(ws)}::uuid`)
  .replaceAll('$NQ', `${lit(r.nameQuery)}::tsquery`)
  .replaceAll('$Q', `${lit(r.query)}::tsquery`);
console.log(r.query);
for (let i = 0; i < 2; i++) {
  const e = await sql.raw<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS) ${stmt}`).execute(database.db);
  if (i) console.log(e.rows.map((x) => x['QUERY PLAN']).join('\n'));
}
await database.close();
