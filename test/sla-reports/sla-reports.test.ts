import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createWorkspace, expectProblem, signUp } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { type Block, deskSetup, HOUR, report, reportPath, RULES, runDuty, zero } from './sla-reports-fixtures.js';

/**
 * Contract 20.1 over HTTP: one history of several weeks in a workspace on Europe/Istanbul (UTC+3), read back in every
 * grouping. Times below are UTC; local dates are three hours ahead.
 */
const ctx = useTestApp();

const b = (met: number, breached: number, achievement_percent: number | null, median_seconds: number | null, p90_seconds: number | null): Block => ({
  met,
  breached,
  achievement_percent,
  median_seconds,
  p90_seconds,
});
const DAYS_8 = 8 * 24 * 3600;

describe('SLA reports', () => {
  let desk: Awaited<ReturnType<typeof deskSetup>>;
  let premiumId: string;
  let secondProjectId: string;
  let beforeDuty: Block;
  let afterDuty: Block;

  beforeAll(async () => {
    const { api, clock } = ctx();
    clock.set('2026-03-02T06:00:00.000Z'); // Monday 09:00 local
    desk = await deskSetup(ctx());
    const premium = await api.post(`/api/workspaces/${desk.ws.slug}/sla-policies/`, { name: 'Premium', rules: RULES }, { token: desk.ws.admin.token });
    premiumId = premium.body.id;
    secondProjectId = (await createProject(api, desk.ws, { name: 'Second', sla_policy_id: premiumId })).id;

    // A (urgent): responded after 30 minutes, resolved after 2 hours
    const a = await desk.issue('urgent');
    clock.advance(HOUR / 2);
    await desk.respond(a);
    clock.advance(1.5 * HOUR);
    await desk.move(a, 'completed');
    // B (high), 08:00: its response is due at 12:00 and nobody answers
    const bIssue = await desk.issue('high');
    clock.set('2026-03-02T13:00:00.000Z');
    const day = { from: '2026-03-02', to: '2026-03-02', group_by: 'day' };
    beforeDuty = (await report(api, desk.ws, day)).totals.response;
    await runDuty(ctx());
    afterDuty = (await report(api, desk.ws, day)).totals.response;

    // E (urgent), Sunday 22:00 UTC: answered at 22:30 UTC, which is Monday 01:30 local; its resolution is due 02:00 UTC
    clock.set('2026-03-08T22:00:00.000Z');
    const e = await desk.issue('urgent');
    clock.advance(HOUR / 2);
    await desk.respond(e);
    await runDuty(ctx()); // B's resolution, due Tuesday 08:00 UTC, is breached

    // A week later B is closed; C (medium) answered after 2 hours; D (urgent, project Second, policy Premium) after 10 minutes
    clock.set('2026-03-10T08:00:00.000Z');
    await desk.move(bIssue, 'completed');
    const c = await desk.issue('medium');
    clock.advance(2 * HOUR);
    await desk.respond(c);
    const d = await desk.issue('urgent', secondProjectId);
    clock.advance(HOUR / 6);
    await desk.respond(d, secondProjectId);
    await runDuty(ctx()); // E's resolution

    // Another workspace, same days: never counted here
    const other = await deskSetup(ctx());
    const x = await other.issue('urgent');
    await other.respond(x);
  });

  it('counts a target breached by time once the SLA events duty has run, at its due instant', () => {
    expect(beforeDuty).toEqual(b(1, 0, 100, 1800, 1800));
    expect(afterDuty).toEqual(b(1, 1, 50, 1800, 1800));
  });

  it('groups by week from Monday, every week of the range with zeros, with totals', async () => {
    const r = await report(ctx().api, desk.ws, { from: '2026-03-02', to: '2026-03-22', group_by: 'week' });
    expect(r).toEqual({
      from: '2026-03-02',
      to: '2026-03-22',
      time_zone: 'Europe/Istanbul',
      group_by: 'week',
      totals: { response: b(4, 1, 80, 1800, DAYS_8), resolution: b(1, 2, 33.3, 7200, DAYS_8) },
      rows: [
        { key: '2026-03-02', label: '2 Mar – 8 Mar 2026', response: b(1, 1, 50, 1800, DAYS_8), resolution: b(1, 1, 50, 7200, DAYS_8) },
        { key: '2026-03-09', label: '9 Mar – 15 Mar 2026', response: b(3, 0, 100, 1800, 7200), resolution: b(0, 1, 0, null, null) },
        { key: '2026-03-16', label: '16 Mar – 22 Mar 2026', response: zero, resolution: zero },
      ],
    });
  });

  it('keys a week by its Monday when the range starts mid-week, and counts only the days of the range', async () => {
    const r = await report(ctx().api, desk.ws, { from: '2026-03-04', to: '2026-03-09', group_by: 'week' });
    expect(r.rows.map((row) => row.key)).toEqual(['2026-03-02', '2026-03-09']);
    // B's response (Monday 2nd) is outside the range; its resolution (Tuesday 3rd) too
    expect(r.rows[0]).toMatchObject({ response: zero, resolution: zero });
    // and of the week of the 9th only the 9th: E's response (C and D were answered on the 10th)
    expect(r.rows[1]!.response.met).toBe(1);
  });

  it('groups by local day: an outcome at 22:30 UTC on Sunday counts on Monday in Istanbul', async () => {
    const r = await report(ctx().api, desk.ws, { from: '2026-03-08', to: '2026-03-09', group_by: 'day' });
    expect(r.rows).toEqual([
      { key: '2026-03-08', label: 'Sun 8 Mar 2026', response: zero, resolution: zero },
      { key: '2026-03-09', label: 'Mon 9 Mar 2026', response: b(1, 0, 100, 1800, 1800), resolution: b(0, 1, 0, null, null) },
    ]);
  });

  it('groups by month, empty months included', async () => {
    const r = await report(ctx().api, desk.ws, { from: '2026-02-20', to: '2026-04-05', group_by: 'month' });
    expect(r.rows.map((row) => [row.key, row.label])).toEqual([
      ['2026-02-01', 'February 2026'],
      ['2026-03-01', 'March 2026'],
      ['2026-04-01', 'April 2026'],
    ]);
    expect(r.rows[0]).toMatchObject({ response: zero, resolution: zero });
    expect(r.rows[1]).toMatchObject({ response: r.totals.response, resolution: r.totals.resolution });
    expect(r.rows[2]).toMatchObject({ response: zero, resolution: zero });
  });

  it('groups by priority, policy and project, listing only keys with data', async () => {
    const q = { from: '2026-03-01', to: '2026-03-31' };
    const byPriority = await report(ctx().api, desk.ws, { ...q, group_by: 'priority' });
    expect(byPriority.rows).toEqual([
      { key: 'urgent', label: 'Urgent', response: b(3, 0, 100, 1800, 1800), resolution: b(1, 1, 50, 7200, 7200) },
      { key: 'high', label: 'High', response: b(0, 1, 0, DAYS_8, DAYS_8), resolution: b(0, 1, 0, DAYS_8, DAYS_8) },
      { key: 'medium', label: 'Medium', response: b(1, 0, 100, 7200, 7200), resolution: zero },
    ]);
    const byPolicy = await report(ctx().api, desk.ws, { ...q, group_by: 'policy' });
    expect(byPolicy.rows.map((row) => [row.key, row.label, row.response.met, row.response.breached])).toEqual([
      [premiumId, 'Premium', 1, 0],
      [desk.policyId, 'Standard', 3, 1],
    ]);
    const byProject = await report(ctx().api, desk.ws, { ...q, group_by: 'project' });
    expect(byProject.rows.map((row) => [row.key, row.label, row.response.met, row.response.breached, row.resolution.breached])).toEqual([
      [desk.project.id, 'Desk', 3, 1, 2],
      [secondProjectId, 'Second', 1, 0, 0],
    ]);
    expect(byProject.totals).toEqual(byPriority.totals);
  });

  it('filters by project, priority and policy', async () => {
    const q = { from: '2026-03-01', to: '2026-03-31', group_by: 'week' };
    expect((await report(ctx().api, desk.ws, { ...q, project_id: secondProjectId })).totals.response).toEqual(b(1, 0, 100, 600, 600));
    expect((await report(ctx().api, desk.ws, { ...q, priority: 'high' })).totals).toEqual({
      response: b(0, 1, 0, DAYS_8, DAYS_8),
      resolution: b(0, 1, 0, DAYS_8, DAYS_8),
    });
    expect((await report(ctx().api, desk.ws, { ...q, policy_id: desk.policyId })).totals.response).toMatchObject({ met: 3, breached: 1 });
    const none = await report(ctx().api, desk.ws, { ...q, priority: 'low' });
    expect(none.totals).toEqual({ response: zero, resolution: zero });
    expect(none.rows.map((row) => row.key)).toEqual(['2026-02-23', '2026-03-02', '2026-03-09', '2026-03-16', '2026-03-23', '2026-03-30']);
  });

  it('answers the rows as CSV with format=csv or Accept: text/csv', async () => {
    const query = { from: '2026-03-02', to: '2026-03-22', group_by: 'week' };
    const csv = await ctx().api.get(reportPath(desk.ws, { ...query, format: 'csv' }), { token: desk.ws.admin.token });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toContain('sla-report-2026-03-02-2026-03-22-week.csv');
    expect(csv.text.split('\r\n')).toEqual([
      'key,label,response_met,response_breached,response_achievement_percent,response_median_seconds,response_p90_seconds,' +
        'resolution_met,resolution_breached,resolution_achievement_percent,resolution_median_seconds,resolution_p90_seconds',
      `2026-03-02,2 Mar – 8 Mar 2026,1,1,50,1800,${DAYS_8},1,1,50,7200,${DAYS_8}`,
      '2026-03-09,9 Mar – 15 Mar 2026,3,0,100,1800,7200,0,1,0,,',
      '2026-03-16,16 Mar – 22 Mar 2026,0,0,,,,0,0,,,',
      '',
    ]);
    const accepted = await ctx().api.get(reportPath(desk.ws, query), { token: desk.ws.admin.token, headers: { accept: 'text/csv' } });
    expect(accepted.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(accepted.text).toBe(csv.text);
  });

  it('answers 400 for a bad query', async () => {
    const { api } = ctx();
    const bad = async (query: Record<string, string>, path?: string) => {
      const res = await api.get(reportPath(desk.ws, query), { token: desk.ws.admin.token });
      expectProblem(res, 400, 'validation_failed');
      if (path) expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    };
    const ok = { from: '2026-03-01', to: '2026-03-31', group_by: 'week' };
    await bad({ to: '2026-03-31', group_by: 'week' });
    await bad({ from: '2026-03-01', group_by: 'week' });
    await bad({ from: '2026-03-01', to: '2026-03-31' });
    await bad({ ...ok, from: '2026-02-30' }, '/querystring/from');
    await bad({ ...ok, from: '03/01/2026' });
    await bad({ ...ok, from: '2026-04-01' }, '/querystring/to');
    await bad({ ...ok, from: '2025-03-01', to: '2026-03-02' }, '/querystring/to'); // 367 days
    await bad({ ...ok, group_by: 'year' });
    await bad({ ...ok, priority: 'none' });
    await bad({ ...ok, project_id: 'not-a-uuid' });
    await bad({ ...ok, policy_id: 'not-a-uuid' });
    // a bad range is named first, whatever the filters name
    await bad({ ...ok, from: '2026-04-01', project_id: '0190a000-0000-7000-8000-000000000000' }, '/querystring/to');
    await bad({ ...ok, format: 'xml' });
    // exactly 366 days is allowed
    expect(
      (await api.get(reportPath(desk.ws, { ...ok, from: '2025-03-01', to: '2026-03-01', group_by: 'month' }), { token: desk.ws.admin.token })).status,
    ).toBe(200);
  });

  it('lets admins and members read it; guests get 403, outsiders 404, no token 401', async () => {
    const { api } = ctx();
    const q = { from: '2026-03-01', to: '2026-03-31', group_by: 'priority' };
    const admin = await report(api, desk.ws, q);
    expect(await report(api, desk.ws, q, desk.member.token)).toEqual(admin);
    const guest = await desk.ws.addUser('guest');
    expectProblem(await api.get(reportPath(desk.ws, q), { token: guest.token }), 403, 'forbidden');
    const outsider = await signUp(api, 'Outsider');
    expectProblem(await api.get(reportPath(desk.ws, q), { token: outsider.token }), 404, 'not_found');
    expectProblem(await api.get(reportPath(desk.ws, q)), 401, 'unauthenticated');
  });

  it("never counts or names another workspace's data", async () => {
    const { api } = ctx();
    const other = await createWorkspace(api);
    const otherProject = await createProject(api, other);
    const q = { from: '2026-03-01', to: '2026-03-31', group_by: 'project' };
    expectProblem(await api.get(reportPath(desk.ws, { ...q, project_id: otherProject.id }), { token: desk.ws.admin.token }), 404, 'not_found');
    const r = await report(api, desk.ws, q);
    expect(r.rows.map((row) => row.key).sort()).toEqual([desk.project.id, secondProjectId].sort());
    expect(r.totals.response.met + r.totals.response.breached).toBe(5);
    // and the other workspace sees nothing of this one
    const empty = await report(api, other, q);
    expect(empty).toMatchObject({ time_zone: 'UTC', rows: [], totals: { response: zero, resolution: zero } });
  });

  it('answers 404 for a project_id or policy_id of another workspace, and the same 404 for one that exists nowhere', async () => {
    const { api } = ctx();
    const other = await createWorkspace(api);
    const otherProject = await createProject(api, other);
    const otherPolicy = await api.post(`/api/workspaces/${other.slug}/sla-policies/`, { name: 'Theirs', rules: RULES }, { token: other.admin.token });
    expect(otherPolicy.status, otherPolicy.text).toBe(201);
    const q = { from: '2026-03-01', to: '2026-03-31', group_by: 'week' };
    const unknown = '0190a000-0000-7000-8000-000000000000';
    const answer = async (query: Record<string, string>) => {
      const res = await api.get(reportPath(desk.ws, { ...q, ...query }), { token: desk.ws.admin.token });
      expectProblem(res, 404, 'not_found');
      const { request_id: _id, ...rest } = res.body;
      return rest;
    };
    // the same answer, word for word, whether the id is another workspace's or nobody's: nothing is revealed
    const theirProject = await answer({ project_id: otherProject.id });
    expect(await answer({ project_id: unknown })).toEqual(theirProject);
    const theirPolicy = await answer({ policy_id: otherPolicy.body.id });
    expect(await answer({ policy_id: unknown })).toEqual(theirPolicy);
    // the member's answer is the admin's; CSV asks change nothing
    expectProblem(await api.get(reportPath(desk.ws, { ...q, policy_id: otherPolicy.body.id }), { token: desk.member.token }), 404, 'not_found');
    expectProblem(await api.get(reportPath(desk.ws, { ...q, project_id: otherProject.id, format: 'csv' }), { token: desk.ws.admin.token }), 404, 'not_found');
    // and the other workspace reads its own with them
    expect((await report(api, other, { ...q, project_id: otherProject.id, policy_id: otherPolicy.body.id })).totals.response).toEqual(zero);
  });

  it('takes a met resolution out of the report when the issue is reopened, and counts it again when resolved', async () => {
    const { api, clock } = ctx();
    clock.set('2026-05-04T06:00:00.000Z');
    const s = await deskSetup(ctx());
    const issue = await s.issue('urgent');
    clock.advance(HOUR);
    await s.move(issue, 'completed');
    const q = { from: '2026-05-04', to: '2026-05-04', group_by: 'day' };
    expect((await report(api, s.ws, q)).totals.resolution).toEqual(b(1, 0, 100, 3600, 3600));
    clock.advance(HOUR / 2);
    await s.move(issue, 'backlog');
    expect((await report(api, s.ws, q)).totals.resolution).toEqual(zero);
    clock.advance(HOUR);
    await s.move(issue, 'completed');
    expect((await report(api, s.ws, q)).totals.resolution).toEqual(b(1, 0, 100, 9000, 9000));
    // the response stays met at the first move into completed (exactly at its 1-hour target: in time)
    expect((await report(api, s.ws, q)).totals.response).toEqual(b(1, 0, 100, 3600, 3600));
  });
});
