/** The CLI demo in process: one run fills the database, a second adds nothing (the other cases: cli-demo-*.test.ts). */
import { DateTime } from 'luxon';
import { DEMO_FILES } from '../../src/cli/demo/demo.files.js';
import { searchRepository } from '../../src/modules/search/search.repository.js';
import { DEMO_STEPS } from '../../src/cli/demo/demo.steps.js';
import { demoPlan, SEARCH_EXAMPLES } from '../../src/cli/demo/demo.plan.js';
import { parseSearchQuery, tsqueryText } from '../../src/modules/search/search.rules.js';
import { clientFor, expectSuccess } from '../helpers/client.js';
import { useTestApp } from '../helpers/test-app.js';
import { removeDemoFiles, counts, demoOn, planningAndHistory, workItemCore, addedNothing } from './cli-demo.helpers.js';
import { afterAll, describe, expect, it } from 'vitest';

const ctx = useTestApp();
afterAll(removeDemoFiles);

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
        now: ctx().clock.now(),
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
});
