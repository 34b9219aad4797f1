import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { stdSerializers } from 'pino';
import type { Config } from './config/config.js';
import type { DatabaseHandle, Tx } from './db/database.js';
import { registerAuthentication } from './http/auth.js';
import { registerConsole } from './http/console.js';
import { frameworkErrors, registerErrorHandling } from './http/errors.js';
import { healthRoutes } from './http/health.js';
import { registerJsonParser } from './http/json-parser.js';
import { createMetrics, type PromMetrics, registerMetrics } from './http/metrics.js';
import { registerOpenApi } from './http/openapi.js';
import { registerPaymentPageAssets } from './http/payment-page.js';
import { registerRateLimits } from './http/rate-limit.js';
import { registerReadRouting } from './http/read-routing.js';
import { registerSecurityHeaders, trustProxyOption } from './http/security-headers.js';
import { validatorCompiler } from './http/validation.js';
import { type Clock, systemClock } from './kernel/clock.js';
import { newId } from './kernel/ids.js';
import type { Outbox } from './kernel/outbox.js';
import { baselinesRoutes } from './modules/baselines/index.js';
import { customPropertiesRoutes } from './modules/custom-properties/index.js';
import { forecastRoutes } from './modules/forecast/index.js';
import { billingCallbackRoutes, billingRoutes, cardPageRoutes, databaseSandboxStore, returnPages, sandboxRoutes } from './modules/billing/index.js';
import { identityRoutes } from './modules/identity/index.js';
import { slaRoutes } from './modules/sla/index.js';
import { slaSimulationRoutes } from './modules/sla/index.js';
import { slaReportsRoutes } from './modules/sla/index.js';
import { timeTrackingRoutes } from './modules/time-tracking/index.js';
import { workItemsRoutes } from './modules/work-items/index.js';
import { workspacesRoutes } from './modules/workspaces/index.js';
import { webhooksRoutes } from './modules/webhooks/index.js';
import { savedViewsRoutes } from './modules/saved-views/index.js';
import { searchRoutes } from './modules/search/index.js';
import { attachmentsRoutes, tusRoutes } from './modules/attachments/index.js';
import { notificationsRoutes } from './modules/notifications/index.js';
import { mailRoutes } from './modules/mail/index.js';
import { invitationsRoutes, passwordResetRoutes } from './modules/invitations/index.js';
import { type AppServices, buildServices, type PeriodicJob } from './services.js';

export type { AppServices, PeriodicJob };

export interface AppOptions {
  config: Config;
  database: DatabaseHandle;
  clock?: Clock;
  /** Where the built web console lives (default `web/dist`); tests point it elsewhere. */
  consoleDir?: string;
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

/**
 * Errors are logged with pino's serializer, less what node-postgres hangs on them: the pool attaches the whole
 * client to an idle connection's error (13-17 KB a line, every prepared statement's text included).
 */
function serializeError(error: Error): { [key: string]: unknown; type: string; message: string; stack: string } {
  const { client: _client, ...rest } = stdSerializers.err(error) as unknown as { [key: string]: unknown; type: string; message: string; stack: string };
  return rest;
}

/** The HTTP app: the services of `buildServices`, then the routes, the OpenAPI document and the console. */
export async function buildApp({ config, database, clock = systemClock, consoleDir }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel, redact: { paths: REDACT, censor: '[redacted]' }, serializers: { err: serializeError } },
    routerOptions: { ignoreTrailingSlash: true },
    bodyLimit: 1024 * 1024,
    requestIdHeader: 'x-request-id',
    genReqId: () => newId(),
    frameworkErrors,
    // TRUST_PROXY: request.ip, protocol and host come from X-Forwarded-* of trusted proxies only (rate limits, logs,
    // PayTR's user_ip see the real client); off by default, so a forged X-Forwarded-For changes nothing.
    trustProxy: trustProxyOption(config.trustProxy),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // The database's availability logs its outages and returns through the app's logger (contract 27.1).
  database.availability.setLog(app.log);
  app.setValidatorCompiler(validatorCompiler);
  registerJsonParser(app);
  registerErrorHandling(app);
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  // Security headers and CORS (section 22) on every answer, errors and 404s included: before any route.
  await registerSecurityHeaders(app, config);

