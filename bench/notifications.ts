/**
 * Notifications (contract 26.1, 26.2), `npm run bench -- --notifications [--quick]` (also alone: `npx tsx
 * bench/notifications.ts [--quick] [--no-pglite] [--no-postgres]`). On PostgreSQL (DATABASE_URL's server, scratch
 * databases of its own) and on PGlite (data folders of its own):
 *
 * 1. PATCH of an issue with 20 watchers (its priority, so every request tells all 20), against the commit before
 *    notifications (4d224a8) built in a git worktree of this repository and run as its own server on a database of its
 *    own, seeded the same way (its schema has no watchers: the PATCH writes what it wrote then). Both servers are the
 *    real `bench/server.ts` of their commit, jobs off. 50 issues, requests round-robin over them, 10 (PGlite 4)
 *    concurrent clients, interleaved rounds; requests/s, ratio of the medians (target >= 0.85).
 * 2. The inbox of one user with 100,000 notifications: `unread-count` (target p95 <= 10 ms) and the first page of
 *    the inbox (target p95 <= 20 ms), sequential requests after a warm-up, in two shapes: "kept" (1,000 unread, 20,000
 *    in the inbox, the rest archived: a user who archives) and "never archived" (all 100,000 in the inbox, 10,000
 *    unread).
 * Writes bench/results/notifications.md.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openPglite } from '../src/db/database.js';
import { startServer } from './bench-server.js';
import { type Query, rawKysely } from './raw.js';
import { insertUserWithToken, insertWorkspace } from './seed.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BASE_COMMIT = '4d224a8';
const log = (...a: unknown[]) => console.error(...a);
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]! : NaN;
};
const r1 = (v: number) => Math.round(v * 10) / 10;
const f2 = (v: number) => (Math.floor(v * 100) / 100).toFixed(2);
const median = (xs: number[]) => quantile(xs, 0.5);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

// ---- servers ---------------------------------------------------------------------------------------------------------

interface Server {
  base: string;
  stop(): Promise<void>;
}

/** `bench/server.ts` of a checkout (`root`), on a database (PostgreSQL URL, or a PGlite folder); jobs off. */
function startAt(root: string, db: { url: string } | { dir: string }): Promise<Server> {
  return 'url' in db ? startServer(db.url, false, {}, root) : startServer('', false, { DATA_DIR: db.dir }, root);
}

/**
 * A worktree of a commit, sharing this checkout's node_modules: the commit before notifications, and HEAD (so that
 * what is measured is what is committed, not another engineer's work in progress in this checkout).
 */
