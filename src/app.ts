import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config/config.js';
import type { DatabaseHandle, Tx } from './db/database.js';
import { registerAuthentication } from './http/auth.js';
import { registerConsole } from './http/console.js';
import { frameworkErrors, registerErrorHandling } from './http/errors.js';
import { healthRoutes } from './http/health.js';
import { registerJsonParser } from './http/json-parser.js';
import { createMetrics, type PromMetrics, registerMetrics } from './http/metrics.js';
import { registerOpenApi } from './http/openapi.js';
import { registerRateLimits } from './http/rate-limit.js';
import { validatorCompiler } from './http/validation.js';
import { type Clock, systemClock } from './kernel/clock.js';
import { createEventBus } from './kernel/events.js';
import { newId } from './kernel/ids.js';
import type { Outbox } from './kernel/outbox.js';
import type { PlanGate } from './kernel/plan-gate.js';
import { type BaselinesService, createBaselinesService, baselinesRepository, baselinesRoutes } from './modules/baselines/index.js';
import {
  type CustomPropertiesService,
  createCustomPropertiesService,
  customPropertiesRepository,
  customPropertiesRoutes,
} from './modules/custom-properties/index.js';
import {
  billingCallbackRoutes,
  billingRepository,
  billingRound2Routes,
  billingRoutes,
  type BillingService,
  type ReconcileService,
  type RefundsService,
  createNoticesService,
  createReconcileService,
  databaseSandboxStore,
  createRefundsService,
  round2Repository,
  createBillingService,
  createPaytrClient,
  createPlanGate,
  returnPages,
  sandboxRoutes,
} from './modules/billing/index.js';
import { createIdentityService, type IdentityService, identityRepository, identityRoutes } from './modules/identity/index.js';
import { createSlaService, type SlaService, slaRepository, slaRoutes } from './modules/sla/index.js';
import { createWorkItemsService, type WorkItemsService, workItemsRepository, workItemsRoutes } from './modules/work-items/index.js';
import { createWorkspacesService, type WorkspacesService, workspacesRepository, workspacesRoutes } from './modules/workspaces/index.js';
import {
  createOutbox,
  createSender,
  createWebhooksService,
  createWorker,
  type WebhooksService,
  webhooksRepository,
  webhooksRoutes,
} from './modules/webhooks/index.js';

export interface AppServices {
  identity: IdentityService;
  workspaces: WorkspacesService;
  workItems: WorkItemsService;
  sla: SlaService;
  customProperties: CustomPropertiesService;
  baselines: BaselinesService;
  billing: BillingService;
  refunds: RefundsService;
  reconcile: ReconcileService;
  webhooks: WebhooksService;
}

export interface AppOptions {
  config: Config;
  database: DatabaseHandle;
  clock?: Clock;
  /** Where the built web console lives (default `web/dist`); tests point it elsewhere. */
  consoleDir?: string;
}

/** Work that runs on a timer in `main.ts` (never in tests, which call `run` themselves). */
export interface PeriodicJob {
  name: string;
  run(): Promise<unknown>;
  /** Period of this job; unset: `JOB_INTERVAL_MS`. 0 turns it off. */
  intervalMs?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    jobs: PeriodicJob[];
    outbox: Outbox<Tx>;
    /** The services, for the operator CLI (which calls them in-process, as an instance admin). */
    services: AppServices;
    /** The metrics registry (`GET /metrics`); services that record metrics take it in their deps. */
    metrics: PromMetrics;
  }
}

const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  '*.password',
  '*.token',
  '*.paytr_token',
  '*.merchant_key',
  '*.merchant_salt',
  '*.hash',
];

