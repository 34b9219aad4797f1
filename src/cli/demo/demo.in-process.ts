import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from '../../config/config.js';
import type { DatabaseHandle } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { databaseSandboxStore, sandboxRoutes } from '../../modules/billing/index.js';
import { type AppServices, buildServices, type Services } from '../../services.js';
import type { DemoBackend } from './demo.backend.js';

/** Pages of this size are read in process (no HTTP page cap applies; the demo's lists are a few hundred rows). */
const PAGE = 500;

/** Reads every page of a paginated service call. */
async function allPages<T>(read: (page: { offset: number; per_page: number }) => Promise<{ results: T[]; total: number }>): Promise<T[]> {
  const rows: T[] = [];
  for (;;) {
    const page = await read({ offset: rows.length, per_page: PAGE });
    rows.push(...page.results);
    if (page.results.length === 0 || rows.length >= page.total) return rows;
  }
}

const isConflict = (error: unknown) => error instanceof AppError && error.code === 'conflict';
const isNotFound = (error: unknown) => error instanceof AppError && error.code === 'not_found';

/**
 * The built-in sandbox provider, in this process: the service's own sandbox routes on a loopback port of their own
 * (the checkout asks the provider for a token over HTTP, as it would ask PayTR), its orders in the database like the
 * service's, and its notification handed straight to the billing service's callback handler instead of being sent
 * to a service that may not run.
 */
