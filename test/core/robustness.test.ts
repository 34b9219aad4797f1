import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, startProTrial } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

interface Operation {
  method: string;
  path: string;
  bodyKeys: string[];
  queryKeys: string[];
}

/** Every operation of the OpenAPI document, with the names of its body and query fields. */
function operations(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        bodyKeys: Object.keys(schema?.properties ?? {}),
        queryKeys: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name),
      });
    }
  }
  return ops;
}

// Values that have broken services elsewhere: wrong types, huge and tiny numbers, odd strings, deep nesting.
const nasty = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, '', ' ', '\u0000', '\ud800', 'NaN', '-1', '1e309', '__proto__', '../../etc', "' OR 1=1 --"),
  fc.constantFrom(-1, 0, 0.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 63)),
  fc.string({ maxLength: 300 }),
);

describe('robustness', () => {
  it('answers arbitrary bodies and query values on every route with a 2xx or 4xx, never a 5xx', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    await startProTrial(api, ws);
    const project = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id, { priority: 'high' });
    const t = { token: ws.admin.token };
    const policy = await api.post(`/api/workspaces/${ws.slug}/sla-policies/`, { name: 'P', rules: [] }, t);
    const property = await api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/custom-properties/`, { name: 'N', type: 'number' }, t);
    const baseline = await api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/baselines/`, { name: 'B' }, t);
    const states = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/states/`, t);
    const ids: Record<string, string> = {
      slug: ws.slug,
      projectId: project.id,
      issueId: issue.id,
      policyId: policy.body.id,
      propertyId: property.body.id,
      baselineId: baseline.body.id,
      stateId: states.body[0].id,
      userId: ws.admin.user.id,
      tokenId: '01a1fe20-0000-7000-8000-000000000000',
      planSlug: 'pro',
      code: 'nope',
    };
    const doc = (await api.get('/openapi.json')).body;
    // Destructive routes would remove the fixtures the other routes need: they are exercised by their own tests.
    const ops = operations(doc).filter((op) => op.method !== 'DELETE' && !op.path.includes('/auth/sign-out'));
    expect(ops.length).toBeGreaterThan(40);
    const failures: string[] = [];
    for (const op of ops) {
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? name);
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            nasty,
            fc.dictionary(fc.constantFrom(...(op.bodyKeys.length ? op.bodyKeys : ['x'])), nasty, { maxKeys: 4 }),
          ),
          fc.dictionary(fc.constantFrom(...(op.queryKeys.length ? op.queryKeys : ['q'])), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
          async (body, query) => {
            const qs = new URLSearchParams(query).toString();
            const res = await api.request(op.method, `${path}${qs ? `?${qs}` : ''}`, {
              ...t,
              ...(op.method === 'GET' ? {} : { body }),
            });
            if (res.status >= 500) failures.push(`${op.method} ${op.path} ${JSON.stringify(body)} ?${qs} -> ${res.status} ${res.text}`);
            return res.status < 500;
          },
        ),
        { numRuns: 12, seed: 42, endOnFailure: true },
      ).catch(() => undefined);
    }
    expect(failures).toEqual([]);
  }, 240_000);
});
