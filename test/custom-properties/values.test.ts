import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, startProTrial } from '../helpers/factories.js';
import { createProperty, issuesPath, setup, setValue, valuePath, valuesPath } from './fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

const GOOD: Record<string, unknown[]> = {
  text: ['', 'hello', 'ünïcödé 🎉', 'x'.repeat(10_000), '🎉'.repeat(10_000)],
  url: ['https://example.com', 'http://localhost:3000/a?b=c#d', 'HTTPS://EXAMPLE.COM/Path', 'https://[::1]/', 'http://192.168.0.1'],
  number: [0, -1, 3.14159, 1e-7, 1.7976931348623157e308, -5e-324, 42],
  date: [
    '2026-11-21',
    '2024-02-29',
    '0001-01-01',
    '9999-12-31',
    '2026-11-21T09:30:00Z',
    '2026-11-21T09:30:00.123+03:00',
    '2026-11-21T09:30-05:30',
    '2026-11-21T23:59:59.999999Z',
  ],
  select: ['A', 'b c'],
  multi_select: [[], ['A'], ['b c', 'A']],
  checkbox: [true, false],
};

const BAD: Record<string, unknown[]> = {
  text: [1, true, ['a'], { a: 1 }, 'x'.repeat(10_001), 'nul\u0000', 'lone \ud800 surrogate'],
  url: [
    'example.com',
    '/relative',
    'ftp://example.com',
    'mailto:a@b.c',
    'javascript:alert(1)',
    'http://',
    'http:example.com',
    ' https://example.com',
    'https://exa mple.com',
    'https://example.com\n',
    1,
    '',
  ],
  number: ['1', true, [1], { n: 1 }],
  date: [
    '2026-02-30',
    '2025-02-29',
    '2026-13-01',
    '0000-01-01',
    '2026-1-1',
    '20261121',
    '2026-11-21T09:30:00',
    '2026-11-21 09:30:00Z',
    '2026-11-21T24:00:00Z',
    '2026-11-21T09:60Z',
    '2026-11-21T09:30:00+15:00',
    'tomorrow',
    1700000000,
    '',
  ],
  select: ['a', 'C', '', ['A'], 1],
  multi_select: ['A', ['A', 'A'], ['C'], [1], ['a'], [null]],
  checkbox: ['true', 1, 0, 'false'],
};

async function allTypes(api: ReturnType<typeof ctx>['api']) {
  const { ws, project, issue } = await setup(api);
  const props: Record<string, string> = {};
  for (const type of Object.keys(GOOD)) {
    const options = type === 'select' || type === 'multi_select' ? ['A', 'b c'] : undefined;
    props[type] = (await createProperty(api, ws, project.id, { name: type, type, ...(options && { options }) })).id;
  }
  return { ws, project, issue, props };
}

