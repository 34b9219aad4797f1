/** The CLI demo's tests share these (split in files that run side by side: each is minutes long). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { DateTime } from 'luxon';
import { expect, inject } from 'vitest';
import type { DemoBackend } from '../../src/cli/demo/demo.backend.js';
import { inProcessBackend } from '../../src/cli/demo/demo.in-process.js';
import { demoPlan, LABELS, PROJECT_LABELS } from '../../src/cli/demo/demo.plan.js';
import { runDemo } from '../../src/cli/demo/demo.runner.js';
import { loadConfig } from '../../src/config/config.js';
import { type DatabaseHandle, type Db } from '../../src/db/database.js';
import { clientFor, expectSuccess } from '../helpers/client.js';
import { openTestDatabase } from '../helpers/databases.js';

// The demo's attachments go to a folder of this file's own, never the checkout's ./data.
const filesDir = mkdtempSync(join(tmpdir(), 'wis-demo-files-'));
/** Removes the demo's attachments folder (each test file's afterAll). */
export const removeDemoFiles = () => rmSync(filesDir, { recursive: true, force: true });
export const config = () => loadConfig({ LOG_LEVEL: 'silent', STORAGE_DIR: filesDir });
export const freshDatabase = () => openTestDatabase({ pgliteTemplate: inject('pgliteTemplate'), postgresTemplate: inject('postgresTemplate') });

/** Rows of every table that has a `workspace_id`, for the demo workspace: what "the same data" is compared by. */
export async function counts(db: Db): Promise<Record<string, number>> {
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

export async function inProcess(database: DatabaseHandle, lines: string[] = []) {
  const api = await inProcessBackend(config(), database, 'the test database');
  return { api, out: (line: string) => lines.push(line), lines };
}

export async function demoOn(database: DatabaseHandle, options: { issueCount?: number; stopAfter?: number; wrap?: (api: DemoBackend) => DemoBackend } = {}) {
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
export async function planningAndHistory(db: Db) {
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
export async function workItemCore(db: Db, url: string, issueCount = 240) {
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

export const addedNothing = (result: Awaited<ReturnType<typeof runDemo>>) => result.added.every((s) => s.added.length === 0);
