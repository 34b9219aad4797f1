import { ApiError, createClient, unwrap, uploadAttachment, type WorkItemClient } from '../../../client/src/index.js';
import type { DemoBackend, IssueView } from './demo.backend.js';

const PAGE = 100;
/** Never wait less than this on a 429 (a missing or zero Retry-After would otherwise spin). */
const MIN_WAIT_MS = 1_000;

/** `Retry-After` in seconds or as an HTTP date, as milliseconds to wait. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (header && /^\d+$/.test(header.trim())) return Math.max(MIN_WAIT_MS, Number(header.trim()) * 1000);
  const date = header ? Date.parse(header) : Number.NaN;
  return Number.isNaN(date) ? MIN_WAIT_MS : Math.max(MIN_WAIT_MS, date - now);
}

export interface HttpBackendOptions {
  /** Whether the service pays on the built-in sandbox (its configuration is not visible over the API). Default: yes. */
  sandboxPayments?: boolean;
  /** Told about each wait on a 429, before it (so the operator knows why nothing moves). */
  onWait?: (ms: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * A fetch that waits out 429 (and 503) answers by their `Retry-After` and sends the request again, as often as
 * needed: the service's per-token rate limit slows the demo down but never stops it half-way.
 */
function patientFetch({ onWait, sleep = (ms) => new Promise((r) => setTimeout(r, ms)) }: HttpBackendOptions): (request: Request) => Promise<Response> {
  return async (request) => {
    for (;;) {
      const response = await fetch(request.clone());
      if (response.status !== 429 && response.status !== 503) return response;
      const wait = retryAfterMs(response.headers.get('retry-after'));
      await response.body?.cancel();
      onWait?.(wait);
      await sleep(wait);
    }
  };
}

/** The demo over HTTP, through the typed client, against a running service (`--url`). */
export function httpBackend(baseUrl: string, options: HttpBackendOptions = {}): DemoBackend {
  const fetchPatiently = patientFetch(options);
  const anonymous = createClient({ baseUrl, fetch: fetchPatiently });
  let client: WorkItemClient | undefined;
  const api = () => {
    if (!client) throw new Error('The demo user is not signed in');
    return client;
  };
  const ws = (slug: string) => ({ params: { path: { slug } } });
  const inProject = (slug: string, projectId: string) => ({ params: { path: { slug, projectId } } });
  const inIssue = (slug: string, projectId: string, issueId: string) => ({ params: { path: { slug, projectId, issueId } } });

  async function signUp(account: { email: string; password: string; display_name: string }): Promise<{ token: string } | null> {
    const up = await anonymous.POST('/api/auth/sign-up/', { body: account });
    if (up.data) return up.data;
    if (up.response.status === 409) return null;
    throw new ApiError(up.error as never);
  }

  return {
    where: baseUrl,
    timeTravel: false,
    sandboxPayments: options.sandboxPayments ?? true,
    at: () => {},

    async useDemoUser(account) {
      const signIn = await anonymous.POST('/api/auth/sign-in/', { body: { email: account.email, password: account.password } });
      let token = signIn.data?.token;
      let created = false;
      if (!token) {
        const up = await signUp(account);
        if (!up) throw new ApiError(signIn.error as never);
        token = up.token;
        created = true;
      }
      client = createClient({ baseUrl, token, fetch: fetchPatiently });
      return { created };
    },
    ensureUser: async (account) => (await signUp(account)) !== null,

    async getWorkspace(slug) {
      const answer = await api().GET('/api/workspaces/{slug}/', ws(slug));
      if (answer.response.status === 404) return null;
      return unwrap(Promise.resolve(answer));
    },
    createWorkspace: (input) => unwrap(api().POST('/api/workspaces/', { body: input })),
    updateWorkspace: async (slug, body) => {
      await unwrap(api().PATCH('/api/workspaces/{slug}/', { ...ws(slug), body }));
    },
    listMembers: (slug) => unwrap(api().GET('/api/workspaces/{slug}/members/', ws(slug))),
    addMember: async (slug, body) => {
      await unwrap(api().POST('/api/workspaces/{slug}/members/', { ...ws(slug), body }));
    },

    getSubscription: async (slug) => (await unwrap(api().GET('/api/workspaces/{slug}/billing/subscription/', ws(slug)))).subscription,
    getBilling: async (slug) => (await unwrap(api().GET('/api/workspaces/{slug}/billing/subscription/', ws(slug)))).subscription,
    // The service runs its own duties on its timers.
    runBillingDuties: async () => {},
    advanceTestClock: async (slug, to) => {
      await unwrap(api().POST('/api/workspaces/{slug}/billing/test-clock/advance/', { ...ws(slug), body: { to } }));
    },
    async buyOnSandbox(slug, body, card) {
      const session = await unwrap(api().POST('/api/workspaces/{slug}/billing/checkout/', { ...ws(slug), body }));
      if (session.iframe_url) {
        // The Pay button of the sandbox's payment page, as a customer would click it.
        const paid = await fetchPatiently(
          new Request(`${session.iframe_url}/pay`, {
            method: 'POST',
            redirect: 'manual',
            ...(card ? { body: new URLSearchParams({ card_number: card }), headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
          }),
        );
        if (paid.status !== 303) throw new Error(`The sandbox's payment page answered ${paid.status}`);
      }
      return { merchant_oid: session.merchant_oid };
    },
    startTrial: async (slug, body) => {
      await unwrap(api().POST('/api/workspaces/{slug}/billing/trial/', { ...ws(slug), body }));
    },

    listCalendars: (slug) => unwrap(api().GET('/api/workspaces/{slug}/sla-calendars/', ws(slug))),
    createCalendar: (slug, body) => unwrap(api().POST('/api/workspaces/{slug}/sla-calendars/', { ...ws(slug), body })),
    listPolicies: (slug) => unwrap(api().GET('/api/workspaces/{slug}/sla-policies/', ws(slug))),
    createPolicy: (slug, body) => unwrap(api().POST('/api/workspaces/{slug}/sla-policies/', { ...ws(slug), body })),

    listProjects: (slug) => unwrap(api().GET('/api/workspaces/{slug}/projects/', ws(slug))),
    createProject: (slug, body) => unwrap(api().POST('/api/workspaces/{slug}/projects/', { ...ws(slug), body })),
    listStates: (slug, projectId) => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/states/', inProject(slug, projectId))),
    createState: (slug, projectId, body) => unwrap(api().POST('/api/workspaces/{slug}/projects/{projectId}/states/', { ...inProject(slug, projectId), body })),

    listProperties: (slug, projectId) => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', inProject(slug, projectId))),
    createProperty: (slug, projectId, body) =>
      unwrap(api().POST('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', { ...inProject(slug, projectId), body })),

    async listIssues(slug, projectId) {
      const rows: IssueView[] = [];
      for (;;) {
        const page = await unwrap(
          api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/', {
            params: { path: { slug, projectId }, query: { offset: rows.length, per_page: PAGE, order_by: 'sequence_id' } },
          }),
        );
        rows.push(...page.results);
        if (page.results.length === 0 || rows.length >= page.total) return rows;
      }
    },
    createIssue: (slug, projectId, body) => unwrap(api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/', { ...inProject(slug, projectId), body })),
    updateIssue: (slug, projectId, issueId, body) =>
      unwrap(api().PATCH('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', { ...inIssue(slug, projectId, issueId), body })),
    listValues: (slug, projectId, issueId) =>
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/custom-values/', inIssue(slug, projectId, issueId))),
    setValue: async (slug, issueId, propertyId, value) => {
      await unwrap(
        api().PUT('/api/workspaces/{slug}/issues/{issueId}/custom-values/{propertyId}/', {
          params: { path: { slug, issueId, propertyId } },
          body: { value: value as never },
        }),
      );
    },
    async listWorklogs(slug, projectId, issueId) {
      const rows: { user_id: string; started_at: string }[] = [];
      for (;;) {
        const page = await unwrap(
          api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/worklogs/', {
            params: { path: { slug, projectId, issueId }, query: { offset: rows.length, per_page: PAGE } },
          }),
        );
        rows.push(...page.results);
        if (page.results.length === 0 || rows.length >= page.total) return rows;
      }
    },
    createWorklog: async (slug, projectId, issueId, body) => {
      await unwrap(api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/worklogs/', { ...inIssue(slug, projectId, issueId), body }));
    },
    listComments: (slug, projectId, issueId) =>
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/comments/', inIssue(slug, projectId, issueId))),
    createComment: async (slug, projectId, issueId, body) => {
      await unwrap(
        api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/comments/', { ...inIssue(slug, projectId, issueId), body: { body } }),
      );
    },
    listAttachments: (slug, projectId, issueId) =>
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/attachments/', inIssue(slug, projectId, issueId))),
    uploadAttachment: async (slug, projectId, issueId, file) => {
      await unwrap(uploadAttachment(api(), { slug, projectId, issueId }, new Blob([file.bytes]), file.filename));
    },

    listLabels: (slug, projectId) => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/labels/', inProject(slug, projectId))),
    createLabel: (slug, projectId, body) => unwrap(api().POST('/api/workspaces/{slug}/projects/{projectId}/labels/', { ...inProject(slug, projectId), body })),
    listRelations: (slug, projectId, issueId) =>
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/relations/', inIssue(slug, projectId, issueId))),
    createRelation: async (slug, projectId, issueId, body) => {
      await unwrap(api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/relations/', { ...inIssue(slug, projectId, issueId), body }));
    },

    listViews: (slug) => unwrap(api().GET('/api/workspaces/{slug}/views/', ws(slug))),
    createView: (slug, body) => unwrap(api().POST('/api/workspaces/{slug}/views/', { ...ws(slug), body })),

    listBaselines: (slug, projectId) => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/baselines/', inProject(slug, projectId))),
    createBaseline: (slug, projectId, name) =>
      unwrap(api().POST('/api/workspaces/{slug}/projects/{projectId}/baselines/', { ...inProject(slug, projectId), body: { name } })),

    listWebhooks: (slug) => unwrap(api().GET('/api/workspaces/{slug}/webhooks/', ws(slug))),
    createWebhook: (slug, body) => unwrap(api().POST('/api/workspaces/{slug}/webhooks/', { ...ws(slug), body: body as never })),
    pauseWebhook: async (slug, webhookId) => {
      await unwrap(api().PATCH('/api/workspaces/{slug}/webhooks/{webhookId}/', { params: { path: { slug, webhookId } }, body: { is_active: false } }));
    },

    async asMember(account) {
      const signedIn = await unwrap(anonymous.POST('/api/auth/sign-in/', { body: account }));
      const member = createClient({ baseUrl, token: signedIn.token, fetch: fetchPatiently });
      return {
        createComment: async (slug, projectId, issueId, body) => {
          await unwrap(
            member.POST('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/comments/', { ...inIssue(slug, projectId, issueId), body: { body } }),
          );
        },
        updateIssue: async (slug, projectId, issueId, body) => {
          await unwrap(member.PATCH('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', { ...inIssue(slug, projectId, issueId), body }));
        },
      };
    },
    async listNotifications() {
      const rows: { id: string; kind: string; read_at: string | null; issue: { id: string } | null }[] = [];
      for (;;) {
        const page = await unwrap(api().GET('/api/users/me/notifications/', { params: { query: { offset: rows.length, per_page: PAGE } } }));
        rows.push(...page.results);
        if (page.results.length === 0 || rows.length >= page.total) return rows;
      }
    },
    markNotificationsRead: async (ids) => {
      await unwrap(api().POST('/api/users/me/notifications/read/', { body: { ids } }));
    },
    snoozeNotification: async (notificationId, until) => {
      await unwrap(api().POST('/api/users/me/notifications/{notificationId}/snooze/', { params: { path: { notificationId } }, body: { until } }));
    },
    listInvitations: (slug) => unwrap(api().GET('/api/workspaces/{slug}/invitations/', ws(slug))),
    createInvitation: async (slug, body) => {
      await unwrap(api().POST('/api/workspaces/{slug}/invitations/', { ...ws(slug), body }));
    },

    async slaCounts(slug) {
      const query = { offset: 0, per_page: 1 };
      const breached = await unwrap(api().GET('/api/workspaces/{slug}/sla-breached/', { params: { path: { slug }, query } }));
      const atRisk = await unwrap(api().GET('/api/workspaces/{slug}/sla-at-risk/', { params: { path: { slug }, query } }));
      return { breached: breached.total, atRisk: atRisk.total };
    },

    close: async () => {},
  };
}