describe('custom values', () => {
  it('stores each valid value and reads it back exactly, with the JSON type of its property', async () => {
    const { api, clock } = ctx();
    const { ws, project, issue, props } = await allTypes(api);
    for (const [type, values] of Object.entries(GOOD)) {
      for (const value of values) {
        clock.advance(1000);
        const res = await api.put(valuePath(ws, issue.id, props[type]!), { value }, { token: ws.admin.token });
        expect(res.status, `${type} ${JSON.stringify(value).slice(0, 50)}: ${res.text.slice(0, 300)}`).toBe(200);
        expect(res.body).toEqual({ issue_id: issue.id, property_id: props[type], value, updated_at: clock.now().toISOString() });
        const list = await api.get(valuesPath(ws, project.id, issue.id), { token: ws.admin.token });
        expect(list.body.find((v: any) => v.property_id === props[type]).value).toEqual(value);
      }
    }
  });

  it('refuses each invalid value with 400 on /value and keeps the previous value', async () => {
    const { api } = ctx();
    const { ws, project, issue, props } = await allTypes(api);
    for (const [type, values] of Object.entries(BAD)) {
      await setValue(api, ws, issue.id, props[type]!, GOOD[type]![1]);
      for (const value of values) {
        const res = await api.put(valuePath(ws, issue.id, props[type]!), { value }, { token: ws.admin.token });
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors, `${type} ${JSON.stringify(value).slice(0, 40)}`).toEqual([{ path: '/value', message: expect.any(String) }]);
      }
      const list = await api.get(valuesPath(ws, project.id, issue.id), { token: ws.admin.token });
      expect(list.body.find((v: any) => v.property_id === props[type]).value).toEqual(GOOD[type]![1]);
    }
  });

  it('lists one entry per property of the project, value null where none is set', async () => {
    const { api } = ctx();
    const { ws, project, issue } = await setup(api);
    const t = { token: ws.admin.token };
    expect((await api.get(valuesPath(ws, project.id, issue.id), t)).body).toEqual([]);
    const a = await createProperty(api, ws, project.id, { name: 'A', type: 'number' });
    const b = await createProperty(api, ws, project.id, { name: 'B', type: 'select', options: ['x'] });
    const other = await createProject(api, ws);
    await createProperty(api, ws, other.id, { name: 'Elsewhere', type: 'text' });
    await setValue(api, ws, issue.id, b.id, 'x');
    expect((await api.get(valuesPath(ws, project.id, issue.id), t)).body).toEqual([
      { property_id: a.id, name: 'A', type: 'number', value: null },
      { property_id: b.id, name: 'B', type: 'select', value: 'x' },
    ]);
  });

  it('clears a value with null, and refuses to clear a required one with value_required', async () => {
    const { api, clock } = ctx();
    const { ws, project, issue } = await setup(api);
    const optional = await createProperty(api, ws, project.id, { type: 'text' });
    const required = await createProperty(api, ws, project.id, { type: 'text', is_required: true });
    await setValue(api, ws, issue.id, optional.id, 'a');
    await setValue(api, ws, issue.id, required.id, 'b');
    clock.advance(5000);
    const cleared = await setValue(api, ws, issue.id, optional.id, null);
    expect(cleared).toEqual({ issue_id: issue.id, property_id: optional.id, value: null, updated_at: clock.now().toISOString() });
    // clearing what is not set is fine too
    await setValue(api, ws, issue.id, optional.id, null);
    expectProblem(await api.put(valuePath(ws, issue.id, required.id), { value: null }, { token: ws.admin.token }), 400, 'value_required');
    const list = (await api.get(valuesPath(ws, project.id, issue.id), { token: ws.admin.token })).body;
    expect(list.map((v: any) => v.value)).toEqual([null, 'b']);
  });

  it('refuses a body without value, a body that is not an object and a body that is not JSON', async () => {
    const { api } = ctx();
    const { ws, issue, project } = await setup(api);
    const p = await createProperty(api, ws, project.id, { type: 'text' });
    const path = valuePath(ws, issue.id, p.id);
    const t = { token: ws.admin.token };
    expectProblem(await api.put(path, {}, t), 400, 'validation_failed');
    expectProblem(await api.put(path, { valu: 'x' }, t), 400, 'validation_failed');
    expectProblem(await api.put(path, 'x', t), 400, 'validation_failed');
    expectProblem(await api.put(path, null, t), 400);
    expectProblem(await api.put(path, [{ value: 'x' }], t), 400, 'validation_failed');
    expectProblem(await api.request('PUT', path, { ...t, raw: '{"value": ', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    expectProblem(await api.request('PUT', path, { ...t, raw: '{"value": NaN}', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
  });

  it('answers 404 for a property of another project of the same workspace, and for unknown ids', async () => {
    const { api } = ctx();
    const { ws, issue } = await setup(api);
    const other = await createProject(api, ws);
    const foreign = await createProperty(api, ws, other.id, { type: 'text' });
    const t = { token: ws.admin.token };
    expectProblem(await api.put(valuePath(ws, issue.id, foreign.id), { value: 'x' }, t), 404, 'not_found');
    const missing = '01900000-0000-7000-8000-000000000000';
    expectProblem(await api.put(valuePath(ws, missing, foreign.id), { value: 'x' }, t), 404, 'not_found');
    expectProblem(await api.put(valuePath(ws, issue.id, missing), { value: 'x' }, t), 404, 'not_found');
    expectProblem(await api.put(valuePath(ws, 'nope', foreign.id), { value: 'x' }, t), 400, 'validation_failed');
    // the values list of an issue under the wrong project
    expectProblem(await api.get(valuesPath(ws, other.id, issue.id), t), 404, 'not_found');
    expectProblem(await api.get(valuesPath(ws, other.id, missing), t), 404, 'not_found');
  });

  it('answers 404 for an issue or property of another workspace', async () => {
    const { api } = ctx();
    const a = await setup(api);
    const aProp = await createProperty(api, a.ws, a.project.id, { type: 'text' });
    const b = await createWorkspace(api, a.ws.admin);
    await startProTrial(api, b);
    const bProject = await createProject(api, b);
    const bIssue = await createIssue(api, b, bProject.id);
    const bProp = await createProperty(api, b, bProject.id, { type: 'text' });
    const t = { token: a.ws.admin.token };
    expectProblem(await api.put(valuePath(a.ws, bIssue.id, bProp.id), { value: 'x' }, t), 404, 'not_found');
    expectProblem(await api.put(valuePath(a.ws, bIssue.id, aProp.id), { value: 'x' }, t), 404, 'not_found');
    expectProblem(await api.put(valuePath(a.ws, a.issue.id, bProp.id), { value: 'x' }, t), 404, 'not_found');
    expectProblem(await api.get(valuesPath(a.ws, bProject.id, bIssue.id), t), 404, 'not_found');
    expectProblem(await api.get(valuesPath(a.ws, a.project.id, bIssue.id), t), 404, 'not_found');
  });

  it('lets admins and members set values, guests only read them, and non-members see 404', async () => {
    const { api } = ctx();
    const { ws, project, issue } = await setup(api);
    const p = await createProperty(api, ws, project.id, { type: 'number' });
    const member = await ws.addUser('member');
    const guest = await ws.addUser('guest');
    const outsider = (await createWorkspace(api)).admin;
    expect((await setValue(api, ws, issue.id, p.id, 1)).value).toBe(1);
    expect((await setValue(api, ws, issue.id, p.id, 2, member.token)).value).toBe(2);
    expectProblem(await api.put(valuePath(ws, issue.id, p.id), { value: 3 }, { token: guest.token }), 403, 'forbidden');
    expectProblem(await api.put(valuePath(ws, issue.id, p.id), { value: 3 }, { token: outsider.token }), 404, 'not_found');
    expectProblem(await api.put(valuePath(ws, issue.id, p.id), { value: 3 }), 401, 'unauthenticated');
    for (const user of [member, guest]) {
      expect((await api.get(valuesPath(ws, project.id, issue.id), { token: user.token })).body[0].value).toBe(2);
    }
    expectProblem(await api.get(valuesPath(ws, project.id, issue.id), { token: outsider.token }), 404, 'not_found');
  });

  it('removes the values of an issue when the issue is deleted', async () => {
    const { api } = ctx();
    const { ws, project, issue } = await setup(api);
    const p = await createProperty(api, ws, project.id, { type: 'checkbox' });
    await setValue(api, ws, issue.id, p.id, true);
    expect((await api.delete(`${issuesPath(ws, project.id)}${issue.id}/`, { token: ws.admin.token })).status).toBe(204);
    const rows = await ctx().database.db.selectFrom('custom_values').select('issue_id').where('property_id', '=', p.id).execute();
    expect(rows).toEqual([]);
  });

  it('keeps a select value valid while its option stays, even after other options change', async () => {
    const { api } = ctx();
    const { ws, project, issue } = await setup(api);
    const p = await createProperty(api, ws, project.id, { type: 'select', options: ['A', 'B'] });
    await setValue(api, ws, issue.id, p.id, 'A');
    await api.patch(`/api/workspaces/${ws.slug}/custom-properties/${p.id}/`, { options: ['A', 'C'] }, { token: ws.admin.token });
    expectProblem(await api.put(valuePath(ws, issue.id, p.id), { value: 'B' }, { token: ws.admin.token }), 400, 'validation_failed');
    expect((await setValue(api, ws, issue.id, p.id, 'C')).value).toBe('C');
  });
});
