import { describe, expect, it } from 'vitest';
import { createProject, createWorkspace, expectProblem, type WorkspaceFixture } from '../helpers/factories.js';
import type { Api } from '../helpers/http.js';
import { useTestApp } from '../helpers/test-app.js';
import { createPolicy, policiesPath } from './sla-fixtures.js';

const ctx = useTestApp();

const calendarsPath = (ws: WorkspaceFixture) => `/api/workspaces/${ws.slug}/sla-calendars/`;
const WEEKDAYS_9_17 = ['fri', 'thu', 'wed', 'tue', 'mon'].map((day) => ({ day, start: '09:00', end: '17:00' }));

async function createCalendar(api: Api, ws: WorkspaceFixture, body: Record<string, unknown> = {}) {
  const res = await api.post(calendarsPath(ws), { name: 'Office', time_zone: 'Europe/Istanbul', working_hours: WEEKDAYS_9_17, ...body }, { token: ws.admin.token });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; working_hours: { day: string; start: string; end: string }[] };
}

describe('SLA calendars: create, read, update, delete', () => {
  it('creates a calendar and answers working hours sorted by day (mon first) and start', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const res = await api.post(
      calendarsPath(ws),
      {
        name: ' Istanbul office ',
        time_zone: 'Europe/Istanbul',
        working_hours: [
          { day: 'sun', start: '13:00', end: '24:00' },
          { day: 'mon', start: '13:00', end: '17:00' },
          { day: 'mon', start: '09:00', end: '13:00' },
        ],
        holidays: [{ date: '2026-10-29', name: 'Republic Day', recurring: true }, { date: '2026-12-31' }],
      },
      { token: ws.admin.token },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
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
    const one = await api.get(`${calendarsPath(ws)}${res.body.id}/`, { token: ws.admin.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(res.body);
    const list = await api.get(calendarsPath(ws), { token: ws.admin.token });
    expect(list.body).toEqual([res.body]);
  });

  it('accepts UTC and other IANA names', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    for (const tz of ['UTC', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata']) {
      const c = await createCalendar(api, ws, { time_zone: tz });
      expect(c).toMatchObject({ time_zone: tz });
    }
  });

  it('lets every member read and only admins write', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const cal = await createCalendar(api, ws);
    for (const role of ['member', 'guest'] as const) {
      const user = await ws.addUser(role);
      expect((await api.get(calendarsPath(ws), { token: user.token })).status).toBe(200);
      expect((await api.get(`${calendarsPath(ws)}${cal.id}/`, { token: user.token })).status).toBe(200);
      expectProblem(await api.post(calendarsPath(ws), { name: 'X', time_zone: 'UTC', working_hours: WEEKDAYS_9_17 }, { token: user.token }), 403, 'forbidden');
      expectProblem(await api.patch(`${calendarsPath(ws)}${cal.id}/`, { name: 'Y' }, { token: user.token }), 403, 'forbidden');
      expectProblem(await api.delete(`${calendarsPath(ws)}${cal.id}/`, { token: user.token }), 403, 'forbidden');
    }
  });

  it('answers 404 for another workspace calendar and for non-members', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const other = await createWorkspace(api);
    const cal = await createCalendar(api, other);
    expectProblem(await api.get(`${calendarsPath(ws)}${cal.id}/`, { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.patch(`${calendarsPath(ws)}${cal.id}/`, { name: 'Y' }, { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.delete(`${calendarsPath(ws)}${cal.id}/`, { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.get(calendarsPath(other), { token: ws.admin.token }), 404, 'not_found');
  });

  it('PATCH changes only the fields sent', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const cal = await createCalendar(api, ws, { description: 'd', holidays: [{ date: '2027-01-01', recurring: true }] });
    clock.advance(60_000);
    const res = await api.patch(
      `${calendarsPath(ws)}${cal.id}/`,
      { time_zone: 'Europe/Berlin', working_hours: [{ day: 'sat', start: '10:00', end: '12:00' }] },
      { token: ws.admin.token },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
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
    const used = await createCalendar(api, ws);
    const unused = await createCalendar(api, ws);
    const policy = await createPolicy(api, ws, { calendar_id: used.id });
    expect(policy).toMatchObject({ calendar_id: used.id, at_risk_percent: 75 });
    expect((await api.delete(`${calendarsPath(ws)}${unused.id}/`, { token: ws.admin.token })).status).toBe(204);
    expectProblem(await api.get(`${calendarsPath(ws)}${unused.id}/`, { token: ws.admin.token }), 404);
    expectProblem(await api.delete(`${calendarsPath(ws)}${used.id}/`, { token: ws.admin.token }), 409, 'conflict');
    // Once the policy lets go of it, it can go.
    expect((await api.patch(`${policiesPath(ws)}${policy.id}/`, { calendar_id: null }, { token: ws.admin.token })).status).toBe(200);
    expect((await api.delete(`${calendarsPath(ws)}${used.id}/`, { token: ws.admin.token })).status).toBe(204);
  });

  it('lets a workspace whose policy uses a calendar be deleted', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const cal = await createCalendar(api, ws);
    await createPolicy(api, ws, { calendar_id: cal.id, is_default: true });
    expect((await api.delete(`/api/workspaces/${ws.slug}/`, { token: ws.admin.token })).status).toBe(204);
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
      { working_hours: [{ day: 'mon', start: '09:00', end: '13:00' }, { day: 'tue', start: '09:00', end: '17:00' }, { day: 'mon', start: '12:59', end: '17:00' }] },
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
    const res = await api.post(calendarsPath(ws), body, { token: ws.admin.token });
    expectProblem(res, 400, 'validation_failed');
    const paths = (res.body.errors as { path: string; message: string }[]).map((e) => e.path);
    const field = path.split('/').pop()!;
    expect(
      paths.some((p) => p === path) || (res.body.errors as { path: string; message: string }[]).some((e) => path.startsWith(`${e.path}/`) && e.message.includes(field)),
      JSON.stringify(res.body.errors),
    ).toBe(true);
  });

  it('accepts touching intervals, 24:00 and February 29 of a leap year', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const c = await createCalendar(api, ws, {
      working_hours: [{ day: 'mon', start: '13:00', end: '24:00' }, { day: 'mon', start: '00:00', end: '13:00' }],
      holidays: [{ date: '2028-02-29' }],
    });
    expect(c.working_hours).toEqual([{ day: 'mon', start: '00:00', end: '13:00' }, { day: 'mon', start: '13:00', end: '24:00' }]);
  });

  it('validates PATCH the same way', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const cal = await createCalendar(api, ws);
    const res = await api.patch(`${calendarsPath(ws)}${cal.id}/`, { time_zone: 'Nowhere/City' }, { token: ws.admin.token });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0].path).toBe('/time_zone');
    expectProblem(await api.patch(`${calendarsPath(ws)}${cal.id}/`, { working_hours: [] }, { token: ws.admin.token }), 400);
  });
});

describe('SLA policies: calendar and at-risk share', () => {
  it('defaults at_risk_percent to 75 and calendar_id to null, and accepts both on create and PATCH', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const cal = await createCalendar(api, ws);
    const p = await createPolicy(api, ws);
    expect(p).toMatchObject({ calendar_id: null, at_risk_percent: 75 });
    const q = await createPolicy(api, ws, { calendar_id: cal.id, at_risk_percent: null });
    expect(q).toMatchObject({ calendar_id: cal.id, at_risk_percent: null });
    const r = await api.patch(`${policiesPath(ws)}${p.id}/`, { calendar_id: cal.id, at_risk_percent: 90 }, { token: ws.admin.token });
    expect(r.body).toMatchObject({ calendar_id: cal.id, at_risk_percent: 90 });
    const list = (await api.get(policiesPath(ws), { token: ws.admin.token })).body as { id: string; calendar_id: string }[];
    expect(list.find((x) => x.id === p.id)).toMatchObject({ calendar_id: cal.id, at_risk_percent: 90 });
  });

  it('rejects a calendar of another workspace, an unknown one, and a percent outside 1..99 (400 at the field)', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const other = await createWorkspace(api);
    const foreign = await createCalendar(api, other);
    const p = await createPolicy(api, ws);
    for (const [body, path] of [
      [{ calendar_id: foreign.id }, '/calendar_id'],
      [{ calendar_id: '01900000-0000-7000-8000-000000000000' }, '/calendar_id'],
      [{ at_risk_percent: 0 }, '/at_risk_percent'],
      [{ at_risk_percent: -5 }, '/at_risk_percent'],
      [{ at_risk_percent: 100 }, '/at_risk_percent'],
      [{ at_risk_percent: 50.5 }, '/at_risk_percent'],
    ] as const) {
      const created = await api.post(policiesPath(ws), { name: 'X', ...body }, { token: ws.admin.token });
      expectProblem(created, 400, 'validation_failed');
      expect(created.body.errors.map((e: { path: string }) => e.path)).toContain(path);
      const patched = await api.patch(`${policiesPath(ws)}${p.id}/`, body, { token: ws.admin.token });
      expectProblem(patched, 400, 'validation_failed');
      expect(patched.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
  });
});

describe('States: pauses_sla', () => {
  it('defaults to false, and is set on create and PATCH and shown on read', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const statesPath = `/api/workspaces/${ws.slug}/projects/${project.id}/states/`;
    const list = (await api.get(statesPath, { token: ws.admin.token })).body as { pauses_sla: boolean }[];
    expect(list.every((s) => s.pauses_sla === false)).toBe(true);
    const created = await api.post(statesPath, { name: 'Waiting on customer', group: 'started', pauses_sla: true }, { token: ws.admin.token });
    expect(created.status, created.text).toBe(201);
    expect(created.body.pauses_sla).toBe(true);
    const plain = await api.post(statesPath, { name: 'Review', group: 'started' }, { token: ws.admin.token });
    expect(plain.body.pauses_sla).toBe(false);
    const patched = await api.patch(`${statesPath}${created.body.id}/`, { pauses_sla: false }, { token: ws.admin.token });
    expect(patched.status).toBe(200);
    expect(patched.body.pauses_sla).toBe(false);
    const bad = await api.patch(`${statesPath}${created.body.id}/`, { pauses_sla: 'yes' }, { token: ws.admin.token });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors[0].path).toBe('/pauses_sla');
  });
});
