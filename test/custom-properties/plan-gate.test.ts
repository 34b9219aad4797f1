import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, startProTrial } from '../helpers/factories.js';
import { createProperty, propertiesPath, propertyPath, setValue, valuePath, valuesPath } from './fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('custom properties and the plan', () => {
  it('refuses to define a property in a free workspace with 402 feature_not_in_plan', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const res = await api.post(propertiesPath(ws, project.id), { name: 'Estimate', type: 'number' }, { token: ws.admin.token });
    expectProblem(res, 402, 'feature_not_in_plan');
    expect((await api.get(propertiesPath(ws, project.id), { token: ws.admin.token })).body).toEqual([]);
  });

  it('keeps existing properties and values working after the plan lapses, and only refuses new definitions', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    await startProTrial(api, ws);
    const project = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id);
    const p = await createProperty(api, ws, project.id, { name: 'Stage', type: 'select', options: ['a', 'b'] });
    await setValue(api, ws, issue.id, p.id, 'a');
    clock.advanceDays(15); // the 14-day trial is over: the workspace is on the free plan again
    const t = { token: ws.admin.token };
    expectProblem(await api.post(propertiesPath(ws, project.id), { name: 'New', type: 'text' }, t), 402, 'feature_not_in_plan');
    expect((await api.get(propertiesPath(ws, project.id), t)).body).toHaveLength(1);
    expect((await api.get(valuesPath(ws, project.id, issue.id), t)).body[0].value).toBe('a');
    expect((await api.put(valuePath(ws, issue.id, p.id), { value: 'b' }, t)).status).toBe(200);
    expect((await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?custom.${p.id}=b`, t)).body.total).toBe(1);
    expect((await api.patch(propertyPath(ws, p.id), { options: ['b', 'c'] }, t)).status).toBe(200);
    expect((await api.delete(propertyPath(ws, p.id), t)).status).toBe(204);
  });
});