async function startSandbox(config: Config, database: DatabaseHandle, onCallback: (form: Record<string, string>) => Promise<{ status: number; text: string }>) {
  const app = Fastify({ logger: false });
  await app.register(sandboxRoutes, {
    config,
    callbackUrl: 'http://in-process.invalid/api/webhooks/provider/callback/',
    store: databaseSandboxStore(database.db),
    retryDelaysMs: [],
    fetch: async (_url, init) => {
      const answer = await onCallback(Object.fromEntries(new URLSearchParams(String(init?.body ?? ''))));
      return new Response(answer.text, { status: answer.status });
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, base: `http://127.0.0.1:${port}/sandbox/paytr` };
}

/**
 * The demo in process: the module services the routes use (`buildServices`), on the database `npm start` would use,
 * acting as the demo user (an admin of its workspace), so validation, history, SLA trackers and the webhook outbox
 * happen exactly as through the API, without HTTP and without its rate limit. Its clock can be set into the past,
 * which gives the demo two weeks of history.
 */
export async function inProcessBackend(config: Config, database: DatabaseHandle, where: string): Promise<DemoBackend> {
  await migrateToLatest(database.db);
  let fixed: Date | null = null;
  const clock: Clock = { now: () => (fixed ? new Date(fixed) : new Date()) };

  let sandbox: FastifyInstance | undefined;
  let serviceConfig: Config = { ...config, logLevel: 'silent' };
  if (config.paymentProvider === 'sandbox') {
    const started = await startSandbox(serviceConfig, database, (form) => composition.services.billing.handleCallback(form));
    sandbox = started.app;
    serviceConfig = { ...serviceConfig, paytr: { ...serviceConfig.paytr, apiBase: started.base, iframeBase: started.base } };
  }
  // The sandbox's callback (above) reaches the billing service through this, built once the sandbox's address is known.
  const composition: Services = buildServices(serviceConfig, database, clock);
  const s: AppServices = composition.services;
  let actor: Actor | undefined;
  const me = () => {
    if (!actor) throw new Error('The demo user is not signed in');
    return actor;
  };

  return {
    where,
    timeTravel: true,
    sandboxPayments: config.paymentProvider === 'sandbox',
    at: (when) => {
      fixed = when;
    },

    async asMember({ email }) {
      const user = await database.db.selectFrom('users').select(['id', 'is_instance_admin']).where('email', '=', email.toLowerCase()).executeTakeFirstOrThrow();
      const member: Actor = { userId: user.id, tokenId: 'cli-demo', isInstanceAdmin: user.is_instance_admin };
      return {
        createComment: async (slug, projectId, issueId, body) => {
          await s.workItems.createComment(member, slug, projectId, issueId, { body });
        },
        updateIssue: async (slug, projectId, issueId, input) => {
          await s.workItems.updateIssue(member, slug, projectId, issueId, input);
        },
      };
    },
    listNotifications: () => allPages((page) => s.notifications.list(me(), page)),
    markNotificationsRead: async (ids) => {
      await s.notifications.markRead(me(), { ids });
    },
    snoozeNotification: async (id, until) => {
      await s.notifications.snooze(me(), id, until);
    },
    listInvitations: (slug) => s.invitations.list(me(), slug),
    createInvitation: async (slug, input) => {
      await s.invitations.create(me(), slug, input);
    },

    async useDemoUser(account) {
      let created = false;
      try {
        await s.identity.createUser(account);
        created = true;
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
      // No service looks a user up by e-mail without signing in (which would leave a session token per run).
      const user = await database.db
        .selectFrom('users')
        .select(['id', 'is_instance_admin'])
        .where('email', '=', account.email.toLowerCase())
        .executeTakeFirstOrThrow();
      actor = { userId: user.id, tokenId: 'cli-demo', isInstanceAdmin: user.is_instance_admin };
      return { created };
    },
    async ensureUser(account) {
      try {
        await s.identity.createUser(account);
        return true;
      } catch (error) {
        if (isConflict(error)) return false;
        throw error;
      }
    },

    async getWorkspace(slug) {
      try {
        return await s.workspaces.get(me(), slug);
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },
    createWorkspace: (input) => s.workspaces.create(me(), input),
    updateWorkspace: async (slug, input) => {
      await s.workspaces.update(me(), slug, input);
    },
    listMembers: (slug) => s.identity.listMembers(me(), slug),
    addMember: async (slug, input) => {
      await s.identity.addMember(me(), slug, input);
    },

    async getSubscription(slug) {
      return (await s.billing.getSubscription(me(), slug)).subscription;
    },
    async getBilling(slug) {
      return (await s.billing.getSubscription(me(), slug)).subscription;
    },
    async runBillingDuties() {
      await s.billing.runLifecycle();
      await s.billing.runCollection();
    },
    async buyOnSandbox(slug, input, card) {
      const session = await s.billing.checkout(me(), slug, input, { ip: '127.0.0.1' });
      if (session.iframe_url) {
        const answer = await sandbox!.inject({
          method: 'POST',
          url: `${new URL(session.iframe_url).pathname}/pay`,
          ...(card ? { payload: new URLSearchParams({ card_number: card }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
        });
        if (answer.statusCode !== 303) throw new Error(`The sandbox's payment page answered ${answer.statusCode}`);
      }
      return { merchant_oid: session.merchant_oid };
    },
    startTrial: async (slug, input) => {
      await s.billing.startTrial(me(), slug, input);
    },
    advanceTestClock: async (slug, to) => {
      await s.testClock.advance(me(), slug, { to });
    },

    listCalendars: (slug) => s.sla.listCalendars(me(), slug),
    createCalendar: (slug, input) => s.sla.createCalendar(me(), slug, input),
    listPolicies: (slug) => s.sla.listPolicies(me(), slug),
    createPolicy: (slug, input) => s.sla.createPolicy(me(), slug, input),

    listProjects: (slug) => s.workItems.listProjects(me(), slug),
    createProject: (slug, input) => s.workItems.createProject(me(), slug, input),
    listStates: (slug, projectId) => s.workItems.listStates(me(), slug, projectId),
    createState: (slug, projectId, input) => s.workItems.createState(me(), slug, projectId, input),

    listProperties: (slug, projectId) => s.customProperties.listProperties(me(), slug, projectId),
    createProperty: (slug, projectId, input) => s.customProperties.createProperty(me(), slug, projectId, input),

    listIssues: (slug, projectId) => allPages((page) => s.workItems.listIssues(me(), slug, projectId, { ...page, order_by: 'sequence_id' })),
    createIssue: (slug, projectId, input) => s.workItems.createIssue(me(), slug, projectId, input),
    updateIssue: (slug, projectId, issueId, input) => s.workItems.updateIssue(me(), slug, projectId, issueId, input),
    listValues: (slug, projectId, issueId) => s.customProperties.listValues(me(), slug, projectId, issueId),
    setValue: async (slug, issueId, propertyId, value) => {
      await s.customProperties.setValue(me(), slug, issueId, propertyId, value);
    },
    listWorklogs: (slug, projectId, issueId) => allPages((page) => s.timeTracking.listWorklogs(me(), slug, projectId, issueId, page)),
    createWorklog: async (slug, projectId, issueId, input) => {
      await s.timeTracking.createWorklog(me(), slug, projectId, issueId, input);
    },
    listComments: (slug, projectId, issueId) => s.workItems.listComments(me(), slug, projectId, issueId),
    listAttachments: (slug, projectId, issueId) => s.attachments.list(me(), slug, projectId, issueId),
    uploadAttachment: async (slug, projectId, issueId, file) => {
      const target = await s.attachments.beginUpload(me(), slug, projectId, issueId);
      await s.attachments.store(target, {
        filename: file.filename,
        stream: Readable.from([file.bytes]),
        declaredBytes: file.bytes.length,
        commentId: null,
        bodyComplete: Promise.resolve(),
      });
    },
    createComment: async (slug, projectId, issueId, body) => {
      await s.workItems.createComment(me(), slug, projectId, issueId, { body });
    },

    listLabels: (slug, projectId) => s.workItems.listLabels(me(), slug, projectId),
    createLabel: (slug, projectId, input) => s.workItems.createLabel(me(), slug, projectId, input),
    listRelations: (slug, projectId, issueId) => s.workItems.listRelations(me(), slug, projectId, issueId),
    createRelation: async (slug, projectId, issueId, input) => {
      await s.workItems.createRelation(me(), slug, projectId, issueId, input);
    },

    listViews: (slug) => s.savedViews.list(me(), slug),
    createView: (slug, input) => s.savedViews.create(me(), slug, input),

    listBaselines: (slug, projectId) => s.baselines.list(me(), slug, projectId),
    createBaseline: (slug, projectId, name) => s.baselines.create(me(), slug, projectId, { name }),

    listWebhooks: (slug) => s.webhooks.list(me(), slug),
    createWebhook: (slug, input) => s.webhooks.create(me(), slug, input),
    pauseWebhook: async (slug, id) => {
      await s.webhooks.update(me(), slug, id, { is_active: false });
    },

    async slaCounts(slug) {
      const page = { offset: 0, per_page: 1 };
      const [breached, atRisk] = [await s.sla.listBreached(me(), slug, page), await s.sla.listAtRisk(me(), slug, page)];
      return { breached: breached.total, atRisk: atRisk.total };
    },

    async close() {
      await composition.close();
      await sandbox?.close();
    },
  };
}
