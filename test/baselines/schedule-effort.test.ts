import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { createIssue, createProject, createWorkspace, projectStates, signUp, startProTrial } from '../helpers/factories.js';
import { openEmptyDatabase } from '../helpers/databases.js';
import { startTestApp, type TestApp, useTestApp } from '../helpers/test-app.js';
import { createBaseline, deviation } from './fixtures.js';

const ctx = useTestApp();

/** A workspace on a plan with time tracking (worklogs), a project, and helpers for its issues. */
async function planned() {
  const { api } = ctx();
  const ws = await createWorkspace(api);
  await startProTrial(api, ws);
  const project = await createProject(api, ws);
  const { byGroup } = await projectStates(api, ws, project.id);
  const t = { token: ws.admin.token };
  const issuePath = (id: string) => `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${id}/`;
  const issue = (name: string, body: Record<string, unknown> = {}) => createIssue(api, ws, project.id, { name, ...body });
  const patch = async (id: string, body: Record<string, unknown>) => {
    const res = await api.patch(issuePath(id), body, t);
    expect(res.status, res.text).toBe(200);
  };
  const remove = async (id: string) => expect((await api.delete(issuePath(id), t)).status).toBe(204);
  const log = async (id: string, minutes: number) => {
    const res = await api.post(`${issuePath(id)}worklogs/`, { duration_minutes: minutes }, t);
    expect(res.status, res.text).toBe(201);
  };
  const changes = async (baselineId: string, query = '') => {
    const res = await api.get(`/api/workspaces/${ws.slug}/baselines/${baselineId}/changes/?kind=changed${query}`, t);
    expect(res.status, res.text).toBe(200);
    return res.body as { total: number; results: any[] };
  };
  return { api, ws, project, byGroup, issue, patch, remove, log, changes };
}

describe('a baseline of schedule and effort', () => {
  it("snapshots each issue's dates, estimate and time spent, and the planned finish of the issues not cancelled", async () => {
    const { api, ws, project, byGroup, issue, log } = await planned();
    const a = await issue('A', { start_date: '2026-03-01', target_date: '2026-03-10', estimate_minutes: 120 });
    await issue('B', { target_date: '2026-03-20', estimate_minutes: 60 });
    await issue('Cancelled late', { state_id: byGroup('cancelled'), target_date: '2026-04-30', estimate_minutes: 45 });
    await issue('Unplanned');
    await log(a.id, 30);

    const b = await createBaseline(api, ws, project.id);
    expect(b).toMatchObject({ total_issues: 4, planned_finish: '2026-03-20', total_estimate_minutes: 225, total_time_spent_minutes: 30 });
    const items = await ctx()
      .database.db.selectFrom('baseline_items')
      .select(['issue_id', 'start_date', 'target_date', 'estimate_minutes', 'time_spent_minutes'])
      .where('baseline_id', '=', b.id)
      .where('issue_id', '=', a.id)
      .execute();
    expect(items).toEqual([{ issue_id: a.id, start_date: '2026-03-01', target_date: '2026-03-10', estimate_minutes: 120, time_spent_minutes: 30 }]);
    // the one record of the baseline: the list, the read and the event say the same
    const read = await api.get(`/api/workspaces/${ws.slug}/baselines/${b.id}/`, { token: ws.admin.token });
    expect(read.body).toEqual(b);
  });

  it('has no planned finish when only cancelled issues have a target date, and zero totals without estimates', async () => {
    const { api, ws, project, byGroup, issue } = await planned();
    await issue('Cancelled', { state_id: byGroup('cancelled'), target_date: '2026-04-30' });
    await issue('Open');
    expect(await createBaseline(api, ws, project.id)).toMatchObject({ planned_finish: null, total_estimate_minutes: 0, total_time_spent_minutes: 0 });
  });
});

