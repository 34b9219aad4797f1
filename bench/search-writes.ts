// Experiment: what search's triggers cost a write, piece by piece (issue 37's write ratio). A scratch PostgreSQL
// database at the latest migration; single-row INSERTs of issues and comments and UPDATEs of an issue's priority, one
// statement each as a POST or a PATCH makes them, in a loop of `n` per variant, the variants interleaved over `rounds`.
// Prints the median ms per 1,000 rows.
// `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/search-writes.ts [n] [rounds]`
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import pg from 'pg';
import { openPostgres } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { insertUserWithToken, insertWorkspace } from './seed.js';
import { VOCAB } from './search.js';

const n = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 5);
const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const admin = new pg.Client({ connectionString: url.toString() });
await admin.connect();
const name = 'wis_bench_search_writes';
await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
await admin.query(`CREATE DATABASE ${name}`);
url.pathname = `/${name}`;
const database = openPostgres(url.toString(), 1);
await migrateToLatest(database.db);
await database.close();
const client = new pg.Client({ connectionString: url.toString() });
await client.connect();
const q = async (text: string, params: readonly unknown[] = []) => {
  const r = await client.query(text, params as unknown[]);
  return { rows: r.rows, rowCount: r.rowCount ?? 0 };
};
const now = new Date();
const { userId } = await insertUserWithToken(q, 'writes@bench.example', now);
const ws = await insertWorkspace(q, userId, 'writes', now);
const projectId = randomUUID();
await q(
  `insert into projects (id, workspace_id, name, identifier, description, issue_seq, created_by, created_at, updated_at) values ($1, $2, 'W', 'W', '', 0, $3, $4, $4)`,
  [projectId, ws, userId, now],
);
const stateId = randomUUID();
await q(
  `insert into states (id, workspace_id, project_id, name, "group", color, sequence, is_default, created_at, updated_at) values ($1, $2, $3, 'Todo', 'unstarted', '#888888', 1000, true, $4, $4)`,
  [stateId, ws, projectId, now],
);

let rank = 0;
const word = () => {
  // Zipf-like: a few words very common, most rare
  rank = (rank * 7919 + 13) % 104729;
  return VOCAB[Math.floor(VOCAB.length * Math.pow(rank / 104729, 2.2))]!;
};
const words = (k: number) => Array.from({ length: k }, word).join(' ');

let seq = 0;
const issueIds: string[] = [];
async function insertIssues(count: number) {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    seq++;
    const id = randomUUID();
    await client.query({
      name: 'issue',
      text: `INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, description, state_id, state_group, priority, assignee_ids, created_by, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, 'unstarted', 'none', '{}', $8, now(), now())`,
      values: [id, ws, projectId, seq, words(5), words(40), stateId, userId],
    });
    if (issueIds.length < 100) issueIds.push(id);
  }
  return ((performance.now() - started) / count) * 1000;
}
async function insertComments(count: number) {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await client.query({
      name: 'comment',
      text: `INSERT INTO comments (id, workspace_id, issue_id, author_id, body, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, now(), now())`,
      values: [randomUUID(), ws, issueIds[i % issueIds.length], userId, words(20)],
    });
  }
  return ((performance.now() - started) / count) * 1000;
}

let updates = 0;
async function updateIssues(count: number) {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await client.query({
      name: 'update',
      text: `UPDATE issues SET priority = $2, updated_at = now() WHERE id = $1`,
      values: [issueIds[updates++ % issueIds.length], ['low', 'medium', 'high'][updates % 3]],
    });
  }
  return ((performance.now() - started) / count) * 1000;
}

const triggers = async (on: boolean) => {
  const verb = on ? 'ENABLE' : 'DISABLE';
  await q(`ALTER TABLE issues ${verb} TRIGGER issues_search_added`);
  await q(`ALTER TABLE issues ${verb} TRIGGER issues_search_changed`);
  await q(`ALTER TABLE comments ${verb} TRIGGER comments_search_added`);
};

/** The variants: SQL run before (and undone after) a round's inserts. */
const variants: Record<string, { before?: string; after?: string; off?: boolean }> = {
  off: { off: true },
  current: {},
  // VARIANTS: SQL files, each run before its rounds; what follows a line `--after` in one undoes it after them.
  ...Object.fromEntries(
    (process.env.VARIANTS ?? '')
      .split(',')
      .filter(Boolean)
      .map((file) => {
        const [before, after] = readFileSync(file, 'utf8').split('\n--after\n');
        return [basename(file, '.sql'), { before, after }];
      }),
  ),
};

await insertIssues(200);
await insertComments(200);
const results: Record<string, { issue: number[]; comment: number[]; update: number[] }> = {};
for (let r = 0; r < rounds; r++) {
  // a new order each round: a variant measured later in a round meets bigger tables
  const order = Object.entries(variants).sort(() => Math.random() - 0.5);
  for (const [label, v] of order) {
    if (v.off) await triggers(false);
    if (v.before) await q(v.before);
    const issue = await insertIssues(n);
    const comment = await insertComments(n);
    const update = await updateIssues(n);
    if (v.after) await q(v.after);
    if (v.off) await triggers(true);
    (results[label] ??= { issue: [], comment: [], update: [] }).issue.push(issue);
    results[label].comment.push(comment);
    results[label].update.push(update);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`ms per 1,000 single-row writes (median of ${rounds}):`);
for (const [label, r] of Object.entries(results))
  console.log(
    `${label.padEnd(10)} issue ${median(r.issue).toFixed(0).padStart(6)}  comment ${median(r.comment).toFixed(0).padStart(6)}  update ${median(r.update).toFixed(0).padStart(6)}`,
  );
await client.end();
if (!process.env.KEEP) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
await admin.end();
