import { describe, expect, it } from 'vitest';
import type { operations } from '../../client/src/index.js';
import { clientFor, expectFailure, expectSuccess } from '../helpers/client.js';
import { createProject, createWorkspace, type WorkspaceFixture } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { createPolicy } from './sla-fixtures.js';

// These tests call the API through the generated typed client (client/); fixtures (workspaces, policies) are shared.
const ctx = useTestApp();
const as = (token: string) => clientFor(ctx().url, token);

type CalendarBody = operations['createSlaCalendar']['requestBody']['content']['application/json'];
const calendars = '/api/workspaces/{slug}/sla-calendars/' as const;
const calendar = '/api/workspaces/{slug}/sla-calendars/{calendarId}/' as const;
const policy = '/api/workspaces/{slug}/sla-policies/{policyId}/' as const;
const inWs = (ws: WorkspaceFixture) => ({ params: { path: { slug: ws.slug } } });
const ofCalendar = (ws: WorkspaceFixture, calendarId: string) => ({ params: { path: { slug: ws.slug, calendarId } } });
const ofPolicy = (ws: WorkspaceFixture, policyId: string) => ({ params: { path: { slug: ws.slug, policyId } } });
const WEEKDAYS_9_17 = (['fri', 'thu', 'wed', 'tue', 'mon'] as const).map((day) => ({ day, start: '09:00', end: '17:00' }));

async function createCalendar(ws: WorkspaceFixture, body: Partial<CalendarBody> = {}) {
  const res = await as(ws.admin.token).POST(calendars, {
    ...inWs(ws),
    body: { name: 'Office', time_zone: 'Europe/Istanbul', working_hours: WEEKDAYS_9_17, ...body },
  });
  return expectSuccess(res, 201);
}

describe('SLA calendars: create, read, update, delete', () => {
  it('creates a calendar and answers working hours sorted by day (mon first) and start', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const admin = as(ws.admin.token);
    const res = await admin.POST(calendars, {
      ...inWs(ws),
      body: {
        name: ' Istanbul office ',
        time_zone: 'Europe/Istanbul',
        working_hours: [
          { day: 'sun', start: '13:00', end: '24:00' },
          { day: 'mon', start: '13:00', end: '17:00' },
          { day: 'mon', start: '09:00', end: '13:00' },
        ],
        holidays: [{ date: '2026-10-29', name: 'Republic Day', recurring: true }, { date: '2026-12-31' }],
      },
    });
    const created = expectSuccess(res, 201);
    expect(created).toEqual({
      id: expect.any(String),
      workspace_id: ws.workspaceId,
      name: 'Istanbul office',
      description: '',
      time_zone: 'Europe/Istanbul',
      working_hours: [
        { day: 'mon', start: '09:00', end: '13:00' },
        { day: 'mon', start: '13:00', end: '17:00' },
        { day: 'sun', start: '13:00', end: '24:00' },
      ],
      holidays: [
        { date: '2026-10-29', name: 'Republic Day', recurring: true },
        { date: '2026-12-31', name: '', recurring: false },
      ],
      created_at: clock.now().toISOString(),
      updated_at: clock.now().toISOString(),
    });
    const one = expectSuccess(await admin.GET(calendar, ofCalendar(ws, created.id)));
    expect(one).toEqual(created);
    const list = await admin.GET(calendars, inWs(ws));
    expect(list.data).toEqual([created]);
  });

  it('accepts UTC and other IANA names', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    for (const tz of ['UTC', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata']) {
      const c = await createCalendar(ws, { time_zone: tz });
      expect(c).toMatchObject({ time_zone: tz });
    }
  });

  it('lets every member read and only admins write', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const cal = await createCalendar(ws);
    for (const role of ['member', 'guest'] as const) {
      const user = as((await ws.addUser(role)).token);
      expectSuccess(await user.GET(calendars, inWs(ws)));
      expectSuccess(await user.GET(calendar, ofCalendar(ws, cal.id)));
      expectFailure(await user.POST(calendars, { ...inWs(ws), body: { name: 'X', time_zone: 'UTC', working_hours: WEEKDAYS_9_17 } }), 403, 'forbidden');
      expectFailure(await user.PATCH(calendar, { ...ofCalendar(ws, cal.id), body: { name: 'Y' } }), 403, 'forbidden');
      expectFailure(await user.DELETE(calendar, ofCalendar(ws, cal.id)), 403, 'forbidden');
    }
  });

  it('answers 404 for another workspace calendar and for non-members', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const other = await createWorkspace(api);
    const cal = await createCalendar(other);
    const admin = as(ws.admin.token);
    expectFailure(await admin.GET(calendar, ofCalendar(ws, cal.id)), 404, 'not_found');
    expectFailure(await admin.PATCH(calendar, { ...ofCalendar(ws, cal.id), body: { name: 'Y' } }), 404, 'not_found');
    expectFailure(await admin.DELETE(calendar, ofCalendar(ws, cal.id)), 404, 'not_found');
    expectFailure(await admin.GET(calendars, inWs(other)), 404, 'not_found');
  });

  it('PATCH changes only the fields sent', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const cal = await createCalendar(ws, { description: 'd', holidays: [{ date: '2027-01-01', recurring: true }] });
    clock.advance(60_000);
    const res = await as(ws.admin.token).PATCH(calendar, {
      ...ofCalendar(ws, cal.id),
      body: { time_zone: 'Europe/Berlin', working_hours: [{ day: 'sat', start: '10:00', end: '12:00' }] },
    });
    expect(expectSuccess(res)).toMatchObject({
      name: 'Office',
      description: 'd',
      time_zone: 'Europe/Berlin',
      working_hours: [{ day: 'sat', start: '10:00', end: '12:00' }],
      holidays: [{ date: '2027-01-01', name: '', recurring: true }],
      updated_at: clock.now().toISOString(),
    });
  });

  it('deletes an unused calendar (204) and refuses one a policy uses (409)', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const admin = as(ws.admin.token);
    const used = await createCalendar(ws);
    const unused = await createCalendar(ws);
    const p = await createPolicy(api, ws, { calendar_id: used.id });
    expect(p).toMatchObject({ calendar_id: used.id, at_risk_percent: 75 });
    expect((await admin.DELETE(calendar, ofCalendar(ws, unused.id))).response.status).toBe(204);
    expectFailure(await admin.GET(calendar, ofCalendar(ws, unused.id)), 404);
    expectFailure(await admin.DELETE(calendar, ofCalendar(ws, used.id)), 409, 'conflict');
    // Once the policy lets go of it, it can go.
    expectSuccess(await admin.PATCH(policy, { ...ofPolicy(ws, p.id), body: { calendar_id: null } }));
    expect((await admin.DELETE(calendar, ofCalendar(ws, used.id))).response.status).toBe(204);
  });

  it('lets a workspace whose policy uses a calendar be deleted', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const cal = await createCalendar(ws);
    await createPolicy(api, ws, { calendar_id: cal.id, is_default: true });
    expect((await as(ws.admin.token).DELETE('/api/workspaces/{slug}/', inWs(ws))).response.status).toBe(204);
  });
});