function worktreeAt(commit: string): { root: string; commit: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'wis-notif-tree-'));
  rmSync(root, { recursive: true, force: true });
  execFileSync('git', ['worktree', 'add', '--detach', root, commit], { cwd: ROOT, stdio: 'ignore' });
  if (!existsSync(join(root, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return {
    root,
    commit: execFileSync('git', ['rev-parse', '--short', commit], { cwd: ROOT }).toString().trim(),
    remove: () => execFileSync('git', ['worktree', 'remove', '--force', root], { cwd: ROOT, stdio: 'ignore' }),
  };
}

// ---- seeding ---------------------------------------------------------------------------------------------------------

interface Seeded {
  slug: string;
  token: string;
  projectId: string;
  issueIds: string[];
  /** The one user of the inbox measurements (a watcher), with a token. */
  reader: { userId: string; token: string };
  workspaceId: string;
}

/** A workspace, 20 members besides its admin, a project with states and 50 issues; watchers only where the schema has them. */
async function seed(q: Query, watchers: boolean): Promise<Seeded> {
  const now = new Date();
  const tag = randomUUID().slice(0, 8);
  const admin = await insertUserWithToken(q, `notif-admin-${tag}@bench.example`, now);
  const slug = `notif-${tag}`;
  const workspaceId = await insertWorkspace(q, admin.userId, slug, now);
  const members: { userId: string; token: string }[] = [];
  for (let n = 0; n < 20; n++) {
    const m = await insertUserWithToken(q, `notif-m${n}-${tag}@bench.example`, now);
    await q(`insert into workspace_members (workspace_id, user_id, role, created_at) values ($1, $2, 'member', $3)`, [workspaceId, m.userId, now]);
    members.push(m);
  }
  const projectId = randomUUID();
  await q(
    `insert into projects (id, workspace_id, name, identifier, description, issue_seq, created_by, created_at, updated_at) values ($1, $2, 'Notify', 'NTF', '', 50, $3, $4, $4)`,
    [projectId, workspaceId, admin.userId, now],
  );
  const stateId = randomUUID();
  await q(
    `insert into states (id, workspace_id, project_id, name, "group", color, sequence, is_default, created_at, updated_at) values ($1, $2, $3, 'Todo', 'unstarted', '#888888', 1000, true, $4, $4)`,
    [stateId, workspaceId, projectId, now],
  );
  const issueIds: string[] = [];
  for (let i = 1; i <= 50; i++) {
    const id = randomUUID();
    issueIds.push(id);
    await q(
      `insert into issues (id, workspace_id, project_id, sequence_id, name, description, state_id, state_group, priority, created_by, created_at, updated_at)
       values ($1, $2, $3, $4, $5, '', $6, 'unstarted', 'none', $7, $8, $8)`,
      [id, workspaceId, projectId, i, `Issue ${i}`, stateId, admin.userId, now],
    );
    if (watchers) {
      await q(`insert into issue_watchers (workspace_id, issue_id, user_id, source, created_at) select $1, $2, u, 'manual', $3 from unnest($4::uuid[]) u`, [
        workspaceId,
        id,
        now,
        members.map((m) => m.userId),
      ]);
    }
  }
  return { slug, token: admin.token, projectId, issueIds, reader: members[0]!, workspaceId };
}

/** `total` notifications for the reader, `inbox` of them not archived, `unread` of those unread, by SQL in one statement. */
async function seedInbox(q: Query, s: Seeded, shape: { total: number; inbox: number; unread: number }) {
  await q(`delete from notifications where user_id = $1`, [s.reader.userId]);
  await q(
    `insert into notifications (id, workspace_id, user_id, issue_id, kind, actor_id, data, created_at, read_at, archived_at)
     select gen_random_uuid(), $1, $2, ($3::uuid[])[1 + g % 50], (array['assigned','commented','state_changed','priority_changed'])[1 + g % 4],
            null, jsonb_build_object('project_id', $4::text, 'from', 'none', 'to', 'high'),
            now() - make_interval(secs => g * 30),
            case when g < $5 then null else now() end,
            case when g < $6 then null else now() end
     from generate_series(0, $7 - 1) g`,
    [s.workspaceId, s.reader.userId, s.issueIds, s.projectId, shape.unread, shape.inbox, shape.total],
  );
  await q(`vacuum analyze notifications`);
}

// ---- measuring ---------------------------------------------------------------------------------------------------------

/** Requests/s of PATCH priority over the issues, `clients` at a time for `seconds`. */
async function patchRate(server: Server, s: Seeded, clients: number, seconds: number): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  let next = 0;
  const priorities = ['high', 'low'];
  const worker = async () => {
    while (Date.now() < until) {
      const i = next++;
      const issueId = s.issueIds[i % s.issueIds.length]!;
      const res = await fetch(`${server.base}/api/workspaces/${s.slug}/projects/${s.projectId}/issues/${issueId}/`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ priority: priorities[Math.floor(i / s.issueIds.length) % 2] }),
      });
      if (res.status !== 200) throw new Error(`PATCH answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      done++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: clients }, worker));
  return done / ((Date.now() - started) / 1000);
}

async function latencies(server: Server, token: string, path: string, n: number) {
  const times: number[] = [];
  for (let i = 0; i < n + 10; i++) {
    const t0 = performance.now();
    const res = await fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    await res.arrayBuffer();
    if (i >= 10) times.push(performance.now() - t0);
  }
  return { p50: r1(quantile(times, 0.5)), p95: r1(quantile(times, 0.95)) };
}

interface Tree {
  key: string;
  label: string;
  root: string;
  watchers: boolean;
}

interface Side {
  name: string;
  server: Server;
  seeded: Seeded;
}

/** Requests/s of each side, the median of interleaved rounds (the order rotates each round). */
async function patchRounds(sides: Side[], clients: number, rounds: number, seconds: number) {
  const rates: number[][] = sides.map(() => []);
  for (const side of sides) await patchRate(side.server, side.seeded, clients, 2); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const i = (k + r) % sides.length;
      const rate = await patchRate(sides[i]!.server, sides[i]!.seeded, clients, seconds);
      log(`  ${sides[i]!.name}: ${Math.round(rate)} requests/s`);
      rates[i]!.push(rate);
    }
  }
  return rates.map(median);
}

/** The rows of the PATCH table and the two ratios. */
function patchLines(sides: Side[], rates: number[]): string[] {
  const [all, notifications, off, before] = rates as [number, number, number, number];
  return [
    '| server | requests/s | against before | against turned off |',
    '|---|---:|---:|---:|',
    ...sides.map((side, i) => `| ${side.name} | ${Math.round(rates[i]!)} | ${f2(rates[i]! / before)} | ${f2(rates[i]! / off)} |`),
    '',
    `Notifications alone against the commit before: **${f2(notifications / before)}**, against the same commit turned off: ` +
      `**${f2(notifications / off)}**; with the mail module's listener: ${f2(all / before)} (target ≥ 0.85).`,
    '',
  ];
}