  const metrics = createMetrics();
  app.decorate('metrics', metrics);
  if (config.metricsEnabled) {
    registerMetrics(app, metrics, database.pool);
    const holds = metrics.histogram(
      'db_connection_hold_seconds',
      'How long a database connection was held per checkout (a statement, or a whole transaction)',
      [],
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    );
    database.onHold((seconds) => holds.observe({}, seconds));
  }

  // Before any route: the plugin adds its hook to the routes registered after it.
  const limiters = await registerRateLimits(app, config);
  const { services, jobs, outbox, close } = buildServices(config, database, clock, { limiters, log: app.log, metrics });
  app.addHook('onClose', close);
  app.decorate('outbox', outbox);
  app.decorate('jobs', jobs);
  app.decorate('services', services);
  const {
    identity,
    workspaces,
    workItems,
    sla,
    slaReports,
    customProperties,
    baselines,
    billing,
    testClock,
    refunds,
    reconcile,
    webhooks,
    timeTracking,
    forecast,
  } = services;

  // Before any route: swagger only sees routes registered after it, and the auth hook must cover them all.
  registerAuthentication(app, identity.resolveToken);
  if (database.replicas) {
    registerReadRouting(app, database.replicas);
    database.replicas.setLog(app.log);
    const reads = metrics.counter('db_reads_total', 'Requests that tolerate a replica, by where their reads went', ['target']);
    const lag = metrics.gauge('db_replica_lag_seconds', "How far each replica's replay is behind the primary's WAL, in seconds (-1: failing)", ['replica']);
    database.replicas.setMetrics({ read: (target) => reads.inc({ target }), lag: (replica, seconds) => lag.set({ replica }, seconds) });
  }
  await registerOpenApi(app, config.publicBaseUrl);

  await app.register(slaRoutes, { sla });
  await app.register(slaSimulationRoutes, { simulation: services.slaSimulation });
  await app.register(slaReportsRoutes, { slaReports });
  await app.register(customPropertiesRoutes, { customProperties });
  await app.register(baselinesRoutes, { baselines });
  await app.register(webhooksRoutes, { webhooks });
  await app.register(timeTrackingRoutes, { timeTracking });
  await app.register(forecastRoutes, { forecast });
  await app.register(billingRoutes, { billing, refunds, reconcile, testClock });
  await app.register(billingCallbackRoutes, { billing });
  if (config.paymentProvider === 'sandbox') {
    const callbackUrl = `${config.publicBaseUrl}/api/webhooks/provider/callback/`;
    await app.register(sandboxRoutes, { config, callbackUrl, store: databaseSandboxStore(database.db) });
  } else {
    await app.register(returnPages);
    // The card page of 19.1: where a checkout with save_card sends the browser; its form posts to PayTR.
    await app.register(cardPageRoutes, { billing });
  }

  registerPaymentPageAssets(app);
  await app.register(healthRoutes, { db: database.db, availability: database.availability });
  // The web console at /app/ (public: it signs in through the API like any client).
  await registerConsole(app, consoleDir);
  await app.register(identityRoutes, { identity });
  await app.register(workspacesRoutes, { workspaces });
  await app.register(workItemsRoutes, { workItems });
  await app.register(savedViewsRoutes, { views: services.savedViews });
  await app.register(searchRoutes, { search: services.search });
  await app.register(attachmentsRoutes, { attachments: services.attachments });
  await app.register(tusRoutes, { uploads: services.tusUploads });
  await app.register(notificationsRoutes, { notifications: services.notifications });
  await app.register(mailRoutes, { mail: services.mail });
  await app.register(invitationsRoutes, { invitations: services.invitations });
  await app.register(passwordResetRoutes, { passwordReset: services.passwordReset });

  return app;
}
