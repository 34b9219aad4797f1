import { describe, expect, it } from 'vitest';
import { createIssue } from '../helpers/factories.js';
import { createProperty, propertiesPath, propertyPath, setup, valuePath, valuesPath } from './fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('custom values under concurrent changes', () => {
  it('never keeps a value whose option was removed while values were being set', async () => {
    const { api } = ctx();
    const { ws, project, issue } = await setup(api);
    const issues = [issue, ...(await Promise.all([1, 2, 3, 4, 5].map(() => createIssue(api, ws, project.id))))];
    const t = { token: ws.admin.token };
    for (let round = 0; round < 5; round++) {
      const p = await createProperty(api, ws, project.id, { type: 'select', options: ['keep', 'drop'] });
      const results = await Promise.all([
        ...issues.map((i) => api.put(valuePath(ws, i.id, p.id), { value: 'drop' }, t)),
        api.patch(propertyPath(ws, p.id), { options: ['keep'] }, t),
        ...issues.map((i) => api.put(valuePath(ws, i.id, p.id), { value: 'drop' }, t)),
      ]);
      for (const r of results) expect([200, 400, 409], r.text).toContain(r.status);
      const [prop] = (await api.get(propertiesPath(ws, project.id), t)).body.filter((x: any) => x.id === p.id);
      for (const i of issues) {
        const value = (await api.get(valuesPath(ws, project.id, i.id), t)).body.find((v: any) => v.property_id === p.id).value;
        if (value !== null) expect(prop.options).toContain(value);
      }
    }
  });

  it('keeps one property per name when two admins create the same name at once', async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const results = await Promise.all(
      ['Owner', 'OWNER', 'owner', 'Owner '].map((name) => api.post(propertiesPath(ws, project.id), { name, type: 'text' }, { token: ws.admin.token })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });
});