describe('SLA calendars: validation', () => {
  const base = { name: 'Office', time_zone: 'Europe/Istanbul', working_hours: WEEKDAYS_9_17 };
  const cases: [string, Record<string, unknown>, string][] = [
    ['a missing name', { name: undefined }, '/name'],
    ['an empty name', { name: '' }, '/name'],
    ['a missing time zone', { time_zone: undefined }, '/time_zone'],
    ['an unknown time zone', { time_zone: 'Mars/Olympus_Mons' }, '/time_zone'],
    ['a time zone that is not a name', { time_zone: '+03:00' }, '/time_zone'],
    ['missing working hours', { working_hours: undefined }, '/working_hours'],
    ['empty working hours', { working_hours: [] }, '/working_hours'],
    ['an unknown day', { working_hours: [{ day: 'monday', start: '09:00', end: '17:00' }] }, '/working_hours/0/day'],
    ['a malformed start', { working_hours: [{ day: 'mon', start: '9:00', end: '17:00' }] }, '/working_hours/0/start'],
    ['an hour 25', { working_hours: [{ day: 'mon', start: '09:00', end: '25:00' }] }, '/working_hours/0/end'],
    ['a start of 24:00', { working_hours: [{ day: 'mon', start: '24:00', end: '24:00' }] }, '/working_hours/0/start'],
    ['24:30', { working_hours: [{ day: 'mon', start: '09:00', end: '24:30' }] }, '/working_hours/0/end'],
    ['start equal to end', { working_hours: [{ day: 'mon', start: '09:00', end: '09:00' }] }, '/working_hours/0/end'],
    ['start after end', { working_hours: [{ day: 'mon', start: '17:00', end: '09:00' }] }, '/working_hours/0/end'],
    [
      'overlapping intervals of one day',
      {
        working_hours: [
          { day: 'mon', start: '09:00', end: '13:00' },
          { day: 'tue', start: '09:00', end: '17:00' },
          { day: 'mon', start: '12:59', end: '17:00' },
        ],
      },
      '/working_hours/2',
    ],
    ['a malformed holiday date', { holidays: [{ date: '2026-1-01' }] }, '/holidays/0/date'],
    ['a holiday on February 30', { holidays: [{ date: '2026-01-01' }, { date: '2026-02-30' }] }, '/holidays/1/date'],
    ['February 29 of a common year', { holidays: [{ date: '2027-02-29' }] }, '/holidays/0/date'],
    ['a holiday in month 13', { holidays: [{ date: '2026-13-01' }] }, '/holidays/0/date'],
  ];
  it.each(cases)('rejects %s with 400 at the field', async (_label, patch, path) => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const body: Record<string, unknown> = { ...base, ...patch };
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    // Bad input on purpose: some bodies miss required fields or carry an unknown day, which the types forbid.
    const problem = expectFailure(await as(ws.admin.token).POST(calendars, { ...inWs(ws), body: body as CalendarBody }), 400, 'validation_failed');
    const errors = problem.errors ?? [];
    const paths = errors.map((e) => e.path);
    const field = path.split('/').pop()!;
    expect(
      paths.some((p) => p === path) || errors.some((e) => path.startsWith(`${e.path}/`) && e.message.includes(field)),
      JSON.stringify(problem.errors),
    ).toBe(true);
  });

  it('accepts touching intervals, 24:00 and February 29 of a leap year', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const c = await createCalendar(ws, {
      working_hours: [
        { day: 'mon', start: '13:00', end: '24:00' },
        { day: 'mon', start: '00:00', end: '13:00' },
      ],
      holidays: [{ date: '2028-02-29' }],
    });
    expect(c.working_hours).toEqual([
      { day: 'mon', start: '00:00', end: '13:00' },
      { day: 'mon', start: '13:00', end: '24:00' },
    ]);
  });

  it('validates PATCH the same way', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const cal = await createCalendar(ws);
    const admin = as(ws.admin.token);
    const problem = expectFailure(await admin.PATCH(calendar, { ...ofCalendar(ws, cal.id), body: { time_zone: 'Nowhere/City' } }), 400, 'validation_failed');
    expect(problem.errors![0]!.path).toBe('/time_zone');
    expectFailure(await admin.PATCH(calendar, { ...ofCalendar(ws, cal.id), body: { working_hours: [] } }), 400);
  });
});

