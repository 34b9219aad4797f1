import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, startProTrial } from '../helpers/factories.js';
import { createProperty, propertiesPath, propertyPath, setup, setValue, valuesPath } from './fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('custom property definitions', () => {
  it('creates a property of each of the seven types and lists them oldest first as a plain array', async () => {
    const { api, clock } = ctx();
    const { ws, project } = await setup(api);
    const made = [];
    for (const type of ['text', 'number', 'date', 'select', 'multi_select', 'checkbox', 'url']) {
      clock.advance(1000);
      const options = type === 'select' || type === 'multi_select' ? ['A', 'B'] : undefined;
      const res = await api.post(propertiesPath(ws, project.id), { name: `My ${type}`, type, ...(options && { options }) }, { token: ws.admin.token });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        workspace_id: ws.workspaceId,
        project_id: project.id,
        name: `My ${type}`,
        description: '',
        type,
        options: options ?? [],
        is_required: false,
        created_at: clock.now().toISOString(),
        updated_at: clock.now().toISOString(),
      });
      made.push(res.body);
    }
    const list = await api.get(propertiesPath(ws, project.id), { token: ws.admin.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual(made);
  });

  it('takes description, options and is_required at creation and trims the name', async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const res = await api.post(
      propertiesPath(ws, project.id),
      { name: '  Stage  ', description: 'Where it is', type: 'select', options: ['Design', 'Build', 'design'], is_required: true },
      { token: ws.admin.token },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ name: 'Stage', description: 'Where it is', options: ['Design', 'Build', 'design'], is_required: true });
  });

  it('accepts an empty options list for types without choices', async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const p = await createProperty(api, ws, project.id, { type: 'text', options: [] });
    expect(p.options).toEqual([]);
  });

  it('refuses a missing name or type, an unknown type and a blank name with 400', async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const path = propertiesPath(ws, project.id);
    const t = { token: ws.admin.token };
    expectProblem(await api.post(path, { type: 'text' }, t), 400, 'validation_failed');
    expectProblem(await api.post(path, { name: 'X' }, t), 400, 'validation_failed');
    expectProblem(await api.post(path, { name: 'X', type: 'json' }, t), 400, 'validation_failed');
    expectProblem(await api.post(path, { name: '   ', type: 'text' }, t), 400, 'validation_failed');
    expectProblem(await api.post(path, { name: 'x'.repeat(256), type: 'text' }, t), 400, 'validation_failed');
    expectProblem(await api.post(path, { name: 'Nul\u0000', type: 'text' }, t), 400, 'validation_failed');
    expectProblem(await api.post(path, { name: 'X', type: 'text', is_required: 'yes' }, t), 400, 'validation_failed');
  });

  it('refuses options on types without choices, and missing, empty, blank or repeated options on select types', async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const path = propertiesPath(ws, project.id);
    const t = { token: ws.admin.token };
    for (const type of ['text', 'number', 'date', 'checkbox', 'url']) {
      const res = await api.post(path, { name: 'X', type, options: ['a'] }, t);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].path).toBe('/options');
    }
    for (const type of ['select', 'multi_select']) {
      expectProblem(await api.post(path, { name: 'X', type }, t), 400, 'validation_failed');
      expectProblem(await api.post(path, { name: 'X', type, options: [] }, t), 400, 'validation_failed');
      expectProblem(await api.post(path, { name: 'X', type, options: [''] }, t), 400, 'validation_failed');
      expectProblem(await api.post(path, { name: 'X', type, options: ['  '] }, t), 400, 'validation_failed');
      expectProblem(await api.post(path, { name: 'X', type, options: [1] }, t), 400, 'validation_failed');
      const dup = await api.post(path, { name: 'X', type, options: ['a', 'b', 'a'] }, t);
      expectProblem(dup, 400, 'validation_failed');
      expect(dup.body.errors[0].path).toBe('/options/2');
    }
  });

  it('refuses a second property of the same name in the project, ignoring case, with 409', async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    await createProperty(api, ws, project.id, { name: 'Story points', type: 'number' });
    const again = await api.post(propertiesPath(ws, project.id), { name: 'STORY POINTS', type: 'text' }, { token: ws.admin.token });
    expectProblem(again, 409, 'conflict');
    // another project may use the name
    const other = await createProject(api, ws);
    await createProperty(api, ws, other.id, { name: 'story points', type: 'number' });
  });

  it('updates name, description, options and is_required, only the fields sent', async () => {
    const { api, clock } = ctx();
    const { ws, project } = await setup(api);
    const p = await createProperty(api, ws, project.id, { name: 'Stage', type: 'select', options: ['A', 'B'], description: 'd' });
    clock.advanceHours(1);
    const res = await api.patch(propertyPath(ws, p.id), { options: ['A', 'B', 'C'] }, { token: ws.admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...p, options: ['A', 'B', 'C'], updated_at: clock.now().toISOString() });
    const res2 = await api.patch(propertyPath(ws, p.id), { name: 'Phase', description: '', is_required: true }, { token: ws.admin.token });
    expect(res2.body).toMatchObject({ name: 'Phase', description: '', is_required: true, options: ['A', 'B', 'C'], type: 'select' });
    expect((await api.get(propertiesPath(ws, project.id), { token: ws.admin.token })).body).toEqual([res2.body]);
  });

  it("lets a property keep its own name in another case, but not take another property's name", async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const a = await createProperty(api, ws, project.id, { name: 'Alpha', type: 'text' });
    await createProperty(api, ws, project.id, { name: 'Beta', type: 'text' });
    expect((await api.patch(propertyPath(ws, a.id), { name: 'ALPHA' }, { token: ws.admin.token })).body.name).toBe('ALPHA');
    expectProblem(await api.patch(propertyPath(ws, a.id), { name: 'beta' }, { token: ws.admin.token }), 409, 'conflict');
  });

  it('refuses a change of type with 400 and accepts the same type', async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const p = await createProperty(api, ws, project.id, { type: 'number' });
    const res = await api.patch(propertyPath(ws, p.id), { type: 'text' }, { token: ws.admin.token });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0].path).toBe('/type');
    const same = await api.patch(propertyPath(ws, p.id), { type: 'number', name: 'Estimate' }, { token: ws.admin.token });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ type: 'number', name: 'Estimate' });
  });

  it('applies the option rules on update', async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const sel = await createProperty(api, ws, project.id, { type: 'multi_select', options: ['A'] });
    const txt = await createProperty(api, ws, project.id, { type: 'text' });
    const t = { token: ws.admin.token };
    expectProblem(await api.patch(propertyPath(ws, sel.id), { options: [] }, t), 400, 'validation_failed');
    expectProblem(await api.patch(propertyPath(ws, sel.id), { options: ['A', 'A'] }, t), 400, 'validation_failed');
    expectProblem(await api.patch(propertyPath(ws, txt.id), { options: ['A'] }, t), 400, 'validation_failed');
    expect((await api.patch(propertyPath(ws, txt.id), { options: [] }, t)).status).toBe(200);
  });

  it('refuses to remove an option that a value uses with 409 option_in_use, and changes nothing', async () => {
    const { api } = ctx();
    const { ws, project, issue } = await setup(api);
    const p = await createProperty(api, ws, project.id, { type: 'select', options: ['A', 'B', 'C'] });
    await setValue(api, ws, issue.id, p.id, 'B');
    const res = await api.patch(propertyPath(ws, p.id), { options: ['A', 'C'], name: 'Renamed' }, { token: ws.admin.token });
    expectProblem(res, 409, 'option_in_use');
    const [prop] = (await api.get(propertiesPath(ws, project.id), { token: ws.admin.token })).body;
    expect(prop).toMatchObject({ options: ['A', 'B', 'C'], name: p.name });
    // an unused option can go
    expect((await api.patch(propertyPath(ws, p.id), { options: ['B', 'A'] }, { token: ws.admin.token })).body.options).toEqual(['B', 'A']);
  });

  it('with ?force=true removes the option from the values that hold it', async () => {
    const { api } = ctx();
    const { ws, project, issue } = await setup(api);
    const issue2 = await createIssue(api, ws, project.id);
    const sel = await createProperty(api, ws, project.id, { type: 'select', options: ['A', 'B'] });
    const multi = await createProperty(api, ws, project.id, { type: 'multi_select', options: ['x', 'y', 'z'] });
    await setValue(api, ws, issue.id, sel.id, 'B');
    await setValue(api, ws, issue2.id, sel.id, 'A');
    await setValue(api, ws, issue.id, multi.id, ['z', 'y', 'x']);
    await setValue(api, ws, issue2.id, multi.id, ['y']);
    const t = { token: ws.admin.token };
    expectProblem(await api.patch(`${propertyPath(ws, multi.id)}?force=false`, { options: ['x', 'z'] }, t), 409, 'option_in_use');
    expect((await api.patch(`${propertyPath(ws, sel.id)}?force=true`, { options: ['A'] }, t)).status).toBe(200);
    expect((await api.patch(`${propertyPath(ws, multi.id)}?force=true`, { options: ['x', 'z'] }, t)).status).toBe(200);
    const v1 = (await api.get(valuesPath(ws, project.id, issue.id), t)).body;
    const v2 = (await api.get(valuesPath(ws, project.id, issue2.id), t)).body;
    expect(v1.map((v: any) => v.value)).toEqual([null, ['z', 'x']]);
    expect(v2.map((v: any) => v.value)).toEqual(['A', []]);
    // the filter agrees with the stripped values
    const byY = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?custom.${multi.id}=x`, t);
    expect(byY.body.results.map((i: any) => i.id)).toEqual([issue.id]);
    expectProblem(await api.patch(`${propertyPath(ws, sel.id)}?force=maybe`, { options: ['A'] }, t), 400, 'validation_failed');
  });

  it('deletes a property with 204, and its values with it', async () => {
    const { api } = ctx();
    const { ws, project, issue } = await setup(api);
    const keep = await createProperty(api, ws, project.id, { type: 'checkbox' });
    const gone = await createProperty(api, ws, project.id, { type: 'text' });
    await setValue(api, ws, issue.id, gone.id, 'hello');
    await setValue(api, ws, issue.id, keep.id, true);
    const res = await api.delete(propertyPath(ws, gone.id), { token: ws.admin.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api.get(valuesPath(ws, project.id, issue.id), { token: ws.admin.token })).body).toEqual([
      { property_id: keep.id, name: keep.name, type: 'checkbox', value: true },
    ]);
    const rows = await ctx().database.db.selectFrom('custom_values').select('issue_id').where('property_id', '=', gone.id).execute();
    expect(rows).toEqual([]);
    expectProblem(await api.delete(propertyPath(ws, gone.id), { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.patch(propertyPath(ws, gone.id), { name: 'x' }, { token: ws.admin.token }), 404, 'not_found');
  });

  it('answers 404 for a project that does not exist and 400 for ids that are not UUIDs', async () => {
    const { api } = ctx();
    const { ws } = await setup(api);
    const t = { token: ws.admin.token };
    const missing = '01900000-0000-7000-8000-000000000000';
    expectProblem(await api.get(propertiesPath(ws, missing), t), 404, 'not_found');
    expectProblem(await api.post(propertiesPath(ws, missing), { name: 'x', type: 'text' }, t), 404, 'not_found');
    expectProblem(await api.get(propertiesPath(ws, 'nope'), t), 400, 'validation_failed');
    expectProblem(await api.patch(propertyPath(ws, 'nope'), {}, t), 400, 'validation_failed');
  });
});

describe('custom property definitions, property-based', () => {
  it('answers arbitrary create and update bodies with 201/200, 400 or 409, never a 500', async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const existing = await createProperty(api, ws, project.id, { name: 'Existing', type: 'select', options: ['a'] });
    const t = { token: ws.admin.token };
    const anyJson = fc.jsonValue({ stringUnit: 'binary', maxDepth: 2 });
    const body = fc.record(
      {
        name: fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), anyJson),
        description: fc.oneof(fc.string({ unit: 'binary' }), anyJson),
        type: fc.oneof(fc.constantFrom('text', 'number', 'date', 'select', 'multi_select', 'checkbox', 'url'), anyJson),
        options: fc.oneof(fc.array(fc.string({ unit: 'binary', maxLength: 10 }), { maxLength: 4 }), anyJson),
        is_required: fc.oneof(fc.boolean(), anyJson),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const created = await api.post(propertiesPath(ws, project.id), b, t);
        expect([201, 400, 409], created.text).toContain(created.status);
        const { type: _type, ...patch } = b as Record<string, unknown>;
        const updated = await api.patch(propertyPath(ws, existing.id), patch, t);
        expect([200, 400, 409], updated.text).toContain(updated.status);
        if (created.status === 201) {
          expect(created.body.name).toBe((b.name as string).trim());
          await api.delete(propertyPath(ws, created.body.id), t);
        }
      }),
      { numRuns: 80 },
    );
  }, 120_000);
});

describe('custom property roles and isolation', () => {
  it('lets every role read, only admins define, and non-members see 404', async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const member = await ws.addUser('member');
    const guest = await ws.addUser('guest');
    const outsider = (await createWorkspace(api)).admin;
    const p = await createProperty(api, ws, project.id, { type: 'text' });
    for (const user of [member, guest]) {
      expect((await api.get(propertiesPath(ws, project.id), { token: user.token })).body).toEqual([p]);
      expectProblem(await api.post(propertiesPath(ws, project.id), { name: 'x', type: 'text' }, { token: user.token }), 403, 'forbidden');
      expectProblem(await api.patch(propertyPath(ws, p.id), { name: 'x' }, { token: user.token }), 403, 'forbidden');
      expectProblem(await api.delete(propertyPath(ws, p.id), { token: user.token }), 403, 'forbidden');
    }
    expectProblem(await api.get(propertiesPath(ws, project.id), { token: outsider.token }), 404, 'not_found');
    expectProblem(await api.post(propertiesPath(ws, project.id), { name: 'x', type: 'text' }, { token: outsider.token }), 404, 'not_found');
    expectProblem(await api.patch(propertyPath(ws, p.id), { name: 'x' }, { token: outsider.token }), 404, 'not_found');
    expectProblem(await api.delete(propertyPath(ws, p.id), { token: outsider.token }), 404, 'not_found');
    expectProblem(await api.get(propertiesPath(ws, project.id)), 401, 'unauthenticated');
  });

  it('answers 404 for a project or property of another workspace', async () => {
    const { api } = ctx();
    const a = await setup(api);
    const b = await createWorkspace(api, a.ws.admin); // same admin, second workspace
    await startProTrial(api, b);
    const bProject = await createProject(api, b);
    const bProp = await createProperty(api, b, bProject.id, { type: 'text' });
    const t = { token: a.ws.admin.token };
    expectProblem(await api.get(propertiesPath(a.ws, bProject.id), t), 404, 'not_found');
    expectProblem(await api.post(propertiesPath(a.ws, bProject.id), { name: 'x', type: 'text' }, t), 404, 'not_found');
    expectProblem(await api.patch(propertyPath(a.ws, bProp.id), { name: 'x' }, t), 404, 'not_found');
    expectProblem(await api.delete(propertyPath(a.ws, bProp.id), t), 404, 'not_found');
    expect((await api.get(propertiesPath(b, bProject.id), t)).body).toEqual([bProp]);
  });
});
