import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config/config.js';
import type { DatabaseHandle, Tx } from './db/database.js';
import { registerAuthentication } from './http/auth.js';
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
import { createBaselinesService, baselinesRepository, baselinesRoutes } from './modules/baselines/index.js';
import { createCustomPropertiesService, customPropertiesRepository, customPropertiesRoutes } from './modules/custom-properties/index.js';
import {
  billingCallbackRoutes,
  billingRepository,
  billingRoutes,
  createBillingService,
  createPaytrClient,
  createPlanGate,
  returnPages,
  sandboxRoutes,
} from './modules/billing/index.js';
import { createIdentityService, identityRepository, identityRoutes } from './modules/identity/index.js';
import { createSlaService, slaRepository, slaRoutes } from './modules/sla/index.js';
import { createWorkItemsService, workItemsRepository, workItemsRoutes } from './modules/work-items/index.js';
import { createWorkspacesService, workspacesRepository, workspacesRoutes } from './modules/workspaces/index.js';
import { createOutbox, webhooksRepository } from './modules/webhooks/index.js';

export interface AppOptions {
  config: Config;
  database: DatabaseHandle;
  clock?: Clock;
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
export async function buildApp({ config, database, clock = systemClock }: AppOptions): Promise<FastifyInstance> {
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
  // Events that leave the service (webhooks) are recorded in the transaction of the change that caused them.
  const outbox = createOutbox({ repo: webhooksRepository(db), clock });
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
  const workItems = createWorkItemsService({ db, repo: workItemsRepository(db), clock, events, planGate, identity });

  app.decorate('jobs', [] as PeriodicJob[]);
  // Before any route: swagger only sees routes registered after it, and the auth hook must cover them all.
  registerAuthentication(app, identity.resolveToken);
  await registerOpenApi(app, config.publicBaseUrl);

  // ---- sla module ----
  const sla = createSlaService({ db, repo: slaRepository(db), clock, identity });
  sla.subscribe(events);
  metrics.collect('sla_trackers_breached', 'SLA trackers breached now, across every workspace', () => sla.countBreachedEverywhere());
  await app.register(slaRoutes, { sla });
  // ---- end sla module ----

  // ---- custom-properties module ----
  const customProperties = createCustomPropertiesService({ db, repo: customPropertiesRepository(db), clock, identity, workItems, planGate });
  workItems.registerIssueFilter(customProperties.issueFilter);
  await app.register(customPropertiesRoutes, { customProperties });
  // ---- end custom-properties module ----

  // ---- baselines module ----
  const baselines = createBaselinesService({ db, repo: baselinesRepository(db), clock, identity, workItems });
  await app.register(baselinesRoutes, { baselines });
  // ---- end baselines module ----

  // ---- billing module ----
  const billing = createBillingService({
    db,
    repo: billingRepo,
    clock,
    identity,
    provider: createPaytrClient(config.paytr),
    credentials: config.paytr,
    graceDays: config.billingGraceDays,
    publicBaseUrl: config.publicBaseUrl,
    log: app.log,
  });
  app.jobs.push({ name: 'billing.lifecycle', run: () => billing.runLifecycle() });
  await app.register(billingRoutes, { billing });
  await app.register(billingCallbackRoutes, { billing });
  if (config.paymentProvider === 'sandbox') {
    await app.register(sandboxRoutes, { config, callbackUrl: `${config.publicBaseUrl}/api/webhooks/provider/callback/` });
  } else {
    await app.register(returnPages);
  }
  // ---- end billing module ----

  await app.register(healthRoutes, { db });
  await app.register(identityRoutes, { identity });
  await app.register(workspacesRoutes, { workspaces });
  await app.register(workItemsRoutes, { workItems });

  return app;
}