async function inboxLines(q: Query, server: Server, s: Seeded, n: number, total: number): Promise<string[]> {
  const lines: string[] = [];
  const shapes = [
    { label: 'kept: 1,000 unread, 20,000 in the inbox, the rest archived', total, inbox: Math.round(total / 5), unread: Math.round(total / 100) },
    { label: 'never archived: all in the inbox, 10,000 unread', total, inbox: total, unread: Math.round(total / 10) },
  ];
  lines.push('| shape | unread-count p50 / p95 ms | inbox first page p50 / p95 ms | unread page p50 / p95 ms |', '|---|---:|---:|---:|');
  for (const shape of shapes) {
    await seedInbox(q, s, shape);
    const count = await latencies(server, s.reader.token, '/api/users/me/notifications/unread-count/', n);
    const page = await latencies(server, s.reader.token, '/api/users/me/notifications/', n);
    const unread = await latencies(server, s.reader.token, '/api/users/me/notifications/?unread=true', n);
    lines.push(`| ${shape.label} | ${count.p50} / **${count.p95}** | ${page.p50} / **${page.p95}** | ${unread.p50} / ${unread.p95} |`);
  }
  lines.push('', `Targets: unread-count p95 ≤ 10 ms, first page p95 ≤ 20 ms. ${n} sequential requests each after 10 of warm-up; load ${load()}.`, '');
  return lines;
}

// ---- the two kinds of database -------------------------------------------------------------------------------------------------