describe('deviation.schedule', () => {
  async function scenario() {
    const p = await planned();
    const { issue } = p;
    const slip = await issue('Slips 5 days', { target_date: '2026-03-10', estimate_minutes: 120 });
    const pull = await issue('Pulled in', { target_date: '2026-03-20', estimate_minutes: 60 });
    const undated = await issue('Gets a date', {});
    const unset = await issue('Loses its date', { target_date: '2026-03-12' });
    const both = await issue('Slips 3 days, re-estimated', { target_date: '2026-03-01', estimate_minutes: 10 });
    const gone = await issue('Deleted', { target_date: '2026-03-05', estimate_minutes: 50 });
    const still = await issue('Unchanged', { target_date: '2026-03-18', estimate_minutes: 5 });
    const baseline = await createBaseline(p.api, p.ws, p.project.id, 'plan');
    await p.patch(slip.id, { target_date: '2026-03-15' });
    await p.patch(pull.id, { target_date: '2026-03-18' });
    await p.patch(undated.id, { target_date: '2026-03-25' });
    await p.patch(unset.id, { target_date: null });
    await p.patch(both.id, { target_date: '2026-03-04', estimate_minutes: 20 });
    await p.remove(gone.id);
    const added = await issue('Added', { estimate_minutes: 70 });
    await p.log(pull.id, 15);
    return { ...p, baseline, slip, pull, undated, unset, both, gone, still, added };
  }

  const expected = {
    planned_finish_baseline: '2026-03-20',
    planned_finish_now: '2026-03-25',
    finish_variance_days: 5,
    // later (5 and 3 days) or removed; a date set where there was none is neither
    slipped_issues: 3,
    pulled_in_issues: 1,
    total_slip_days: 8,
    added_estimate_minutes: 70,
    removed_estimate_minutes: 50,
    // 245 at the baseline; 120 + 60 + 20 + 5 + 70 now
    estimate_delta_minutes: 30,
    time_spent_delta_minutes: 15,
  };

  it('reports the planned finish, slips, pull-ins and effort deltas since the baseline', async () => {
    const s = await scenario();
    const d = await deviation(s.api, s.ws, s.baseline.id);
    expect(d.schedule).toEqual(expected);
    expect(d.baseline).toMatchObject({ planned_finish: '2026-03-20', total_estimate_minutes: 245, total_time_spent_minutes: 0 });
    // every changed issue is listed, naming the fields that differ; an issue whose only change is its time spent is not
    expect(d.changed.count).toBe(5);
    expect(d.added.count).toBe(1);
    expect(d.removed.count).toBe(1);
  });

  it('lists the changed issues with each differing field as {from, to}', async () => {
    const s = await scenario();
    await s.patch(s.still.id, { priority: 'urgent' });
    const page = await s.changes(s.baseline.id);
    const byName = Object.fromEntries(page.results.map((r) => [r.name, r]));
    expect(page.total).toBe(6);
    expect(byName['Slips 5 days'].fields).toEqual({ target_date: { from: '2026-03-10', to: '2026-03-15' } });
    expect(byName['Gets a date'].fields).toEqual({ target_date: { from: null, to: '2026-03-25' } });
    expect(byName['Loses its date'].fields).toEqual({ target_date: { from: '2026-03-12', to: null } });
    expect(byName['Slips 3 days, re-estimated']).toMatchObject({
      from: { state_group: 'backlog', priority: 'none', target_date: '2026-03-01', estimate_minutes: 10 },
      to: { state_group: 'backlog', priority: 'none', target_date: '2026-03-04', estimate_minutes: 20 },
      fields: { target_date: { from: '2026-03-01', to: '2026-03-04' }, estimate_minutes: { from: 10, to: 20 } },
    });
    expect(byName.Unchanged.fields).toEqual({ priority: { from: 'none', to: 'urgent' } });
  });

  it('compares two baselines the same way with ?against=', async () => {
    const s = await scenario();
    const second = await createBaseline(s.api, s.ws, s.project.id, 'replan');
    expect(second).toMatchObject({ planned_finish: '2026-03-25', total_estimate_minutes: 275, total_time_spent_minutes: 15 });
    // what happens after the second baseline is not part of the comparison between the two
    await s.patch(s.slip.id, { target_date: '2026-06-01', estimate_minutes: 999 });
    await s.log(s.slip.id, 45);
    const between = await deviation(s.api, s.ws, s.baseline.id, `?against=${second.id}`);
    expect(between.schedule).toEqual(expected);
    expect((await s.changes(s.baseline.id, `&against=${second.id}`)).total).toBe(5);
    // and the other way round: every move reversed
    const back = await deviation(s.api, s.ws, second.id, `?against=${s.baseline.id}`);
    expect(back.schedule).toEqual({
      planned_finish_baseline: '2026-03-25',
      planned_finish_now: '2026-03-20',
      finish_variance_days: -5,
      // 'Pulled in' moves 2 days later again; 'Gets a date' had one in the second baseline and has none in the first
      slipped_issues: 2,
      pulled_in_issues: 2, // 5 and 3 days earlier; 'Loses its date' gets one back, which is no move
      total_slip_days: 2,
      added_estimate_minutes: 50,
      removed_estimate_minutes: 70,
      estimate_delta_minutes: -30,
      time_spent_delta_minutes: -15,
    });
  });
});

