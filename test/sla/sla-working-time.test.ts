import { Webhook } from 'standardwebhooks';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../client/src/index.js';
import { clientFor, expectFailure } from '../helpers/client.js';
import { createProject, createWorkspace, projectStates, type WorkspaceFixture } from '../helpers/factories.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { useTestApp } from '../helpers/test-app.js';

/** Contract 11.3 and 11.4 over HTTP, with the typed client: working time, pauses, remaining time, at risk, events. */
const ctx = useTestApp();
const receivers: Receiver[] = [];
afterAll(async () => Promise.all(receivers.map((r) => r.close())));

type Rule = { priority: 'urgent' | 'high' | 'medium' | 'low'; response_time_h: number; resolution_time_h: number };

const as = (token: string) => clientFor(ctx().url, token);
const admin = (ws: WorkspaceFixture) => as(ws.admin.token);
const WEEKDAYS_9_17 = (['mon', 'tue', 'wed', 'thu', 'fri'] as const).map((day) => ({ day, start: '09:00', end: '17:00' }));
const HOUR = 3_600_000;
const plus = (iso: string, ms: number) => new Date(new Date(iso).getTime() + ms).toISOString();

async function calendar(ws: WorkspaceFixture, body: Partial<{ time_zone: string; holidays: { date: string }[] }> = {}) {
  return unwrap(
    admin(ws).POST('/api/workspaces/{slug}/sla-calendars/', {
      params: { path: { slug: ws.slug } },
      body: { name: 'Office', time_zone: 'Europe/Istanbul', working_hours: WEEKDAYS_9_17, ...body },
    }),
  );
}

async function policy(ws: WorkspaceFixture, body: { calendar_id?: string | null; at_risk_percent?: number | null; rules?: Rule[] } = {}) {
  return unwrap(
    admin(ws).POST('/api/workspaces/{slug}/sla-policies/', {
      params: { path: { slug: ws.slug } },
      body: { name: 'Desk', is_default: true, rules: [{ priority: 'urgent', response_time_h: 4, resolution_time_h: 8 }], ...body },
    }),
  );
}

async function setup(body: Parameters<typeof policy>[1] = {}) {
  const ws = await createWorkspace(ctx().api);
  const p = await policy(ws, body);
  const project = await createProject(ctx().api, ws);
  const { byGroup } = await projectStates(ctx().api, ws, project.id);
  const issue = async (priority: 'urgent' | 'high' | 'none' = 'urgent') =>
    unwrap(
      admin(ws).POST('/api/workspaces/{slug}/projects/{projectId}/issues/', {
        params: { path: { slug: ws.slug, projectId: project.id } },
        body: { name: 'Printer on fire', priority },
      }),
    );
  const tracker = async (issueId: string) =>
    unwrap(admin(ws).GET('/api/workspaces/{slug}/issues/{issueId}/sla/', { params: { path: { slug: ws.slug, issueId } } }));
  const move = async (issueId: string, state_id: string) =>
    unwrap(
      admin(ws).PATCH('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', {
        params: { path: { slug: ws.slug, projectId: project.id, issueId } },
        body: { state_id },
      }),
    );
  const waitingState = async (pauses_sla = true) =>
    unwrap(
      admin(ws).POST('/api/workspaces/{slug}/projects/{projectId}/states/', {
        params: { path: { slug: ws.slug, projectId: project.id } },
        body: { name: 'Waiting on customer', group: 'started', pauses_sla },
      }),
    );
  const atRisk = async (query: { offset?: number; per_page?: number } = {}) =>
    unwrap(admin(ws).GET('/api/workspaces/{slug}/sla-at-risk/', { params: { path: { slug: ws.slug }, query } }));
  const breached = async () => unwrap(admin(ws).GET('/api/workspaces/{slug}/sla-breached/', { params: { path: { slug: ws.slug } } }));
  return { ws, policy: p, project, byGroup, issue, tracker, move, waitingState, atRisk, breached };
}

