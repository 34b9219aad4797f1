import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config/config.js';
import type { DatabaseHandle, Tx } from './db/database.js';
import { registerAuthentication } from './http/auth.js';
import { registerErrorHandling } from './http/errors.js';
import { healthRoutes } from './http/health.js';
import { registerJsonParser } from './http/json-parser.js';
import { registerOpenApi } from './http/openapi.js';
import { validatorCompiler } from './http/validation.js';
import { type Clock, systemClock } from './kernel/clock.js';
import { createEventBus } from './kernel/events.js';
import { newId } from './kernel/ids.js';
import { allowAllPlanGate, type PlanGate } from './kernel/plan-gate.js';
import { createIdentityService, identityRepository, identityRoutes } from './modules/identity/index.js';
import { createWorkItemsService, workItemsRepository, workItemsRoutes } from './modules/work-items/index.js';
import { createWorkspacesService, workspacesRepository, workspacesRoutes } from './modules/workspaces/index.js';

export interface AppOptions {
  config: Config;
  database: DatabaseHandle;
  clock?: Clock;
}

/** Work that runs on a timer in `main.ts` (never in tests, which call `run` themselves). */
export interface PeriodicJob {
  name: string;
  run(): Promise<unknown>;
}

declare module 'fastify' {
  interface FastifyInstance {
    jobs: PeriodicJob[];
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
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  registerJsonParser(app);
  registerErrorHandling(app);
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });

  const { db } = database;
  const events = createEventBus<Tx>();
  // ---- billing: plan gate (billing module) ----
  const planGate: PlanGate<Tx> = allowAllPlanGate;
  // ---- end billing: plan gate ----

  const identity = createIdentityService({
    db,
    repo: identityRepository(db),
    clock,
    planGate,
    allowSignup: config.allowSignup,
    sessionTtlDays: config.sessionTtlDays,
    rateLimits: config.rateLimits,
  });
  const workspaces = createWorkspacesService({ db, repo: workspacesRepository(db), clock, identity });
  const workItems = createWorkItemsService({ db, repo: workItemsRepository(db), clock, events, planGate, identity });

  app.decorate('jobs', [] as PeriodicJob[]);

  // ---- sla module ----
  // ---- end sla module ----

  // ---- custom-properties module ----
  // ---- end custom-properties module ----

  // ---- baselines module ----
  // ---- end baselines module ----

  // ---- billing module ----
  // ---- end billing module ----

  registerAuthentication(app, identity.resolveToken);
  await registerOpenApi(app, config.publicBaseUrl);
  await app.register(healthRoutes, { db });
  await app.register(identityRoutes, { identity });
  await app.register(workspacesRoutes, { workspaces });
  await app.register(workItemsRoutes, { workItems });

  return app;
}