async function runPostgres(url: string, quick: boolean, trees: Tree[]): Promise<string[]> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const prefix = `${new URL(url).pathname.slice(1) || 'postgres'}_bench_notif`;
  const names = trees.map((t) => `${prefix}_${t.key}`);
  const urlOf = (name: string) => {
    const u = new URL(url);
    u.pathname = `/${name}`;
    return u.toString();
  };
  for (const name of names) {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  }
  const servers: Server[] = [];
  const clients: pg.Client[] = [];
  try {
    const sides: Side[] = [];
    for (const tree of trees) {
      const name = `${prefix}_${tree.key}`;
      const server = await startAt(tree.root, { url: urlOf(name) }); // migrates its own schema
      servers.push(server);
      const client = new pg.Client({ connectionString: urlOf(name) });
      await client.connect();
      clients.push(client);
      const q: Query = async (text, params = []) => {
        const r = await client.query(text, [...params]);
        return { rows: r.rows, rowCount: r.rowCount ?? 0 };
      };
      sides.push({ name: tree.label, server, seeded: await seed(q, tree.watchers) });
    }
    const rounds = quick ? 2 : 4;
    const seconds = quick ? 3 : 8;
    const rates = await patchRounds(sides, Number(process.env.BENCH_NOTIF_CLIENTS ?? 10), rounds, seconds);
    const q0: Query = async (text, params = []) => {
      const r = await clients[0]!.query(text, [...params]);
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    };
    const written = (await q0(`select count(*)::int as n from notifications`)).rows[0]!.n as number;
    const lines = [
      '### PostgreSQL',
      '',
      `PATCH priority of issues with 20 watchers each (50 issues round-robin), 10 clients, ${rounds} interleaved rounds of ${seconds} s; load ${load()}:`,
      '',
      ...patchLines(sides, rates),
      `${written.toLocaleString('en')} notifications written by the runs with notifications (20 per PATCH).`,
      '',
      `Inbox of one user with ${(quick ? 20_000 : 100_000).toLocaleString('en')} notifications:`,
      '',
      ...(await inboxLines(q0, sides[0]!.server, sides[0]!.seeded, quick ? 50 : 200, quick ? 20_000 : 100_000)),
    ];
    return lines;
  } finally {
    for (const s of servers) await s.stop();
    for (const c of clients) await c.end();
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

async function runPglite(quick: boolean, trees: Tree[]): Promise<string[]> {
  const dirs = trees.map(() => mkdtempSync(join(tmpdir(), 'wis-bench-notif-')));
  const servers: Server[] = [];
  try {
    const sides: Side[] = [];
    const seeded: Seeded[] = [];
    for (const [i, tree] of trees.entries()) {
      // The server creates and migrates the folder; it is seeded while no server holds it (PGlite is one session).
      await (await startAt(tree.root, { dir: dirs[i]! })).stop();
      const database = await openPglite(dirs[i]!);
      seeded.push(await seed(rawKysely(database.db).query, tree.watchers));
      await database.close();
    }
    for (const [i, tree] of trees.entries()) {
      const server = await startAt(tree.root, { dir: dirs[i]! });
      servers.push(server);
      sides.push({ name: tree.label, server, seeded: seeded[i]! });
    }
    const rounds = quick ? 2 : 4;
    const seconds = quick ? 3 : 8;
    const rates = await patchRounds(sides, 4, rounds, seconds);
    const lines = [
      '### PGlite',
      '',
      `PATCH priority of issues with 20 watchers each (50 issues round-robin), 4 clients, ${rounds} interleaved rounds of ${seconds} s; load ${load()}:`,
      '',
      ...patchLines(sides, rates),
    ];
    // The inbox: seeded while the server is down, then measured.
    for (const server of servers) await server.stop();
    servers.length = 0;
    const total = quick ? 20_000 : 100_000;
    const n = quick ? 50 : 200;
    lines.push(`Inbox of one user with ${total.toLocaleString('en')} notifications:`, '');
    lines.push('| shape | unread-count p50 / p95 ms | inbox first page p50 / p95 ms | unread page p50 / p95 ms |', '|---|---:|---:|---:|');
    const shapes = [
      { label: 'kept: 1,000 unread, 20,000 in the inbox, the rest archived', total, inbox: Math.round(total / 5), unread: Math.round(total / 100) },
      { label: 'never archived: all in the inbox, 10,000 unread', total, inbox: total, unread: Math.round(total / 10) },
    ];
    for (const shape of shapes) {
      const database = await openPglite(dirs[0]!);
      await seedInbox(rawKysely(database.db).query, seeded[0]!, shape);
      await database.close();
      const server = await startAt(trees[0]!.root, { dir: dirs[0]! });
      try {
        const count = await latencies(server, seeded[0]!.reader.token, '/api/users/me/notifications/unread-count/', n);
        const page = await latencies(server, seeded[0]!.reader.token, '/api/users/me/notifications/', n);
        const unread = await latencies(server, seeded[0]!.reader.token, '/api/users/me/notifications/?unread=true', n);
        lines.push(`| ${shape.label} | ${count.p50} / **${count.p95}** | ${page.p50} / **${page.p95}** | ${unread.p50} / ${unread.p95} |`);
      } finally {
        await server.stop();
      }
    }
    lines.push('', `Targets: unread-count p95 ≤ 10 ms, first page p95 ≤ 20 ms. ${n} sequential requests each after 10 of warm-up; load ${load()}.`, '');
    return lines;
  } finally {
    for (const s of servers) await s.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

export async function runNotificationsBench(o: { databaseUrl: string | null; quick: boolean; pglite: boolean; postgres: boolean }): Promise<string> {
  const lines = [
    '## Notifications (contract 26.1, 26.2)',
    '',
    `\`npm run bench -- --notifications\` (bench/notifications.ts). "Before" is commit ${BASE_COMMIT} (the commit before the ` +
      'first notifications commit) checked out in a git worktree and run as its own server on its own database, seeded the same way.',
    '',
  ];
  const head = worktreeAt('HEAD');
  const noMail = worktreeAt('HEAD');
  const off = worktreeAt('HEAD');
  const base = worktreeAt(BASE_COMMIT);
  /** Takes lines out of a worktree's src/services.ts (each must be there). */
  const cut = (root: string, remove: string[]) => {
    const path = join(root, 'src', 'services.ts');
    let text = readFileSync(path, 'utf8');
    for (const line of remove) {
      if (!text.includes(`${line}\n`)) throw new Error(`bench/notifications.ts: no line "${line}" in src/services.ts`);
      text = text.replace(`${line}\n`, '');
    }
    writeFileSync(path, text);
  };
  const MAIL = '  notifications.onCreated(mail.onNotifications);';
  cut(noMail.root, [MAIL]);
  // The same commit with the notifications turned off: no subscriber on the work-item events, no `watching`.
  cut(off.root, ['  notifications.subscribe(events);', '  workItems.registerIssueWatching(notifications.watchingOf);', MAIL]);
  const trees: Tree[] = [
    { key: 'head', label: `HEAD ${head.commit} (notifications and their mails)`, root: head.root, watchers: true },
    { key: 'nomail', label: `HEAD ${head.commit}, the mail module's listener taken out (notifications only)`, root: noMail.root, watchers: true },
    { key: 'off', label: `HEAD ${head.commit}, notifications turned off`, root: off.root, watchers: true },
    { key: 'base', label: `before (${base.commit})`, root: base.root, watchers: false },
  ];
  lines.push(
    `Four servers, each from a git worktree of its own: HEAD as committed; HEAD without the mail module's listener on new ` +
      `notifications (\`${MAIL.trim()}\` taken out of src/services.ts: what this module costs); HEAD with ` +
      '`notifications.subscribe(events)`, the `watching` provider and the listener taken out (the fair twin within one commit: ' +
      `the other modules committed since are in all three); and ${base.commit}.`,
    '',
  );
  try {
    if (o.postgres && o.databaseUrl) lines.push(...(await runPostgres(o.databaseUrl, o.quick, trees)));
    if (o.pglite) lines.push(...(await runPglite(o.quick, trees)));
  } finally {
    for (const tree of [head, noMail, off, base]) tree.remove();
  }
  return lines.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const md = await runNotificationsBench({
    databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    quick: argv.includes('--quick'),
    pglite: !argv.includes('--no-pglite'),
    postgres: !argv.includes('--no-postgres'),
  });
  console.log(md);
  if (!argv.includes('--quick')) writeFileSync(join(ROOT, 'bench', 'results', 'notifications.md'), `${md.trimEnd()}\n`);
  process.exit(0);
}