describe('working time (contract 11.3)', () => {
  it('is due Monday 12:00 local for an issue created Friday 16:00 with a 4-hour target on Mon-Fri 09:00-17:00 Istanbul', async () => {
    const { ws } = await setup();
    const cal = await calendar(ws);
    const desk = await policy(ws, { calendar_id: cal.id });
    const { clock, api } = ctx();
    const project = await createProject(api, ws, { sla_policy_id: desk.id });
    clock.set('2026-01-16T13:00:00.000Z'); // Friday 16:00 in Istanbul (UTC+3)
    const issue = await unwrap(
      admin(ws).POST('/api/workspaces/{slug}/projects/{projectId}/issues/', {
        params: { path: { slug: ws.slug, projectId: project.id } },
        body: { name: 'Friday afternoon', priority: 'urgent' },
      }),
    );
    const read = () => unwrap(admin(ws).GET('/api/workspaces/{slug}/issues/{issueId}/sla/', { params: { path: { slug: ws.slug, issueId: issue.id } } }));
    expect(await read()).toMatchObject({
      calendar_id: cal.id,
      response_due_at: '2026-01-19T09:00:00.000Z', // Monday 12:00 local
      resolution_due_at: '2026-01-19T13:00:00.000Z', // Monday 16:00 local
      response_remaining_seconds: 4 * 3600,
      resolution_remaining_seconds: 8 * 3600,
      paused: false,
      at_risk: false,
    });
    clock.advance(30 * 60_000);
    expect((await read()).response_remaining_seconds).toBe(3.5 * 3600);
    clock.set('2026-01-17T12:00:00.000Z'); // Saturday: the clock does not run
    expect(await read()).toMatchObject({ response_remaining_seconds: 3 * 3600, response_breached: false });
    clock.set('2026-01-19T09:00:00.500Z'); // Monday 12:00:00.5 local: 0.5 s past due
    expect(await read()).toMatchObject({ response_remaining_seconds: 0, response_breached: true });
    clock.set('2026-01-19T10:00:00.000Z');
    expect(await read()).toMatchObject({ response_remaining_seconds: -3600, response_breached: true });
  });

  it('starts counting at the next working minute for an issue created outside working hours, and skips holidays', async () => {
    const ws = await createWorkspace(ctx().api);
    const cal = await calendar(ws, { time_zone: 'UTC', holidays: [{ date: '2026-01-19' }] });
    await policy(ws, { calendar_id: cal.id });
    const { clock, api } = ctx();
    const project = await createProject(api, ws);
    clock.set('2026-01-17T10:00:00.000Z'); // Saturday
    const issue = await unwrap(
      admin(ws).POST('/api/workspaces/{slug}/projects/{projectId}/issues/', {
        params: { path: { slug: ws.slug, projectId: project.id } },
        body: { name: 'Weekend', priority: 'urgent' },
      }),
    );
    const t = await unwrap(admin(ws).GET('/api/workspaces/{slug}/issues/{issueId}/sla/', { params: { path: { slug: ws.slug, issueId: issue.id } } }));
    // Monday 19 is a holiday: Tuesday 09:00 + 4 h.
    expect(t.response_due_at).toBe('2026-01-20T13:00:00.000Z');
  });

  it('moves the open targets when the calendar hours, holidays or time zone change, in the same request', async () => {
    const ws = await createWorkspace(ctx().api);
    const cal = await calendar(ws, { time_zone: 'UTC' });
    await policy(ws, { calendar_id: cal.id });
    const { clock, api } = ctx();
    const project = await createProject(api, ws);
    clock.set('2026-01-19T09:00:00.000Z'); // Monday 09:00 UTC
    const issue = await unwrap(
      admin(ws).POST('/api/workspaces/{slug}/projects/{projectId}/issues/', {
        params: { path: { slug: ws.slug, projectId: project.id } },
        body: { name: 'x', priority: 'urgent' },
      }),
    );
    const read = () => unwrap(admin(ws).GET('/api/workspaces/{slug}/issues/{issueId}/sla/', { params: { path: { slug: ws.slug, issueId: issue.id } } }));
    expect((await read()).response_due_at).toBe('2026-01-19T13:00:00.000Z');
    const path = { slug: ws.slug, calendarId: cal.id };
    await unwrap(
      admin(ws).PATCH('/api/workspaces/{slug}/sla-calendars/{calendarId}/', {
        params: { path },
        body: {
          working_hours: [
            { day: 'mon', start: '09:00', end: '11:00' },
            { day: 'tue', start: '10:00', end: '18:00' },
          ],
        },
      }),
    );
    expect((await read()).response_due_at).toBe('2026-01-20T12:00:00.000Z');
    await unwrap(admin(ws).PATCH('/api/workspaces/{slug}/sla-calendars/{calendarId}/', { params: { path }, body: { time_zone: 'Europe/Istanbul' } }));
    // Created Monday 12:00 local, after Monday's hours: Tuesday 10:00 local (07:00 UTC) + 4 h.
    expect((await read()).response_due_at).toBe('2026-01-20T11:00:00.000Z');
    await unwrap(admin(ws).PATCH('/api/workspaces/{slug}/sla-calendars/{calendarId}/', { params: { path }, body: { holidays: [{ date: '2026-01-20' }] } }));
    // Tuesday is off: next Monday 09:00-11:00 local (2 h), then Tuesday 10:00 local (07:00 UTC) + 2 h.
    expect((await read()).response_due_at).toBe('2026-01-27T09:00:00.000Z');
  });

  it('follows a policy that gains or loses a calendar, and never changes a met target', async () => {
    const s = await setup();
    const { clock } = ctx();
    clock.set('2026-01-16T15:00:00.000Z'); // Friday 15:00 UTC
    const open = await s.issue();
    const met = await s.issue();
    clock.advance(HOUR);
    await s.move(met.id, s.byGroup('started'));
    const metBefore = await s.tracker(met.id);
    expect(metBefore.response_remaining_seconds).toBeNull();
    const cal = await calendar(s.ws, { time_zone: 'UTC' });
    await unwrap(
      admin(s.ws).PATCH('/api/workspaces/{slug}/sla-policies/{policyId}/', {
        params: { path: { slug: s.ws.slug, policyId: s.policy.id } },
        body: { calendar_id: cal.id },
      }),
    );
    // Friday 15:00-17:00 is 2 h: response due Monday 11:00; resolution 6 more hours: Monday 15:00.
    expect(await s.tracker(open.id)).toMatchObject({
      calendar_id: cal.id,
      response_due_at: '2026-01-19T11:00:00.000Z',
      resolution_due_at: '2026-01-19T15:00:00.000Z',
    });
    // The met response target keeps its due time (Friday 19:00, from before the calendar).
    expect(metBefore.response_due_at).toBe('2026-01-16T19:00:00.000Z');
    expect(await s.tracker(met.id)).toMatchObject({ response_due_at: metBefore.response_due_at, resolution_due_at: '2026-01-19T15:00:00.000Z' });
    await unwrap(
      admin(s.ws).PATCH('/api/workspaces/{slug}/sla-policies/{policyId}/', {
        params: { path: { slug: s.ws.slug, policyId: s.policy.id } },
        body: { calendar_id: null },
      }),
    );
    expect(await s.tracker(open.id)).toMatchObject({ calendar_id: null, response_due_at: plus(open.created_at, 4 * HOUR) });
  });
});