describe('scheduled baselines', () => {
  it('snapshot dates, estimates and time spent through the same create path', async () => {
    ctx().clock.set('2026-03-06T12:00:00Z');
    const { api, ws, project, issue, log } = await planned();
    const a = await issue('A', { target_date: '2026-03-31', estimate_minutes: 90 });
    await log(a.id, 20);
    const res = await api.post(
      `/api/workspaces/${ws.slug}/projects/${project.id}/baseline-schedules/`,
      { name_prefix: 'Daily', every: 'day', at: '09:00', time_zone: 'UTC', keep_last: 3 },
      { token: ws.admin.token },
    );
    expect(res.status, res.text).toBe(201);
    ctx().clock.set('2026-03-07T09:00:00Z');
    await ctx()
      .app.jobs.find((j) => j.name === 'baselines.schedules')!
      .run();
    const list = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/baselines/`, { token: ws.admin.token });
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({
      name: 'Daily 2026-03-07',
      planned_finish: '2026-03-31',
      total_estimate_minutes: 90,
      total_time_spent_minutes: 20,
    });
  });
});

/**
 * A baseline written before migration 1010 recorded no dates, estimates or time spent. After the migration it reads
 * them as unknown (null), never as zero, and no issue counts as moved or changed for want of them.
 */
describe('a baseline written before migration 1010', () => {
  let handle: DatabaseHandle;
  let app: TestApp;
  const now = new Date('2026-03-01T10:00:00Z');
  const ids = { user: randomUUID(), ws: randomUUID(), project: randomUUID(), baseline: randomUUID(), dated: randomUUID(), moved: randomUUID() };
  const slug = `old-${ids.ws.slice(0, 8)}`;
  let token = '';

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1000_time_tracking');
    const db = handle.db;
    await sql`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
              VALUES (${ids.user}, ${`old-${ids.user}@example.com`}, 'Old', 'x', ${now}, ${now})`.execute(db);
    await sql`INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at) VALUES (${ids.ws}, ${slug}, 'Old', ${ids.user}, ${now}, ${now})`.execute(
      db,
    );
    await sql`INSERT INTO projects (id, workspace_id, name, identifier, created_by, created_at, updated_at, issue_seq)
              VALUES (${ids.project}, ${ids.ws}, 'Old', 'OLD', ${ids.user}, ${now}, ${now}, 2)`.execute(db);
    const state = randomUUID();
    const started = randomUUID();
    await sql`INSERT INTO states (id, workspace_id, project_id, name, "group", color, sequence, is_default, created_at, updated_at)
              VALUES (${state}, ${ids.ws}, ${ids.project}, 'Backlog', 'backlog', '#000000', 0, true, ${now}, ${now}),
                     (${started}, ${ids.ws}, ${ids.project}, 'Started', 'started', '#000000', 1, false, ${now}, ${now})`.execute(db);
    // issues with dates and estimates already (migration 1000), and a baseline the way the code before 1010 took it
    await sql`INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, state_id, state_group, priority, created_by, created_at,
                                  updated_at, target_date, estimate_minutes, time_spent_minutes)
              VALUES (${ids.dated}, ${ids.ws}, ${ids.project}, 1, 'Dated', ${state}, 'backlog', 'none', ${ids.user}, ${now}, ${now}, '2026-03-10', 60, 15),
                     (${ids.moved}, ${ids.ws}, ${ids.project}, 2, 'Moved', ${state}, 'backlog', 'none', ${ids.user}, ${now}, ${now}, '2026-03-12', 30, 0)`.execute(
      db,
    );
    await sql`INSERT INTO baselines (id, workspace_id, project_id, name, snapshot_at, created_by, created_at)
              VALUES (${ids.baseline}, ${ids.ws}, ${ids.project}, 'Before 1010', ${now}, ${ids.user}, ${now})`.execute(db);
    await sql`INSERT INTO baseline_items (workspace_id, baseline_id, issue_id, sequence_id, name, state_group, priority)
              SELECT workspace_id, ${ids.baseline}, id, sequence_id, name, state_group, priority FROM issues WHERE project_id = ${ids.project}`.execute(db);
    await sql`UPDATE baselines SET total_issues = 2, state_backlog = 2, priority_none = 2 WHERE id = ${ids.baseline}`.execute(db);

    await migrateToLatest(db);
    app = await startTestApp({}, handle);
    const me = await signUp(app.api, 'Reader');
    token = me.token;
    await sql`INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES (${ids.ws}, ${me.user.id}, 'admin', ${now})`.execute(db);
    // after the migration: one issue moves to another state and its date moves; the other keeps everything
    await sql`UPDATE issues SET state_id = ${started}, state_group = 'started', target_date = '2026-04-01', estimate_minutes = 90
              WHERE id = ${ids.moved}`.execute(db);
  });
  afterAll(async () => {
    await app?.close();
    await handle?.close();
  });

  it('keeps its counts and reads its planned finish and effort totals as null', async () => {
    const res = await app.api.get(`/api/workspaces/${slug}/baselines/${ids.baseline}/`, { token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ total_issues: 2, planned_finish: null, total_estimate_minutes: null, total_time_spent_minutes: null });
    const items = await sql<{ n: number }>`SELECT count(*)::int AS n FROM baseline_items
                                           WHERE baseline_id = ${ids.baseline} AND time_spent_minutes IS NULL`.execute(handle.db);
    expect(items.rows[0]!.n).toBe(2);
  });

  it('answers a schedule with what is known now and null for what the baseline never recorded', async () => {
    const res = await app.api.get(`/api/workspaces/${slug}/baselines/${ids.baseline}/deviation/`, { token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.schedule).toEqual({
      planned_finish_baseline: null,
      planned_finish_now: '2026-04-01',
      finish_variance_days: null,
      slipped_issues: 0,
      pulled_in_issues: 0,
      total_slip_days: 0,
      added_estimate_minutes: 0,
      removed_estimate_minutes: null,
      estimate_delta_minutes: null,
      time_spent_delta_minutes: null,
    });
    // only the state change makes 'Moved' changed; the dated issue that did not move is no change either
    expect(res.body.changed.count).toBe(1);
    expect(res.body.changed.items[0]).toMatchObject({ name: 'Moved', fields: { state_group: { from: 'backlog', to: 'started' } } });
    expect(Object.keys(res.body.changed.items[0].fields)).toEqual(['state_group']);
  });

  it('compares with a new baseline either way, null where the old one is needed', async () => {
    const created = await app.api.post(`/api/workspaces/${slug}/projects/${ids.project}/baselines/`, { name: 'After 1010' }, { token });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ planned_finish: '2026-04-01', total_estimate_minutes: 150, total_time_spent_minutes: 15 });
    const forward = await app.api.get(`/api/workspaces/${slug}/baselines/${ids.baseline}/deviation/?against=${created.body.id}`, { token });
    expect(forward.body.schedule).toMatchObject({ planned_finish_now: '2026-04-01', slipped_issues: 0, estimate_delta_minutes: null });
    const backward = await app.api.get(`/api/workspaces/${slug}/baselines/${created.body.id}/deviation/?against=${ids.baseline}`, { token });
    expect(backward.status, backward.text).toBe(200);
    expect(backward.body.schedule).toEqual({
      planned_finish_baseline: '2026-04-01',
      planned_finish_now: null,
      finish_variance_days: null,
      slipped_issues: 0,
      pulled_in_issues: 0,
      total_slip_days: 0,
      added_estimate_minutes: null,
      removed_estimate_minutes: 0,
      estimate_delta_minutes: null,
      time_spent_delta_minutes: null,
    });
    expect(backward.body.changed.count).toBe(1);
  });
});
