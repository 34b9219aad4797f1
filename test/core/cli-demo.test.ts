import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { DateTime } from 'luxon';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { CliContext } from '../../src/cli/cli.js';
import { demoCommand } from '../../src/cli/commands/demo.js';
import type { DemoBackend } from '../../src/cli/demo/demo.backend.js';
import { httpBackend } from '../../src/cli/demo/demo.http.js';
import { inProcessBackend } from '../../src/cli/demo/demo.in-process.js';
import { demoPlan, LABELS, PROJECT_LABELS, SEARCH_EXAMPLES } from '../../src/cli/demo/demo.plan.js';
import { DEMO_FILES } from '../../src/cli/demo/demo.files.js';
import { searchRepository } from '../../src/modules/search/search.repository.js';
import { parseSearchQuery, tsqueryText } from '../../src/modules/search/search.rules.js';
import { runDemo } from '../../src/cli/demo/demo.runner.js';
import { DEMO_STEPS } from '../../src/cli/demo/demo.steps.js';
import { loadConfig } from '../../src/config/config.js';
import { type DatabaseHandle, type Db, openDatabase } from '../../src/db/database.js';
import { clientFor, expectSuccess } from '../helpers/client.js';
import { openTestDatabase } from '../helpers/databases.js';
import { startTestApp, useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();
// The demo's attachments go to a folder of this file's own, never the checkout's ./data.
const filesDir = mkdtempSync(join(tmpdir(), 'wis-demo-files-'));
afterAll(() => rmSync(filesDir, { recursive: true, force: true }));
const config = () => loadConfig({ LOG_LEVEL: 'silent', STORAGE_DIR: filesDir });
const freshDatabase = () => openTestDatabase({ pgliteTemplate: inject('pgliteTemplate'), postgresTemplate: inject('postgresTemplate') });

/** Rows of every table that has a `workspace_id`, for the demo workspace: what "the same data" is compared by. */
async function counts(db: Db): Promise<Record<string, number>> {
  const ws = await db.selectFrom('workspaces').select('id').where('slug', '=', 'demo').executeTakeFirstOrThrow();
  const tables = await sql<{ table_name: string }>`
    SELECT c.table_name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
    WHERE c.column_name = 'workspace_id' AND c.table_schema = current_schema() ORDER BY c.table_name`.execute(db);
  const out: Record<string, number> = {};
  for (const { table_name } of tables.rows) {
    const row = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table_name)} WHERE workspace_id = ${ws.id}`.execute(db);
    out[table_name] = row.rows[0]!.n;
  }
  return out;
}

async function inProcess(database: DatabaseHandle, lines: string[] = []) {
  const api = await inProcessBackend(config(), database, 'the test database');
  return { api, out: (line: string) => lines.push(line), lines };
}

async function demoOn(database: DatabaseHandle, options: { issueCount?: number; stopAfter?: number; wrap?: (api: DemoBackend) => DemoBackend } = {}) {
  const lines: string[] = [];
  const { api } = await inProcess(database, lines);
  try {
    const result = await runDemo(options.wrap ? options.wrap(api) : api, { out: (l) => lines.push(l), ...options });
    return { result, text: lines.join('\n') };
  } finally {
    await api.close();
  }
}

/**
 * What the planning features show of the demo: the workspace's time zone, dates and estimates on most issues, time
 * logged in several weeks by three people, and Web Platform's issues completed (history entries into a completed
 * state, as the forecast counts them) in at least ten of the last twelve full weeks (Mondays in the time zone).
 */
async function planningAndHistory(db: Db) {
  const ws = await db.selectFrom('workspaces').select(['id', 'time_zone']).where('slug', '=', 'demo').executeTakeFirstOrThrow();
  expect(ws.time_zone).toBe('Europe/Istanbul');
  const planned = await db
    .selectFrom('issues')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', ws.id)
    .where('target_date', 'is not', null)
    .executeTakeFirstOrThrow();
  expect(Number(planned.n)).toBeGreaterThan(150);
  const logs = await db.selectFrom('worklogs').select(['user_id', 'started_at']).where('workspace_id', '=', ws.id).execute();
  expect(new Set(logs.map((l) => l.user_id)).size).toBe(3);
  const weekOf = (at: Date) => DateTime.fromJSDate(at, { zone: ws.time_zone }).startOf('week').toISODate()!;
  expect(new Set(logs.map((l) => weekOf(new Date(l.started_at)))).size).toBeGreaterThanOrEqual(8);
  const web = await db.selectFrom('projects').select('id').where('workspace_id', '=', ws.id).where('identifier', '=', 'WEB').executeTakeFirstOrThrow();
  const entries = await db
    .selectFrom('issue_history as h')
    .innerJoin('issues as i', 'i.id', 'h.issue_id')
    .select(['h.at', 'h.to'])
    .where('i.project_id', '=', web.id)
    .where('h.kind', '=', 'state')
    .execute();
  const thisWeek = DateTime.now().setZone(ws.time_zone).startOf('week');
  const weeks = new Set(
    entries
      .filter((e) => (typeof e.to === 'string' ? JSON.parse(e.to) : e.to)?.group === 'completed')
      .map((e) => weekOf(new Date(e.at)))
      .filter((w) => w < thisWeek.toISODate()! && w >= thisWeek.minus({ weeks: 12 }).toISODate()!),
  );
  expect(weeks.size).toBeGreaterThanOrEqual(10);
}

/**
 * What the work-item core shows of the demo (contract 24): each project's labels with distinct colours, labels on most
 * sprint issues (at most three each), the sub-issue trees with their progress (one two levels deep), and relations,
 * one across the projects and one issue blocked by an open one. Read through the API, as the console reads them.
 */
async function workItemCore(db: Db, url: string, issueCount = 240) {
  const plan = demoPlan(issueCount);
  const ws = await db.selectFrom('workspaces').select('id').where('slug', '=', 'demo').executeTakeFirstOrThrow();
  const signIn = await clientFor(url).POST('/api/auth/sign-in/', { body: { email: 'demo@example.com', password: 'demo-password' } });
  const api = clientFor(url, signIn.data!.token);
  const slug = 'demo';
  const projects = expectSuccess(await api.GET('/api/workspaces/{slug}/projects/', { params: { path: { slug } } }));
  const projectKey = new Map(projects.map((p) => [p.id, p.identifier as 'SD' | 'WEB']));
  for (const project of projects) {
    const labels = expectSuccess(await api.GET('/api/workspaces/{slug}/projects/{projectId}/labels/', { params: { path: { slug, projectId: project.id } } }));
    const key = projectKey.get(project.id)!;
    expect(labels.map((l) => l.name).sort()).toEqual([...PROJECT_LABELS[key]].sort());
    expect(labels.map((l) => l.color)).toEqual(labels.map((l) => LABELS[l.name as keyof typeof LABELS].color));
    expect(new Set(labels.map((l) => l.color)).size).toBe(labels.length);
  }

  const issues = await db.selectFrom('issues').select(['id', 'name', 'project_id', 'label_ids', 'parent_id']).where('workspace_id', '=', ws.id).execute();
  const sprint = new Set(plan.issues.map((i) => i.name));
  const sprintIssues = issues.filter((i) => sprint.has(i.name));
  expect(sprintIssues).toHaveLength(issueCount);
  const labelled = sprintIssues.filter((i) => i.label_ids.length > 0);
  expect(labelled).toHaveLength(plan.issues.filter((i) => i.labels.length > 0).length);
  expect(labelled.length).toBeGreaterThanOrEqual(issueCount / 2);
  expect(Math.max(...issues.map((i) => i.label_ids.length))).toBe(3);

  // Every parent of the trees counts its direct children, and how many of them are completed.
  const byName = new Map(issues.map((i) => [i.name, i]));
  const issueOf = (name: string) => {
    const issue = byName.get(name)!;
    return api.GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', {
      params: { path: { slug, projectId: issue.project_id, issueId: issue.id } },
    });
  };
  const parents = plan.subIssues.filter((s) => plan.subIssues.some((c) => c.parent === s.name));
  expect(parents.length).toBeGreaterThanOrEqual(4);
  for (const parent of parents) {
    const children = plan.subIssues.filter((c) => c.parent === parent.name);
    expect(children.length).toBeGreaterThanOrEqual(2);
    expect(children.length).toBeLessThanOrEqual(5);
    const view = expectSuccess(await issueOf(parent.name));
    expect(view.sub_issues).toEqual({ total: children.length, completed: children.filter((c) => c.state === 'completed').length });
    for (const child of children) expect(byName.get(child.name)!.parent_id).toBe(view.id);
  }
  expect(expectSuccess(await issueOf('Checkout redesign')).sub_issues).toEqual({ total: 4, completed: 2 });
  // Two levels deep: a sub-issue of a sub-issue.
  const grandchild = expectSuccess(await issueOf('3-D Secure: redirect to the bank and back'));
  const child = issues.find((i) => i.id === grandchild.parent_id)!;
  expect(child.name).toBe('Checkout: card form with 3-D Secure');
  expect(issues.find((i) => i.id === child.parent_id)!.name).toBe('Checkout redesign');

  // Relations: stored once each, one across the projects, each listed from both sides with the inverse type.
  const relations = await db
    .selectFrom('issue_relations as r')
    .innerJoin('issues as a', 'a.id', 'r.issue_id')
    .innerJoin('issues as b', 'b.id', 'r.related_issue_id')
    .select(['r.type', 'a.project_id as from_project', 'b.project_id as to_project', 'a.state_group as from_group'])
    .where('r.workspace_id', '=', ws.id)
    .execute();
  expect(relations).toHaveLength(plan.relations.length);
  expect(relations.some((r) => r.from_project !== r.to_project)).toBe(true);
  const receipt = expectSuccess(await issueOf('Checkout: receipt e-mail'));
  expect(receipt.blocked).toBe(true);
  const blockers = expectSuccess(
    await api.GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/relations/', {
      params: { path: { slug, projectId: receipt.project_id, issueId: receipt.id } },
    }),
  );
  expect(blockers).toEqual([expect.objectContaining({ type: 'blocked_by', issue: expect.objectContaining({ name: 'Checkout: card form with 3-D Secure' }) })]);
  expect(blockers[0]!.issue.state.group).toBe('started');
  const blocker = blockers[0]!.issue;
  const blocks = expectSuccess(
    await api.GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/relations/', {
      params: { path: { slug, projectId: blocker.project_id, issueId: blocker.id } },
    }),
  );
  expect(blocks).toEqual([expect.objectContaining({ type: 'blocks', issue: expect.objectContaining({ id: receipt.id }) })]);
  const vat = expectSuccess(await issueOf('Invoice PDF: wrong VAT for EU customers'));
  const across = expectSuccess(
    await api.GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/relations/', {
      params: { path: { slug, projectId: vat.project_id, issueId: vat.id } },
    }),
  );
  expect(across).toEqual([expect.objectContaining({ type: 'relates_to', issue: expect.objectContaining({ name: 'Checkout: VAT on the order summary' }) })]);
  expect(projectKey.get(across[0]!.issue.project_id)).toBe('WEB');
  return { relations };
}

const addedNothing = (result: Awaited<ReturnType<typeof runDemo>>) => result.added.every((s) => s.added.length === 0);

describe('cli demo, in process', () => {
  it('fills the database of a running service through the module services, and a second run adds nothing and leaves the same data', async () => {
    // The service runs on this database (on PostgreSQL that is how it always is): the demo needs no HTTP.
    const first = await demoOn(ctx().database);
    expect(first.text).toMatch(/subscription\s+added Pro plan paid on the sandbox's payment page .*subscription active/);
    expect(first.text).toMatch(/issues, first sprint\s+added 120 issues, \d+ custom values, \d+ comments, labels on \d+ issues/);
    expect(first.text).toMatch(/labels\s+added 6 labels of Service Desk \(bug, .*\); 6 labels of Web Platform/);
    expect(first.text).toMatch(/sub-issues\s+added 20 issues in 4 sub-issue trees, 8 of them completed/);
    expect(first.text).toMatch(/relations\s+added WEB-\d+ blocked by WEB-\d+; .*SD-\d+ duplicate of SD-\d+; SD-\d+ blocked by WEB-\d+/);
    expect(first.text).toMatch(/Done in [\d.]+ s\. Workspace "demo": [1-9]\d* breached and \d+ at-risk SLA trackers now/);
    const before = await counts(ctx().database.db);
    const plan = demoPlan();
    const worklogs = plan.history.reduce((n, h) => n + h.worklogs.length, 0) + [...plan.worklogs.values()].reduce((n, w) => n + w.length, 0);
    expect(before).toMatchObject({
      // 240 issues of the sprints, 42 of the SLA history (6 weeks of 7), the delivery history's, the sub-issue trees'.
      issues: 240 + 42 + plan.history.length + plan.subIssues.length + SEARCH_EXAMPLES.length,
      projects: 2,
      labels: 12,
      issue_relations: plan.relations.length,
      baselines: 2,
      // the checkout that stored the card, and its renewal a month later (19.2)
      payments: 2,
      invoices: 2,
      payment_methods: 1,
      workspace_members: 4,
      webhook_endpoints: 1,
      worklogs,
      attachments: DEMO_FILES.length,
    });
    expect(first.text).toMatch(/attachments\s+added 3 files attached/);
    expect(first.text).toMatch(/search examples\s+added 5 requests in Turkish and English to search for/);
    // The demo's text is searchable in Turkish and English (contract 23.1).
    const demo = await ctx().database.db.selectFrom('workspaces').select('id').where('slug', '=', 'demo').executeTakeFirstOrThrow();
    for (const q of ['odeme', 'istanbul', 'ışık', 'deploying', 'kdv fatura']) {
      const text = tsqueryText(parseSearchQuery(q));
      const found = await searchRepository().search(ctx().database.db, {
        workspaceId: demo.id,
        text,
        keyIds: [],
        filter: {},
        offset: 0,
        limit: 5,
      });
      expect(found.found, q).toBeGreaterThan(0);
    }
    expect(first.text).toMatch(/renewal\s+added renewal charged to the stored card/);
    expect(first.text).toMatch(/a workspace in dunning\s+added .*renewal declined: subscription past_due, 1 attempt/);
    const dunning = await ctx()
      .database.db.selectFrom('subscriptions as s')
      .innerJoin('workspaces as w', 'w.id', 's.workspace_id')
      .select(['s.status', 's.dunning_attempts'])
      .where('w.slug', '=', 'demo-dunning')
      .executeTakeFirstOrThrow();
    expect(dunning).toEqual({ status: 'past_due', dunning_attempts: 1 });
    expect(first.text).toMatch(/workspace time zone\s+added time zone Europe\/Istanbul/);
    expect(first.text).toMatch(/worklogs\s+added \d+ worklogs \(\d+ hours\) by 3 people/);
    await planningAndHistory(ctx().database.db);
    // The full demo finds every relation it plans: three in the trees, a duplicate, a blocker across the projects, a
    // related pair across them.
    expect(plan.relations.map((r) => r.type)).toEqual(['blocked_by', 'blocked_by', 'relates_to', 'duplicate_of', 'blocked_by', 'relates_to']);
    // Most sprint issues carry labels, some none.
    expect(plan.issues.filter((i) => i.labels.length === 0).length).toBeGreaterThan(0);
    const { relations } = await workItemCore(ctx().database.db, ctx().url);
    expect(relations.filter((r) => r.type === 'duplicate_of').map((r) => r.from_group)).toEqual(['cancelled']);

    // What the API shows: the same records, with two weeks of history behind them.
    const signIn = await clientFor(ctx().url).POST('/api/auth/sign-in/', { body: { email: 'demo@example.com', password: 'demo-password' } });
    const api = clientFor(ctx().url, signIn.data!.token);
    const slug = 'demo';
    const projects = (await api.GET('/api/workspaces/{slug}/projects/', { params: { path: { slug } } })).data!;
    expect(projects.map((p) => p.identifier).sort()).toEqual(['SD', 'WEB']);
    const desk = projects.find((p) => p.identifier === 'SD')!;
    const baselines = (await api.GET('/api/workspaces/{slug}/projects/{projectId}/baselines/', { params: { path: { slug, projectId: desk.id } } })).data!;
    expect(baselines.map((b) => b.name).sort()).toEqual(['Sprint 1 start', 'Sprint 2 start']);
    // Saved views (23.3): "My issues" runs for whoever asks, the desk's urgent queue has issues in it.
    const views = (await api.GET('/api/workspaces/{slug}/views/', { params: { path: { slug } } })).data!;
    expect(views.map((v) => v.name)).toEqual(['My issues', 'Urgent and high, open']);
    const urgent = (
      await api.GET('/api/workspaces/{slug}/views/{viewId}/issues/', { params: { path: { slug, viewId: views[1]!.id }, query: { offset: 0, per_page: 5 } } })
    ).data!;
    expect(urgent.total).toBeGreaterThan(0);
    expect(urgent.results.every((i) => ['urgent', 'high'].includes(i.priority))).toBe(true);
    const issues = (
      await api.GET('/api/workspaces/{slug}/projects/{projectId}/issues/', {
        params: { path: { slug, projectId: desk.id }, query: { offset: 0, per_page: 100 } },
      })
    ).data!;
    const ages = issues.results.map((i) => Date.now() - Date.parse(i.created_at));
    expect(Math.max(...ages)).toBeGreaterThan(5 * 86_400_000);

    // Issue 41: a team's data. Most issues have an assignee (the demo user some of the open ones: the home's "my
    // issues"), and the issues worked on were created to do and moved on later, so the SLA report's medians are not 0.
    expect(first.text).toMatch(/issues, first sprint\s+added 120 issues, .*, assignees on \d+ issues, [1-9]\d* state changes as the work went on/);
    const sprintNames = new Set(plan.issues.map((i) => i.name));
    const sprint = (await ctx().database.db.selectFrom('issues').select(['name', 'assignee_ids']).where('workspace_id', '=', demo.id).execute()).filter((i) =>
      sprintNames.has(i.name),
    );
    expect(sprint.filter((i) => i.assignee_ids.length > 0).length).toBeGreaterThan(sprint.length * 0.8);
    const mine = expectSuccess(
      await api.GET('/api/workspaces/{slug}/issues/', {
        params: { path: { slug }, query: { assignee_id: 'me', state_group: ['backlog', 'unstarted', 'started'], offset: 0, per_page: 1 } },
      }),
    );
    expect(mine.total).toBeGreaterThan(10);
    const day = (ms: number) => DateTime.fromMillis(ms, { zone: 'Europe/Istanbul' }).toISODate()!;
    const report = expectSuccess(
      await api.GET('/api/workspaces/{slug}/sla-reports/', {
        params: { path: { slug }, query: { from: day(Date.now() - 89 * 86_400_000), to: day(Date.now()), group_by: 'priority', format: 'json' } },
      }),
    );
    if (typeof report === 'string') throw new Error('the report came as CSV');
    expect(report.rows.map((r) => r.key).sort()).toEqual(['high', 'low', 'medium', 'urgent']);
    for (const row of report.rows) {
      expect(row.response.median_seconds, `${row.key} response`).toBeGreaterThan(0);
      expect(row.resolution.median_seconds, `${row.key} resolution`).toBeGreaterThan(0);
    }

    // Being told (contract 26): an inbox with unread, read and snoozed notifications, and a pending invitation.
    expect(first.text).toMatch(
      /inbox and invitation\s+added an inbox of \d+ notifications \(one read, one snoozed until tomorrow\); an invitation for newcomer\.demo@example\.com/,
    );
    const inbox = expectSuccess(await api.GET('/api/users/me/notifications/', { params: { query: { offset: 0, per_page: 100 } } }));
    const kinds = new Set(inbox.results.map((n) => n.kind));
    for (const kind of ['assigned', 'mentioned', 'priority_changed']) expect(kinds, kind).toContain(kind);
    expect(inbox.results.some((n) => n.read_at !== null)).toBe(true);
    expect(inbox.unread_count).toBeGreaterThan(0);
    expect(inbox.results.some((n) => n.kind === 'commented')).toBe(false);
    const snoozed = await ctx()
      .database.db.selectFrom('notifications as n')
      .innerJoin('users as u', 'u.id', 'n.user_id')
      .select('n.kind')
      .where('u.email', '=', 'demo@example.com')
      .where('n.snoozed_until', 'is not', null)
      .execute();
    expect(snoozed.map((n) => n.kind)).toEqual(['commented']);
    const invitations = expectSuccess(await api.GET('/api/workspaces/{slug}/invitations/', { params: { path: { slug } } }));
    expect(invitations.map((i) => i.email)).toEqual(['newcomer.demo@example.com']);

    const second = await demoOn(ctx().database);
    expect(addedNothing(second.result)).toBe(true);
    expect(second.text).toMatch(/The demo was complete: nothing to add/);
    expect(second.text.match(/nothing to add \(/g)).toHaveLength(DEMO_STEPS.length);
    expect(await counts(ctx().database.db)).toEqual(before);
  }, 180_000);

  it('a run that stopped after a step, or crashed in the middle of one, is completed by the next run: the same data as one run', async () => {
    const straight = await freshDatabase();
    const resumed = await freshDatabase();
    try {
      await demoOn(straight, { issueCount: 24 });

      const stopped = await demoOn(resumed, { issueCount: 24, stopAfter: 6 });
      expect(stopped.text).toMatch(/Stopped after 6 of \d+ steps; run the demo again to complete it/);
      // A crash while the second sprint's issues get their custom values: one issue is left half-done.
      let calls = 0;
      const crashing = (api: DemoBackend): DemoBackend => ({
        ...api,
        setValue: async (...args) => {
          if (++calls === 30) throw new Error('the process died');
          return api.setValue(...args);
        },
      });
      await expect(demoOn(resumed, { issueCount: 24, wrap: crashing })).rejects.toThrow('the process died');

      const completed = await demoOn(resumed, { issueCount: 24 });
      expect(completed.text).toMatch(/account\s+nothing to add/);
      expect(completed.text).toMatch(/added \d+ issues?, [1-9]\d* custom values?/);
      expect(addedNothing(completed.result)).toBe(false);
      expect(await counts(resumed.db)).toEqual(await counts(straight.db));

      const again = await demoOn(resumed, { issueCount: 24 });
      expect(addedNothing(again.result)).toBe(true);

      // A demo made before labels, sub-issues and relations existed: the next run adds them to the issues it has.
      const snapshot = (db: Db) =>
        sql<{ name: string; labels: string; parent: string | null; relations: number }>`
          SELECT i.name, (SELECT string_agg(l.name, ',' ORDER BY l.name) FROM labels l WHERE l.id = ANY (i.label_ids)) AS labels,
                 p.name AS parent, (SELECT count(*)::int FROM issue_relations r WHERE i.id IN (r.issue_id, r.related_issue_id)) AS relations
          FROM issues i JOIN workspaces w ON w.id = i.workspace_id AND w.slug = 'demo' LEFT JOIN issues p ON p.id = i.parent_id
          ORDER BY i.project_id, i.sequence_id`
          .execute(db)
          .then((r) => r.rows);
      const whole = await snapshot(straight.db);
      await sql`DELETE FROM issue_relations`.execute(straight.db);
      await sql`UPDATE issues SET label_ids = '{}', parent_id = NULL`.execute(straight.db);
      const upgraded = await demoOn(straight, { issueCount: 24 });
      expect(upgraded.text).toMatch(/issues, first sprint\s+added 0 issues, 0 custom values, 0 comments, labels on [1-9]\d* issues/);
      // Each tree issue has a parent or labels (or both).
      expect(upgraded.text).toMatch(/sub-issues\s+added parents or labels set on 20 issues/);
      expect(upgraded.text).toMatch(/relations\s+added .*blocked by/);
      expect(await snapshot(straight.db)).toEqual(whole);
      expect(addedNothing((await demoOn(straight, { issueCount: 24 })).result)).toBe(true);
    } finally {
      await straight.close();
      await resumed.close();
    }
  }, 120_000);
});

describe('cli demo, embedded database held by a running service', () => {
  let holder: ChildProcess | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'wis-demo-lock-'));
  afterAll(() => {
    if (holder?.pid) process.kill(holder.pid);
    rmSync(dir, { recursive: true, force: true });
  });

  it('says so, and names the ways out: stop the service, or --url against it', async () => {
    // Another process holds the folder, as `npm start` does.
    const module = fileURLToPath(new URL('../../src/db/database.ts', import.meta.url));
    const code = `const { openPglite } = await import(${JSON.stringify(module)}); await openPglite(${JSON.stringify(dir)}); console.log('ready'); setInterval(() => {}, 60000);`;
    holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      holder!.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      holder!.once('exit', (code) => reject(new Error(`the holder exited (${code})`)));
    });

    const lines: string[] = [];
    const cfg = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dir, PORT: '3999' });
    const cli: CliContext = {
      config: () => cfg,
      database: () => openDatabase(cfg),
      services: () => Promise.reject(new Error('the demo builds its own services')),
      out: (line) => lines.push(line),
      operator: { userId: 'cli', tokenId: 'cli', isInstanceAdmin: true, isOperator: true },
    };
    expect(await demoCommand.run({}, cli)).toBe(1);
    const text = lines.join('\n');
    expect(text).toMatch(new RegExp(`the embedded database in .*${dir.split('/').pop()!} is held by a running service \\(process ${holder.pid}\\)`));
    expect(text).toMatch(/stop the service/);
    expect(text).toMatch(/npm run cli -- demo --url http:\/\/127\.0\.0\.1:3999/);
  }, 120_000);
});

describe('cli demo --url', () => {
  it('goes through the API of a running service with a low rate limit (120 a minute), waiting out each 429 by its Retry-After, and completes', async () => {
    const limited = await startTestApp({ apiRateLimit: 120 });
    try {
      const waits: number[] = [];
      const lines: string[] = [];
      const api = httpBackend(limited.url, { onWait: (ms) => waits.push(ms) });
      const { result } = { result: await runDemo(api, { out: (l) => lines.push(l), issueCount: 12 }) };
      expect(waits.length).toBeGreaterThan(0);
      expect(waits.every((ms) => ms >= 1000 && ms <= 61_000)).toBe(true);
      expect(lines.join('\n')).toMatch(/Done in/);
      expect(result.added.find((s) => s.step === 'webhook endpoint')!.added).toHaveLength(1);
      const small = demoPlan(12);
      expect(await counts(limited.database.db)).toMatchObject({
        issues: 12 + small.history.length + small.subIssues.length + SEARCH_EXAMPLES.length,
        baselines: 2,
        payments: 1,
        invoices: 1,
        labels: 12,
        issue_relations: small.relations.length,
      });
      await workItemCore(limited.database.db, limited.url, 12);
      // Over HTTP too, a second workspace past due: its test clock moved past the period's end, the renewal declined.
      expect(lines.join('\n')).toMatch(/a workspace in dunning\s+added .*renewal declined: subscription past_due, 1 attempt/);
      const dunning = await limited.database.db
        .selectFrom('subscriptions as s')
        .innerJoin('workspaces as w', 'w.id', 's.workspace_id')
        .select(['s.status', 's.dunning_attempts'])
        .where('w.slug', '=', 'demo-dunning')
        .executeTakeFirstOrThrow();
      expect(dunning).toEqual({ status: 'past_due', dunning_attempts: 1 });

      const again: string[] = [];
      const second = await runDemo(httpBackend(limited.url), { out: (l) => again.push(l), issueCount: 12 });
      expect(addedNothing(second)).toBe(true);
    } finally {
      await limited.close();
    }
  }, 360_000);

  it('says so in one line when the service does not answer', async () => {
    const lines: string[] = [];
    const cli = { config: () => ctx().config, out: (l: string) => lines.push(l) } as unknown as CliContext;
    expect(await demoCommand.run({ url: 'http://127.0.0.1:9' }, cli)).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^error: the service does not answer at http:\/\/127\.0\.0\.1:9/)]);
  });
});
