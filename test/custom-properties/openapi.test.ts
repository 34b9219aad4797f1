import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('custom properties in the OpenAPI document', () => {
  it('describes the custom.<propertyId> filter on the issue list', async () => {
    const doc = (await ctx().api.get('/openapi.json')).body;
    const op = doc.paths['/api/workspaces/{slug}/projects/{projectId}/issues/'].get;
    expect(op.description).toContain('custom.<propertyId>');
    expect(op.description).toContain('.gte');
  });

  // @fastify/swagger only sees routes registered after it: this guards the order in src/app.ts.
  it('lists every custom-property route', async () => {
    const doc = (await ctx().api.get('/openapi.json')).body;
    for (const path of [
      '/api/workspaces/{slug}/projects/{projectId}/custom-properties/',
      '/api/workspaces/{slug}/custom-properties/{propertyId}/',
      '/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/custom-values/',
      '/api/workspaces/{slug}/issues/{issueId}/custom-values/{propertyId}/',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const put = doc.paths['/api/workspaces/{slug}/issues/{issueId}/custom-values/{propertyId}/'].put;
    expect(Object.keys(put.responses).sort()).toEqual(['200', '400', '401', '403', '404', '500', '503']);
  });
});
