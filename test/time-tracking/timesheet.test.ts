import { describe, expect, it } from 'vitest';
import { createIssue, createProject, expectProblem } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { logTime, setTimeZone, trackedWorkspace } from './fixtures.js';

const ctx = useTestApp();
const START = '2026-01-15T09:00:00.000Z';

describe('timesheet (contract 18.3)', () => {
  it('groups by user, project and issue over local days of the workspace time zone, rows by minutes descending', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws, project, issue } = await trackedWorkspace(t, { name: 'Write the docs' });
    await setTimeZone(t.api, ws, 'Europe/Istanbul');
    const member = await ws.addUser('member', 'Grace');
    const project2 = await createProject(t.api, ws, { name: 'Second' });
    const issue2 = await createIssue(t.api, ws, project2.id, { name: 'Fix, "quoted" =bug' });
    // 20:30 UTC on the 12th is 23:30 on the 12th in Istanbul; 21:30 UTC is 00:30 on the 13th.
    await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 30, started_at: '2026-01-12T20:30:00.000Z' });
    await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 45, started_at: '2026-01-12T21:30:00.000Z' }, member.token);
    await logTime(t.api, ws, project2.id, issue2.id, { duration_minutes: 120, started_at: '2026-01-13T08:00:00.000Z' }, member.token);
    // Outside the range: the 11th local (20:59 UTC on the 11th is 23:59 local) and the 15th local.
    await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 5, started_at: '2026-01-11T20:59:00.000Z' });
    await logTime(t.api, ws, project.id, issue.id, { duration_minutes: 7, started_at: '2026-01-14T21:00:00.000Z' });

    const tok = { token: ws.admin.token };
    const get = async (q: string) => {
      const res = await t.api.get(`/api/workspaces/${ws.slug}/timesheet/?from=2026-01-12&to=2026-01-14&${q}`, tok);
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const byUser = await get('group_by=user');
    expect(byUser).toEqual({
      from: '2026-01-12',
      to: '2026-01-14',
      time_zone: 'Europe/Istanbul',
      group_by: 'user',
      total_minutes: 195,
      days: ['2026-01-12', '2026-01-13', '2026-01-14'],
      rows: [
        { key: member.user.id, label: 'Grace', minutes: 165, by_day: { '2026-01-13': 165 } },
        { key: ws.admin.user.id, label: 'Admin', minutes: 30, by_day: { '2026-01-12': 30 } },
      ],
    });
    const byProject = await get('group_by=project');
    expect(byProject.rows.map((r: { label: string; minutes: number }) => [r.label, r.minutes])).toEqual([
      ['Second', 120],
      ['Project', 75],
    ]);
    const byIssue = await get('group_by=issue');
    expect(byIssue.rows.map((r: { label: string }) => r.label)).toEqual([
      `${(project2 as any).identifier}-1 Fix, "quoted" =bug`,
      `${project.identifier}-1 Write the docs`,
    ]);
    expect((await get(`group_by=issue&user_id=${ws.admin.user.id}`)).total_minutes).toBe(30);
    expect((await get(`group_by=user&project_id=${project.id}`)).total_minutes).toBe(75);

    const csv = await t.api.get(`/api/workspaces/${ws.slug}/timesheet/?from=2026-01-12&to=2026-01-14&group_by=issue&format=csv`, tok);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.text.split('\r\n')).toEqual([
      'key,label,2026-01-12,2026-01-13,2026-01-14,total',
      `${issue2.id},"${(project2 as any).identifier}-1 Fix, ""quoted"" =bug",0,120,0,120`,
      `${issue.id},${project.identifier}-1 Write the docs,30,45,0,75`,
      '',
    ]);
    const accepted = await t.api.get(`/api/workspaces/${ws.slug}/timesheet/?from=2026-01-12&to=2026-01-14&group_by=user`, {
      ...tok,
      headers: { accept: 'text/csv' },
    });
    expect(accepted.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(accepted.text.split('\r\n')[1]).toBe(`${member.user.id},Grace,0,165,0,165`);
  });

  it('protects formulas in CSV labels', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws, project } = await trackedWorkspace(t);
    const evil = await createIssue(t.api, ws, project.id, { name: 'x' });
    await t.database.db
      .updateTable('projects')
      .set({ name: '=HYPERLINK("http://evil")' })
      .where('id', '=', project.id)
      .where('workspace_id', '=', ws.workspaceId)
      .execute();
    await logTime(t.api, ws, project.id, evil.id, { duration_minutes: 10 });
    const csv = await t.api.get(`/api/workspaces/${ws.slug}/timesheet/?from=2026-01-15&to=2026-01-15&group_by=project&format=csv`, { token: ws.admin.token });
    expect(csv.text.split('\r\n')[1]).toBe(`${project.id},"'=HYPERLINK(""http://evil"")",10,10`);
  });

  it('answers 400 for bad ranges, 403 for guests, 404 for non-members', async () => {
    const t = ctx();
    t.clock.set(START);
    const { ws } = await trackedWorkspace(t);
    const other = await trackedWorkspace(t);
    const guest = await ws.addUser('guest');
    const base = `/api/workspaces/${ws.slug}/timesheet/`;
    const tok = { token: ws.admin.token };
    for (const q of [
      'from=2026-01-01&to=2026-01-31',
      'from=2026-01-01&group_by=user',
      'from=2026-02-30&to=2026-03-01&group_by=user',
      'from=2026-01-02&to=2026-01-01&group_by=user',
      'from=2025-01-01&to=2026-01-02&group_by=user',
      'from=2026-01-01&to=2026-01-02&group_by=state',
      'from=2026-01-01&to=2026-01-02&group_by=user&user_id=nope',
      'from=2026-01-01&to=2026-01-02&group_by=user&format=xml',
    ]) {
      expectProblem(await t.api.get(`${base}?${q}`, tok), 400, 'validation_failed');
    }
    // 366 days is the most: a leap year.
    expect((await t.api.get(`${base}?from=2028-01-01&to=2028-12-31&group_by=user`, tok)).status).toBe(200);
    expectProblem(await t.api.get(`${base}?from=2026-01-01&to=2026-01-02&group_by=user`, { token: guest.token }), 403, 'forbidden');
    expectProblem(await t.api.get(`${base}?from=2026-01-01&to=2026-01-02&group_by=user`, { token: other.ws.admin.token }), 404, 'not_found');
  });

  it("never counts another workspace's worklogs", async () => {
    const t = ctx();
    t.clock.set(START);
    const mine = await trackedWorkspace(t);
    const theirs = await trackedWorkspace(t);
    await logTime(t.api, theirs.ws, theirs.project.id, theirs.issue.id, { duration_minutes: 60 });
    const res = await t.api.get(`/api/workspaces/${mine.ws.slug}/timesheet/?from=2026-01-15&to=2026-01-15&group_by=project&project_id=${theirs.project.id}`, {
      token: mine.ws.admin.token,
    });
    expect(res.body).toMatchObject({ total_minutes: 0, rows: [] });
  });
});
