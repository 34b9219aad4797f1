import { describe, expect, it } from 'vitest';
import { operationIdFor } from '../../src/http/operation-ids.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

describe('operation ids', () => {
  it('names every operation of the OpenAPI document, each name once', async () => {
    const doc = (await ctx().api.get('/openapi.json')).body as { paths: Record<string, Record<string, { operationId?: string }>> };
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('derives list/create/get/update/delete and action names from the path', () => {
    expect(operationIdFor('GET', '/api/workspaces/{slug}/sla-policies/')).toBe('listSlaPolicies');
    expect(operationIdFor('POST', '/api/workspaces/{slug}/sla-policies/')).toBe('createSlaPolicy');
    expect(operationIdFor('PATCH', '/api/workspaces/{slug}/sla-policies/{policyId}/')).toBe('updateSlaPolicy');
    expect(operationIdFor('DELETE', '/api/workspaces/{slug}/baselines/{baselineId}/')).toBe('deleteBaseline');
    expect(operationIdFor('PUT', '/api/workspaces/{slug}/issues/{issueId}/custom-values/{propertyId}/')).toBe('setCustomValue');
    expect(operationIdFor('GET', '/api/workspaces/{slug}/issues/{issueId}/sla/')).toBe('getIssueSla');
    expect(operationIdFor('POST', '/api/workspaces/{slug}/webhooks/{webhookId}/rotate-secret/')).toBe('rotateWebhookSecret');
    expect(operationIdFor('POST', '/api/admin/payments/{paymentId}/refund/')).toBe('adminRefundPayment');
    expect(operationIdFor('GET', '/api/admin/plans/')).toBe('adminListPlans');
  });
});