describe('SLA policies: calendar and at-risk share', () => {
  it('defaults at_risk_percent to 75 and calendar_id to null, and accepts both on create and PATCH', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const admin = as(ws.admin.token);
    const cal = await createCalendar(ws);
    const p = await createPolicy(api, ws);
    expect(p).toMatchObject({ calendar_id: null, at_risk_percent: 75 });
    const q = await createPolicy(api, ws, { calendar_id: cal.id, at_risk_percent: null });
    expect(q).toMatchObject({ calendar_id: cal.id, at_risk_percent: null });
    const r = await admin.PATCH(policy, { ...ofPolicy(ws, p.id), body: { calendar_id: cal.id, at_risk_percent: 90 } });
    expect(r.data).toMatchObject({ calendar_id: cal.id, at_risk_percent: 90 });
    const list = (await admin.GET('/api/workspaces/{slug}/sla-policies/', inWs(ws))).data!;
    expect(list.find((x) => x.id === p.id)).toMatchObject({ calendar_id: cal.id, at_risk_percent: 90 });
  });

  it('rejects a calendar of another workspace, an unknown one, and a percent outside 1..99 (400 at the field)', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const admin = as(ws.admin.token);
    const other = await createWorkspace(api);
    const foreign = await createCalendar(other);
    const p = await createPolicy(api, ws);
    for (const [body, path] of [
      [{ calendar_id: foreign.id }, '/calendar_id'],
      [{ calendar_id: '01900000-0000-7000-8000-000000000000' }, '/calendar_id'],
      [{ at_risk_percent: 0 }, '/at_risk_percent'],
      [{ at_risk_percent: -5 }, '/at_risk_percent'],
      [{ at_risk_percent: 100 }, '/at_risk_percent'],
      [{ at_risk_percent: 50.5 }, '/at_risk_percent'],
    ] as const) {
      const created = await admin.POST('/api/workspaces/{slug}/sla-policies/', { ...inWs(ws), body: { name: 'X', ...body } });
      expect(expectFailure(created, 400, 'validation_failed').errors?.map((e) => e.path)).toContain(path);
      const patched = await admin.PATCH(policy, { ...ofPolicy(ws, p.id), body });
      expect(expectFailure(patched, 400, 'validation_failed').errors?.map((e) => e.path)).toContain(path);
    }
  });
});

describe('States: pauses_sla', () => {
  it('defaults to false, and is set on create and PATCH and shown on read', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const admin = as(ws.admin.token);
    const project = await createProject(api, ws);
    const states = { params: { path: { slug: ws.slug, projectId: project.id } } };
    const state = (stateId: string) => ({ params: { path: { slug: ws.slug, projectId: project.id, stateId } } });
    const statesRoute = '/api/workspaces/{slug}/projects/{projectId}/states/' as const;
    const stateRoute = '/api/workspaces/{slug}/projects/{projectId}/states/{stateId}/' as const;
    const list = (await admin.GET(statesRoute, states)).data!;
    expect(list.every((s) => s.pauses_sla === false)).toBe(true);
    const created = expectSuccess(await admin.POST(statesRoute, { ...states, body: { name: 'Waiting on customer', group: 'started', pauses_sla: true } }), 201);
    expect(created.pauses_sla).toBe(true);
    const plain = await admin.POST(statesRoute, { ...states, body: { name: 'Review', group: 'started' } });
    expect(plain.data?.pauses_sla).toBe(false);
    const patched = expectSuccess(await admin.PATCH(stateRoute, { ...state(created.id), body: { pauses_sla: false } }));
    expect(patched.pauses_sla).toBe(false);
    // A string where the schema wants a boolean: sent on purpose.
    const bad = await admin.PATCH(stateRoute, { ...state(created.id), body: { pauses_sla: 'yes' as unknown as boolean } });
    expect(expectFailure(bad, 400, 'validation_failed').errors![0]!.path).toBe('/pauses_sla');
  });
});
