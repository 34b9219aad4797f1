import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('SLA routes in the OpenAPI document', () => {
  it('lists every SLA route with its methods', async () => {
    const res = await ctx().api.get('/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths as Record<string, Record<string, unknown>>;
    const expected: Record<string, string[]> = {
      '/api/workspaces/{slug}/sla-policies/': ['get', 'post'],
      '/api/workspaces/{slug}/sla-policies/{policyId}/': ['patch', 'delete'],
      '/api/workspaces/{slug}/issues/{issueId}/sla/': ['get'],
      '/api/workspaces/{slug}/sla-breached/': ['get'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      expect(paths[path], path).toBeDefined();
      for (const m of methods) expect(paths[path]![m], `${m} ${path}`).toBeDefined();
    }
  });
});