describe('pauses (contract 11.2, 11.3)', () => {
  it('stops the clocks in a pausing state, projects the due instants from now, and resumes on leaving it', async () => {
    const s = await setup();
    const { clock } = ctx();
    const waiting = await s.waitingState();
    expect(waiting.pauses_sla).toBe(true);
    const issue = await s.issue();
    clock.advance(HOUR);
    await s.move(issue.id, waiting.id);
    const paused = await s.tracker(issue.id);
    expect(paused).toMatchObject({ paused: true, response_remaining_seconds: null, resolution_remaining_seconds: 7 * 3600, at_risk: false });
    // Entering a started state is the response; the resolution clock is paused.
    clock.advance(10 * HOUR);
    const later = await s.tracker(issue.id);
    expect(later).toMatchObject({ paused: true, resolution_remaining_seconds: 7 * 3600, resolution_breached: false });
    expect(later.resolution_due_at).toBe(plus(clock.now().toISOString(), 7 * HOUR));
    expect((await s.breached()).total).toBe(0);
    await s.move(issue.id, s.byGroup('unstarted'));
    clock.advance(HOUR);
    expect(await s.tracker(issue.id)).toMatchObject({
      paused: false,
      resolution_remaining_seconds: 6 * 3600,
      resolution_due_at: plus(issue.created_at, 18 * HOUR),
    });
    const history = await unwrap(
      admin(s.ws).GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/history/', {
        params: { path: { slug: s.ws.slug, projectId: s.project.id, issueId: issue.id } },
      }),
    );
    expect(history.results.map((h) => [h.kind, (h.to as { pauses_sla?: boolean }).pauses_sla])).toEqual([
      ['created', false],
      ['state', true],
      ['state', false],
    ]);
  });

  it('keeps a target breached before the pause breached while paused', async () => {
    const s = await setup();
    const { clock } = ctx();
    const waiting = await s.waitingState();
    const issue = await s.issue();
    clock.advance(9 * HOUR);
    await s.move(issue.id, waiting.id);
    clock.advance(HOUR);
    expect(await s.tracker(issue.id)).toMatchObject({ paused: true, resolution_breached: true, resolution_remaining_seconds: -3600 });
    expect((await s.breached()).results.map((r) => r.issue_id)).toEqual([issue.id]);
  });

  it('pauses and resumes the issues in a state whose pauses_sla is switched, with a history entry each', async () => {
    const s = await setup();
    const { clock } = ctx();
    const state = await s.waitingState(false);
    const issue = await s.issue();
    await s.move(issue.id, state.id);
    clock.advance(HOUR);
    const path = { slug: s.ws.slug, projectId: s.project.id, stateId: state.id };
    await unwrap(admin(s.ws).PATCH('/api/workspaces/{slug}/projects/{projectId}/states/{stateId}/', { params: { path }, body: { pauses_sla: true } }));
    clock.advance(5 * HOUR);
    expect(await s.tracker(issue.id)).toMatchObject({ paused: true, resolution_remaining_seconds: 7 * 3600 });
    await unwrap(admin(s.ws).PATCH('/api/workspaces/{slug}/projects/{projectId}/states/{stateId}/', { params: { path }, body: { pauses_sla: false } }));
    clock.advance(HOUR);
    expect(await s.tracker(issue.id)).toMatchObject({ paused: false, resolution_remaining_seconds: 6 * 3600 });
    const history = await unwrap(
      admin(s.ws).GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/history/', {
        params: { path: { slug: s.ws.slug, projectId: s.project.id, issueId: issue.id } },
      }),
    );
    expect(history.results.map((h) => h.kind)).toEqual(['created', 'state', 'state', 'state']);
    expect(history.results.slice(2).map((h) => [(h.from as { pauses_sla: boolean }).pauses_sla, (h.to as { pauses_sla: boolean }).pauses_sla])).toEqual([
      [false, true],
      [true, false],
    ]);
  });
});

