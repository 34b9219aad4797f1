/**
 * Section 14 timings on PostgreSQL (issue 14): `npx tsx bench/section14.ts [issues]` with DATABASE_URL set.
 * Seeds one project (default 100k issues, with custom values and a baseline, then churn) in a scratch database,
 * starts the service in-process and times over HTTP (median of 7): usage of a select property, the first issue-list
 * page unsorted / by priority / by a custom number, and the deviation (which carries the transitions).
 */
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Query } from './raw.js';
import { churn, insertBaseline, insertUserWithToken, insertWorkspace, seedWorkspace } from './seed.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const issues = Number(process.argv[2] ?? 100_000);
const name = `${new URL(url).pathname.slice(1) || 'postgres'}_s14bench`;
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
await admin.query(`CREATE DATABASE "${name}"`);
const scratch = new URL(url);
scratch.pathname = `/${name}`;
const handle = await openDatabase({ databaseUrl: scratch.toString(), dataDir: '' });
try {
  await migrateToLatest(handle.db);
  const client = new pg.Client({ connectionString: scratch.toString() });
  await client.connect();
  const q: Query = async (text, params) => {
    const r = await client.query(text, params as unknown[]);
    return { rows: r.rows, rowCount: r.rowCount ?? 0 };
  };
  const now = new Date();
  const owner = await insertUserWithToken(q, 'bench@example.com', now);
  const ws = await insertWorkspace(q, owner.userId, 'bench', now);
  const [project] = await seedWorkspace(q, {
    workspaceId: ws,
    ownerId: owner.userId,
    projects: [{ identifier: 'B', issues }],
    comments: 0,
    trackers: false,
    customValues: true,
    members: 0,
    now,
    label: 'seed',
  });
  const baselineId = await insertBaseline(q, ws, project!.id, owner.userId, now);
  await churn(q, project!.id);
  await client.query('VACUUM ANALYZE');
  await client.end();

  const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent', API_RATE_LIMIT: '0', JOB_INTERVAL_MS: '0' }), database: handle });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const time = async (path: string) => {
    const ms: number[] = [];
    for (let i = 0; i < 8; i++) {
      const t0 = performance.now();
      const res = await fetch(base + path, { headers: { authorization: `Bearer ${owner.token}` } });
      await res.text();
      if (!res.ok) throw new Error(`${path}: ${res.status}`);
      if (i > 0) ms.push(performance.now() - t0);
    }
    return ms.sort((a, b) => a - b)[3]!.toFixed(1);
  };
  const list = `/api/workspaces/bench/projects/${project!.id}/issues/`;
  const rows = [
    ['usage, select property', await time(`/api/workspaces/bench/custom-properties/${project!.properties.severity}/usage/`)],
    ['usage, number property', await time(`/api/workspaces/bench/custom-properties/${project!.properties.estimate}/usage/`)],
    ['issue list, first page, unsorted', await time(list)],
    ['issue list, first page, order_by=priority', await time(`${list}?order_by=priority`)],
    ['issue list, first page, order_by=-priority', await time(`${list}?order_by=-priority`)],
    ['issue list, first page, order_by=custom number', await time(`${list}?order_by=custom.${project!.properties.estimate}`)],
    ['deviation (with transitions)', await time(`/api/workspaces/bench/baselines/${baselineId}/deviation/`)],
    ['changes, kind=changed, first page', await time(`/api/workspaces/bench/baselines/${baselineId}/changes/?kind=changed`)],
  ];
  console.log(`\n| ${issues} issues | median ms |\n|---|---:|\n${rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n')}`);
  await app.close();
} finally {
  await handle.close();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}
