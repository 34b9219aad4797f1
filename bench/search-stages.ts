import { existsSync, readFileSync, writeFileSync } from 'node:fs';
// Experiment: where a search's time goes, stage by stage (the raw twin's statements, timed one by one).
import { openPostgres } from '../src/db/database.js';
import { searchRepository } from '../src/modules/search/search.repository.js';
import { workItemsRepository } from '../src/modules/work-items/work-items.repository.js';
import { anyWordText, parseSearchQuery, prefixWord, tsqueryText } from '../src/modules/search/search.rules.js';
import { searchQueries } from './search.js';
import { sql } from 'kysely';

const database = openPostgres(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres_bench_search', 2);
const db = database.db;
const ws = (await sql<{ workspace_id: string }>`SELECT workspace_id FROM issue_search GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`.execute(db)).rows[0]!
  .workspace_id;
const repo = searchRepository();
const items = workItemsRepository();
const stages: Record<string, number[]> = { language: [], completions: [], search: [], cards: [], hits: [], total: [] };
const slowest: { q: string; t: Record<string, number> }[] = [];
// QUERIES=file: the same queries again (written there on the first run), for A/B runs.
const file = process.env.QUERIES;
const queries: string[] = file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as string[]) : searchQueries(Number(process.argv[2] ?? 300));
if (file && !existsSync(file)) writeFileSync(file, JSON.stringify(queries));
for (const [i, q] of queries.entries()) {
  const t: Record<string, number> = {};
  let s = performance.now();
  const lap = (k: string) => {
    const n = performance.now();
    t[k] = n - s;
    s = n;
  };
  const start = s;
  const parsed = parseSearchQuery(q);
  const language = await repo.workspaceLanguage(db, ws);
  lap('language');
  const prefix = prefixWord(parsed);
  const text = tsqueryText(parsed, prefix === null ? [] : await repo.completions(db, ws, prefix));
  lap('completions');
  const { rows } = await repo.search(db, { workspaceId: ws, text, keyIds: [], filter: {}, offset: 0, limit: 20, now: new Date() });
  lap('search');
  const ids = rows.map((r) => r.id);
  await items.issueCards(db, ws, ids);
  lap('cards');
  await repo.hits(db, { workspaceId: ws, language, anyText: anyWordText(parsed), issues: rows });
  lap('hits');
  t.total = performance.now() - start;
  if (i < 10) continue;
  for (const [k, v] of Object.entries(t)) stages[k]!.push(v);
  slowest.push({ q, t });
}
slowest.sort((a, b) => b.t.total! - a.t.total!);
console.log('slowest:');
for (const { q, t } of slowest.slice(0, 15))
  console.log(
    JSON.stringify(q).padEnd(36),
    Object.entries(t)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join('  '),
  );
const qt = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(1);
for (const [k, xs] of Object.entries(stages))
  console.log(k.padEnd(12), 'p50', qt(xs, 0.5).padStart(6), 'p95', qt(xs, 0.95).padStart(6), 'mean', (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1));
await database.close();