describe('at risk (contract 11.3)', () => {
  it('lists trackers whose open target has counted its at-risk share, soonest due first, and drops them once breached or paused', async () => {
    const s = await setup({
      rules: [
        { priority: 'urgent', response_time_h: 1, resolution_time_h: 8 },
        { priority: 'high', response_time_h: 2, resolution_time_h: 8 },
      ],
    });
    const { clock } = ctx();
    const high = await s.issue('high'); // response 2 h: at risk from 1.5 h
    const urgent = await s.issue('urgent'); // response 1 h: at risk from 45 min
    clock.advance(30 * 60_000);
    expect(await s.atRisk()).toEqual({ results: [], total: 0, offset: 0, per_page: 20 });
    clock.advance(15 * 60_000);
    let page = await s.atRisk();
    expect(page.results.map((r) => r.issue_id)).toEqual([urgent.id]);
    expect(page.results[0]).toMatchObject({
      at_risk: true,
      response_remaining_seconds: 15 * 60,
      issue: { id: urgent.id, priority: 'urgent', state_group: 'backlog' },
    });
    clock.advance(45 * 60_000); // 1.5 h: urgent breached, high at risk
    page = await s.atRisk();
    expect(page.results.map((r) => r.issue_id)).toEqual([high.id]);
    expect((await s.tracker(urgent.id)).at_risk).toBe(false);
    clock.advance(5 * HOUR); // 6.5 h: both resolution targets past 75% of 8 h (6 h)
    page = await s.atRisk({ per_page: 1 });
    expect(page).toMatchObject({ total: 2, offset: 0, per_page: 1 });
    expect(page.results.map((r) => r.issue_id)).toEqual([high.id]); // created first: due first
    expect((await s.atRisk({ offset: 1, per_page: 1 })).results.map((r) => r.issue_id)).toEqual([urgent.id]);
    await s.move(urgent.id, (await s.waitingState()).id);
    expect((await s.atRisk()).results.map((r) => r.issue_id)).toEqual([high.id]);
    expect(await s.tracker(urgent.id)).toMatchObject({ paused: true, at_risk: false });
  });

  it('follows the policy at_risk_percent, and null turns the warning off', async () => {
    const s = await setup({ at_risk_percent: 50 });
    const { clock } = ctx();
    const issue = await s.issue();
    clock.advance(2 * HOUR);
    expect((await s.tracker(issue.id)).at_risk).toBe(true);
    await unwrap(
      admin(s.ws).PATCH('/api/workspaces/{slug}/sla-policies/{policyId}/', {
        params: { path: { slug: s.ws.slug, policyId: s.policy.id } },
        body: { at_risk_percent: null },
      }),
    );
    expect((await s.tracker(issue.id)).at_risk).toBe(false);
    expect((await s.atRisk()).total).toBe(0);
    await unwrap(
      admin(s.ws).PATCH('/api/workspaces/{slug}/sla-policies/{policyId}/', {
        params: { path: { slug: s.ws.slug, policyId: s.policy.id } },
        body: { at_risk_percent: 25 },
      }),
    );
    expect((await s.atRisk()).results.map((r) => r.issue_id)).toEqual([issue.id]);
  });

  it('is readable by every member, 404 for others, 401 without a token, 400 for bad pagination', async () => {
    const s = await setup();
    for (const role of ['member', 'guest'] as const) {
      const user = await s.ws.addUser(role);
      expect((await as(user.token).GET('/api/workspaces/{slug}/sla-at-risk/', { params: { path: { slug: s.ws.slug } } })).response.status).toBe(200);
    }
    const outsider = await createWorkspace(ctx().api);
    expectFailure(await as(outsider.admin.token).GET('/api/workspaces/{slug}/sla-at-risk/', { params: { path: { slug: s.ws.slug } } }), 404, 'not_found');
    expectFailure(await clientFor(ctx().url).GET('/api/workspaces/{slug}/sla-at-risk/', { params: { path: { slug: s.ws.slug } } }), 401, 'unauthenticated');
    for (const query of [{ per_page: 0 }, { per_page: 101 }, { offset: -1 }]) {
      expectFailure(await admin(s.ws).GET('/api/workspaces/{slug}/sla-at-risk/', { params: { path: { slug: s.ws.slug }, query } }), 400, 'validation_failed');
    }
  });

  it('refuses a zero or negative at_risk_percent and a calendar of another workspace with the field path', async () => {
    const s = await setup();
    const other = await createWorkspace(ctx().api);
    const foreign = await calendar(other);
    const path = { slug: s.ws.slug, policyId: s.policy.id };
    for (const at_risk_percent of [0, -5, 100, 12.5]) {
      const problem = expectFailure(
        await admin(s.ws).PATCH('/api/workspaces/{slug}/sla-policies/{policyId}/', { params: { path }, body: { at_risk_percent } }),
        400,
        'validation_failed',
      );
      expect(problem.errors?.[0]?.path).toBe('/at_risk_percent');
    }
    const problem = expectFailure(
      await admin(s.ws).PATCH('/api/workspaces/{slug}/sla-policies/{policyId}/', { params: { path }, body: { calendar_id: foreign.id } }),
      400,
      'validation_failed',
    );
    expect(problem.errors?.[0]?.path).toBe('/calendar_id');
  });
});