/** The composition root: the only place that names concrete implementations. */
export async function buildApp({ config, database, clock = systemClock, consoleDir }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel, redact: { paths: REDACT, censor: '[redacted]' } },
    routerOptions: { ignoreTrailingSlash: true },
    bodyLimit: 1024 * 1024,
    requestIdHeader: 'x-request-id',
    genReqId: () => newId(),
    frameworkErrors,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  registerJsonParser(app);
  registerErrorHandling(app);
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });

  const { db } = database;
  const metrics = createMetrics();
  app.decorate('metrics', metrics);
  if (config.metricsEnabled) registerMetrics(app, metrics, database.pool);
  const events = createEventBus<Tx>();
  // Events that leave the service (webhooks) are recorded in the transaction of the change that caused them, with a
  // delivery per subscribed endpoint; the worker sends them in the background, waking right after such a commit.
  const webhooksRepo = webhooksRepository(db);
  const webhookWorker = createWorker({
    repo: webhooksRepo,
    clock,
    sender: createSender(config.webhooks),
    config: config.webhooks,
    log: app.log,
    metrics,
  });
  app.addHook('onClose', () => webhookWorker.close());
  const outbox = createOutbox({ repo: webhooksRepo, clock, onDeliveries: () => webhookWorker.wake() });
  app.decorate('outbox', outbox);
  // ---- billing: plan gate (billing module) ----
  const billingRepo = billingRepository(db);
  const planGate: PlanGate<Tx> = createPlanGate({ repo: billingRepo, clock, graceDays: config.billingGraceDays });
  // ---- end billing: plan gate ----

  // Before any route: the plugin adds its hook to the routes registered after it.
  const limiters = await registerRateLimits(app, config);
  const identity = createIdentityService({
    db,
    repo: identityRepository(db),
    clock,
    planGate,
    allowSignup: config.allowSignup,
    sessionTtlDays: config.sessionTtlDays,
    limiters,
  });
  const workspaces = createWorkspacesService({ db, repo: workspacesRepository(db), clock, identity });
  const workItems = createWorkItemsService({ db, repo: workItemsRepository(db), clock, events, planGate, identity, outbox });

  app.decorate('jobs', [] as PeriodicJob[]);
  // Before any route: swagger only sees routes registered after it, and the auth hook must cover them all.
  registerAuthentication(app, identity.resolveToken);
  await registerOpenApi(app, config.publicBaseUrl);

  // ---- sla module ----
  const sla = createSlaService({ db, repo: slaRepository(db), clock, identity, outbox });
  sla.subscribe(events);
  app.jobs.push({ name: 'sla.events', run: () => sla.runEvents(), intervalMs: config.slaEventsIntervalMs });
  metrics.collect('sla_trackers_breached', 'SLA trackers breached now, across every workspace', () => sla.countBreachedEverywhere());
  await app.register(slaRoutes, { sla });
  // ---- end sla module ----

  // ---- custom-properties module ----
  const customProperties = createCustomPropertiesService({ db, repo: customPropertiesRepository(db), clock, identity, workItems, planGate });
  workItems.registerIssueFilter(customProperties.issueFilter);
  workItems.registerIssueSort(customProperties.issueSort);
  await app.register(customPropertiesRoutes, { customProperties });
  // ---- end custom-properties module ----

  // ---- baselines module ----
  const baselines = createBaselinesService({ db, repo: baselinesRepository(db), clock, identity, workItems, outbox });
  app.jobs.push({ name: 'baselines.schedules', run: () => baselines.runSchedules(), intervalMs: 30_000 });
  await app.register(baselinesRoutes, { baselines });
  // ---- end baselines module ----

  // ---- webhooks module ----
  const webhooks = createWebhooksService({
    db,
    repo: webhooksRepo,
    clock,
    identity,
    worker: webhookWorker,
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
  });
  app.jobs.push({ name: 'webhooks.deliver', run: () => webhookWorker.run(), intervalMs: config.webhooks.pollMs });
  app.jobs.push({ name: 'webhooks.cleanup', run: () => webhookWorker.cleanup(), intervalMs: 3_600_000 });
  await app.register(webhooksRoutes, { webhooks });
  // ---- end webhooks module ----

  // ---- billing module ----
  const paytrClient = createPaytrClient(config.paytr);
  const billing = createBillingService({
    db,
    repo: billingRepo,
    clock,
    identity,
    provider: paytrClient,
    credentials: config.paytr,
    graceDays: config.billingGraceDays,
    publicBaseUrl: config.publicBaseUrl,
    log: app.log,
    outbox,
  });
  app.jobs.push({ name: 'billing.lifecycle', run: () => billing.runLifecycle() });
  const billingR2 = round2Repository(db);
  const refunds = createRefundsService({ db, repo: billingRepo, r2: billingR2, clock, identity, provider: paytrClient, outbox, log: app.log, billing });
  const reconcile = createReconcileService({
    db,
    repo: billingRepo,
    r2: billingR2,
    clock,
    provider: paytrClient,
    outbox,
    log: app.log,
    billing,
    reconcileAfterMs: config.paymentReconcileAfterS * 1000,
  });
  app.jobs.push({ name: 'billing.reconcile', run: () => reconcile.run() });
  const notices = createNoticesService({ db, r2: billingR2, clock, outbox, billing, renewalNoticeDays: config.billingRenewalNoticeDays });
  app.jobs.push({ name: 'billing.notices', run: () => notices.run() });
  await app.register(billingRoutes, { billing });
  await app.register(billingRound2Routes, { refunds, reconcile, billing });
  await app.register(billingCallbackRoutes, { billing });
  if (config.paymentProvider === 'sandbox') {
    await app.register(sandboxRoutes, { config, callbackUrl: `${config.publicBaseUrl}/api/webhooks/provider/callback/`, store: databaseSandboxStore(db) });
  } else {
    await app.register(returnPages);
  }
  // ---- end billing module ----

  const services = { identity, workspaces, workItems, sla, customProperties, baselines, billing, refunds, reconcile, webhooks };
  app.decorate('services', services);

  await app.register(healthRoutes, { db });
  // The web console at /app/ (public: it signs in through the API like any client).
  await registerConsole(app, consoleDir);
  await app.register(identityRoutes, { identity });
  await app.register(workspacesRoutes, { workspaces });
  await app.register(workItemsRoutes, { workItems });

  return app;
}
