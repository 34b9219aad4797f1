/**
 * Every operation of the OpenAPI document gets an `operationId`, derived here from its method and path in one
 * place (the typed client and its users name operations after them): `GET .../sla-policies/` is
 * `listSlaPolicies`, `POST .../sla-policies/` `createSlaPolicy`, `PATCH .../sla-policies/{policyId}/`
 * `updateSlaPolicy`, `POST .../webhooks/{webhookId}/rotate-secret/` `rotateWebhookSecret`, instance-admin routes
 * start with `admin`. Where the rule reads badly, `OVERRIDES` names the operation. A test keeps them unique.
 */
const OVERRIDES: Record<string, string> = {
  'GET /healthz': 'health',
  'GET /readyz': 'ready',
  'GET /api/workspaces/{slug}/sla-breached/': 'listSlaBreached',
  'GET /api/workspaces/{slug}/sla-at-risk/': 'listSlaAtRisk',
  'GET /api/workspaces/{slug}/views/{viewId}/issues/': 'listViewIssues',
  'POST /api/webhooks/provider/callback/': 'providerCallback',
  'POST /api/workspaces/{slug}/billing/checkout/': 'createCheckout',
  'POST /api/workspaces/{slug}/billing/trial/': 'startTrial',
  'POST /api/workspaces/{slug}/billing/cancel/': 'cancelSubscription',
  'GET /api/workspaces/{slug}/billing/plan-check/': 'checkPlanChange',
  'GET /api/workspaces/{slug}/billing/profile/': 'getBillingProfile',
  'PUT /api/workspaces/{slug}/billing/profile/': 'setBillingProfile',
  'POST /api/workspaces/{slug}/members/': 'addMember',
  'DELETE /api/workspaces/{slug}/members/{userId}/': 'removeMember',
  'POST /api/workspaces/{slug}/custom-properties/{propertyId}/merge-options/': 'mergeCustomPropertyOptions',
  'POST /api/workspaces/{slug}/timer/start/': 'startTimer',
  'POST /api/workspaces/{slug}/timer/stop/': 'stopTimer',
  'POST /api/workspaces/{slug}/projects/{projectId}/issues/bulk/': 'bulkUpdateIssues',
  'POST /api/workspaces/{slug}/projects/{projectId}/issues/bulk-delete/': 'bulkDeleteIssues',
  'GET /api/workspaces/{slug}/issues/': 'listWorkspaceIssues',
  'GET /api/users/me/notification-settings/': 'getNotificationSettings',
  'PUT /api/users/me/notification-settings/': 'setNotificationSettings',
  'GET /api/admin/mail/': 'adminListMail',
  'GET /api/admin/mail/{mailId}/': 'adminGetMail',
};

const VERB_FOR_ITEM: Record<string, string> = { get: 'get', patch: 'update', put: 'set', delete: 'delete' };

const pascal = (segment: string): string =>
  segment
    .split(/[-_]/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
const isPlural = (segment: string): boolean => /[^s]s$/.test(segment);
const singular = (segment: string): string => (segment.endsWith('ies') ? `${segment.slice(0, -3)}y` : isPlural(segment) ? segment.slice(0, -1) : segment);
const isParam = (segment: string): boolean => segment.startsWith('{');

/** `path` in OpenAPI form (`/api/workspaces/{slug}/`); `method` in any case. */
export function operationIdFor(method: string, path: string): string {
  const m = method.toLowerCase();
  const override = OVERRIDES[`${m.toUpperCase()} ${path}`];
  if (override) return override;
  const segments = path.split('/').filter((s) => s && s !== 'api');
  const admin = segments[0] === 'admin';
  const parts = admin ? segments.slice(1) : segments;
  const last = parts.at(-1) ?? 'root';
  let id: string;
  if (isParam(last)) {
    const resource = parts.at(-2) ?? 'root';
    id = (VERB_FOR_ITEM[m] ?? m) + pascal(singular(resource));
  } else {
    const parentIsItem = parts.length >= 2 && isParam(parts.at(-2)!);
    const parent = parentIsItem && parts.at(-3) !== 'workspaces' ? pascal(singular(parts.at(-3)!)) : '';
    if (isPlural(last)) {
      id = m === 'post' ? `create${pascal(singular(last))}` : `list${pascal(last)}`;
    } else if (m === 'get') {
      id = `get${parent}${pascal(last)}`;
    } else {
      // An action: its first word is the verb, the resource it acts on comes next (rotate-secret -> rotateWebhookSecret).
      const [verb, ...rest] = last.split('-');
      id = verb! + parent + pascal(rest.join('-'));
    }
  }
  return admin ? `admin${id[0]!.toUpperCase()}${id.slice(1)}` : id;
}

/** Fastify's `/a/:b/` as OpenAPI's `/a/{b}/`. */
export const openApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