describe('SLA events (contract 11.4)', () => {
  async function subscribed(ws: WorkspaceFixture) {
    const r = await startReceiver();
    receivers.push(r);
    const hook = await unwrap(
      admin(ws).POST('/api/workspaces/{slug}/webhooks/', {
        params: { path: { slug: ws.slug } },
        body: { url: r.url, event_types: ['sla.at_risk', 'sla.breached'] },
      }),
    );
    const events = () => r.received.map((x) => new Webhook(hook.secret).verify(x.body, x.headers as Record<string, string>) as { type: string; data: any });
    return { r, events };
  }
  // The scanner serves every workspace of the app: what a test checks is its own workspace's events in the outbox.
  const scanAll = () =>
    ctx()
      .app.jobs.find((j) => j.name === 'sla.events')!
      .run() as Promise<number>;
  const recorded = async (ws: WorkspaceFixture) => {
    const { rows } = await sql<{ type: string; target: string }>`
      SELECT type, data->>'target' AS target FROM events WHERE workspace_id = ${ws.workspaceId} AND type LIKE 'sla.%' ORDER BY created_at, id`.execute(
      ctx().database.db,
    );
    return rows.map((r) => `${r.type}:${r.target}`);
  };
  const deliver = () =>
    ctx()
      .app.jobs.find((j) => j.name === 'webhooks.deliver')!
      .run();

  it('sends sla.at_risk and sla.breached once per target and crossing, with the tracker and its issue', async () => {
    const s = await setup({ rules: [{ priority: 'urgent', response_time_h: 1, resolution_time_h: 2 }] });
    const { r, events } = await subscribed(s.ws);
    const { clock } = ctx();
    const issue = await s.issue();
    await scanAll();
    expect(await recorded(s.ws)).toEqual([]);
    clock.advance(46 * 60_000);
    await scanAll();
    await scanAll();
    expect(await recorded(s.ws)).toEqual(['sla.at_risk:response']);
    // The scanner's commit wakes the worker; a run of our own does not depend on how fast a loaded machine commits.
    await deliver();
    await r.waitFor(1);
    expect(events()[0]).toMatchObject({
      type: 'sla.at_risk',
      data: { target: 'response', tracker: { issue_id: issue.id, at_risk: true, issue: { id: issue.id, name: 'Printer on fire' } } },
    });
    // Down for hours: every crossing missed is sent once when the scanner runs again.
    clock.advance(5 * HOUR);
    await scanAll();
    await scanAll();
    expect((await recorded(s.ws)).sort()).toEqual(['sla.at_risk:resolution', 'sla.at_risk:response', 'sla.breached:resolution', 'sla.breached:response']);
    await deliver();
    await r.waitFor(4);
    expect(
      events()
        .map((e) => `${e.type}:${e.data.target}`)
        .sort(),
    ).toEqual(['sla.at_risk:resolution', 'sla.at_risk:response', 'sla.breached:resolution', 'sla.breached:response']);
    expect(events().find((e) => e.type === 'sla.breached')!.data.tracker).toMatchObject({ response_breached: true, issue: { id: issue.id } });
  });

  it('records each crossing once when scanners race (several instances)', async () => {
    const s = await setup();
    const { clock } = ctx();
    for (let i = 0; i < 30; i++) await s.issue();
    clock.advance(10 * HOUR);
    await Promise.all([scanAll(), scanAll(), scanAll()]);
    await scanAll();
    expect(await recorded(s.ws)).toHaveLength(30 * 4);
  });

  it('sends nothing while a target is paused, and its breach once after the pause ends', async () => {
    const s = await setup({ rules: [{ priority: 'urgent', response_time_h: 1, resolution_time_h: 10 }] });
    const { clock } = ctx();
    const issue = await s.issue();
    const waiting = await s.waitingState();
    clock.advance(8 * HOUR); // resolution at risk (7.5 h)
    await scanAll();
    expect((await recorded(s.ws)).sort()).toEqual(['sla.at_risk:resolution', 'sla.at_risk:response', 'sla.breached:response']);
    await s.move(issue.id, waiting.id);
    clock.advance(100 * HOUR);
    await scanAll();
    expect(await recorded(s.ws)).toHaveLength(3); // paused: no breach
    await s.move(issue.id, s.byGroup('unstarted'));
    clock.advance(2 * HOUR + 1000);
    await scanAll();
    await scanAll();
    expect((await recorded(s.ws)).slice(3)).toEqual(['sla.breached:resolution']);
  });
});
