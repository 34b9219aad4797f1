import { pino } from 'pino';
import type { Config } from './config/config.js';
import type { DatabaseHandle, Tx } from './db/database.js';
import { embeddedUpkeep } from './db/embedded-upkeep.js';
import { type AttemptLimiter, NO_ATTEMPT_LIMIT, NO_AUTH_LIMITS } from './kernel/attempt-limiter.js';
import { type Clock, systemClock } from './kernel/clock.js';
import { createEventBus } from './kernel/events.js';
import { type Metrics, NO_METRICS } from './kernel/metrics.js';
import type { Outbox } from './kernel/outbox.js';
import type { PlanGate } from './kernel/plan-gate.js';
import { type BaselinesService, baselinesRepository, createBaselinesService } from './modules/baselines/index.js';
import {
  type BillingLogger,
  billingRepository,
  type BillingService,
  createBillingService,
  createNoticesService,
  createBillingTime,
  createPaytrClient,
  createPlanGate,
  createTestClockService,
  createReconcileService,
  createRefundsService,
  type ReconcileService,
  type RefundsService,
  type TestClockService,
} from './modules/billing/index.js';
import { type CustomPropertiesService, createCustomPropertiesService, customPropertiesRepository } from './modules/custom-properties/index.js';
import { createForecastService, type ForecastService, forecastRepository } from './modules/forecast/index.js';
import { createIdentityService, type IdentityDeps, type IdentityService, identityRepository } from './modules/identity/index.js';
import { createSlaService, type SlaService, slaRepository } from './modules/sla/index.js';
import { createSlaSimulationService, type SlaSimulationService, slaSimulationRepository } from './modules/sla/index.js';
import { createSlaReportsService, type SlaReportsService, slaReportsRepository } from './modules/sla/index.js';
import { createOutbox, createSender, createWebhooksService, createWorker, type WebhooksService, webhooksRepository } from './modules/webhooks/index.js';
import { createTimeTrackingService, type TimeTrackingService, timeTrackingRepository } from './modules/time-tracking/index.js';
import { createWorkItemsService, type WorkItemsService, workItemsRepository } from './modules/work-items/index.js';
import { createWorkspacesService, type WorkspacesService, workspacesRepository } from './modules/workspaces/index.js';
import { createSavedViewsService, type SavedViewsService, savedViewsRepository } from './modules/saved-views/index.js';
import { createSearchService, type SearchService, searchRepository } from './modules/search/index.js';
import { createNotificationsService, type NotificationsService, notificationsRepository } from './modules/notifications/index.js';
import {
  createMailQueue,
  createMailService,
  createMailWorker,
  createSmtpTransport,
  type MailOutbox,
  mailRepository,
  type MailService,
} from './modules/mail/index.js';
import {
  createInvitationsService,
  createPasswordResetService,
  type InvitationsService,
  invitationsRepository,
  type PasswordResetService,
  passwordResetRepository,
} from './modules/invitations/index.js';
import {
  attachmentsRepository,
  type AttachmentsService,
  createAttachmentsService,
  createFileStorage,
  createTusStore,
  createTusUploads,
  type TusUploads,
  tusUploadsRepository,
  withTusCleanup,
} from './modules/attachments/index.js';

export interface AppServices {
  identity: IdentityService;
  workspaces: WorkspacesService;
  workItems: WorkItemsService;
  sla: SlaService;
  slaSimulation: SlaSimulationService;
  slaReports: SlaReportsService;
  customProperties: CustomPropertiesService;
  baselines: BaselinesService;
  billing: BillingService;
  testClock: TestClockService;
  refunds: RefundsService;
  reconcile: ReconcileService;
  webhooks: WebhooksService;
  timeTracking: TimeTrackingService;
  forecast: ForecastService;
  savedViews: SavedViewsService;
  search: SearchService;
  attachments: AttachmentsService;
  /** Resumable (tus) uploads of attachments (contract 25.4). */
  tusUploads: TusUploads;
  /** Watchers, the inbox and who is told what (contract 26.1, 26.2); its `notifier` is the `Notifier` port. */
  notifications: NotificationsService;
  /** E-mail (26.3): notification settings, notification mails, unsubscribe links, the outbox's admin view. */
  mail: MailService;
  /** Invitations to workspaces (contract 26.4). */
  invitations: InvitationsService;
  /** Password reset by a mailed link (contract 26.5). */
  passwordReset: PasswordResetService;
}

/** Work that runs on a timer in `main.ts` (never in tests, which call `run` themselves). */
export interface PeriodicJob {
  name: string;
  run(): Promise<unknown>;
  /** Period of this job; unset: `JOB_INTERVAL_MS`. 0 turns it off. */
  intervalMs?: number;
}

/** What the services need from the process around them; the HTTP app passes its own, the CLI takes the defaults. */
export interface ServicePorts {
  /** Sign-in and sign-up attempt limits (the HTTP app's rate-limit store); default: none (the CLI signs nobody in). */
  limiters?: IdentityDeps['limiters'] & { passwordResetByEmail?: AttemptLimiter; passwordResetByIp?: AttemptLimiter };
  /** Default: a pino logger at `LOG_LEVEL`. */
  log?: BillingLogger;
  /** Default: metrics that record nothing. */
  metrics?: Metrics;
}

export interface Services {
  services: AppServices;
  /** The periodic jobs (`main.ts` runs them on timers; tests call `run` themselves). */
  jobs: PeriodicJob[];
  /** Events that leave the service (webhooks), recorded in the transaction of the change. */
  outbox: Outbox<Tx>;
  /** E-mail to send (contract 26.3), queued in the transaction of the change, sent after its commit. */
  mail: MailOutbox;
  /** Stops the background webhook worker. */
  close(): Promise<void>;
}

/**
 * The one composition of the service: builds every repository and service and wires them (domain events, the
 * outbox, the plan gate, the custom-value filters of the issue list). Used by `buildApp` (HTTP), the CLI and the
 * tests; the only place besides `app.ts` that names concrete implementations.
 */
export function buildServices(config: Config, database: DatabaseHandle, clock: Clock = systemClock, ports: ServicePorts = {}): Services {
  const { db } = database;
  const log = ports.log ?? pino({ level: config.logLevel });
  const metrics = ports.metrics ?? NO_METRICS;
  const events = createEventBus<Tx>();
  const jobs: PeriodicJob[] = [];

  // Events that leave the service (webhooks) are recorded in the transaction of the change that caused them, with a
  // delivery per subscribed endpoint; the worker sends them in the background, waking right after such a commit.
  const webhooksRepo = webhooksRepository();
  const webhookWorker = createWorker({ db, repo: webhooksRepo, clock, sender: createSender(config.webhooks), config: config.webhooks, log, metrics });
  const outbox = createOutbox({ repo: webhooksRepo, clock, onDeliveries: () => webhookWorker.wake() });

  // E-mail (contract 26.3): mails are queued in the mail outbox in the transaction of the change; the mail worker
  // sends them after the commit (waking right after such a commit), with retries.
  const mailRepo = mailRepository();
  const mailWorker = createMailWorker({ db, repo: mailRepo, clock, transport: createSmtpTransport(config.mail), config: config.mail, log, metrics });
  const mailQueue = createMailQueue({ repo: mailRepo, clock, from: config.mail.from, onQueued: () => mailWorker.wake() });
  // Without SMTP_URL mails stay pending in the database (shown by `mail list`); the worker sends nothing.
  if (mailWorker.sends) jobs.push({ name: 'mail.deliver', run: () => mailWorker.run(), intervalMs: config.mail.pollMs });

  const billingRepo = billingRepository();
  const planGate: PlanGate<Tx> = createPlanGate({ repo: billingRepo, clock, graceDays: config.billingGraceDays });

  const identity = createIdentityService({
    db,
    repo: identityRepository(),
    clock,
    planGate,
    allowSignup: config.allowSignup,
    sessionTtlDays: config.sessionTtlDays,
    limiters: ports.limiters ?? NO_AUTH_LIMITS,
  });
  const workspaces = createWorkspacesService({ db, repo: workspacesRepository(), clock, identity });
  const workItems = createWorkItemsService({ db, repo: workItemsRepository(), clock, events, planGate, identity, outbox });
  // Folds the label counts the database keeps (their sums never change, only how many rows hold them).
  jobs.push({ name: 'labels.counts', run: () => workItems.runLabelCounts(), intervalMs: 30_000 });
  // Moves the changes of the kept issue counts (by state, priority, creator and assignee) into them (migration 1090).
  jobs.push({ name: 'issues.counts', run: () => workItems.runIssueCounts(), intervalMs: 10_000 });
  // The embedded database has no autovacuum: without this duty its planner statistics and dead rows were never kept
  // (docs/decisions/issue-filters.md, "The embedded database's mixed load"). PostgreSQL's autovacuum does it there.
  // Every 2 s (a run with nothing due is one catalog query), so that a service started on rows it has not analyzed
  // (the CLI's demo, an import) plans with their statistics within seconds.
  if (database.kind === 'pglite') {
    const upkeep = embeddedUpkeep(db, metrics);
    jobs.push({ name: 'db.upkeep', run: () => upkeep.run(), intervalMs: 2_000 });
  }

  const sla = createSlaService({ db, repo: slaRepository(), clock, identity, outbox });
  sla.subscribe(events);
  jobs.push({ name: 'sla.events', run: () => sla.runEvents(), intervalMs: config.slaEventsIntervalMs });
  jobs.push({ name: 'sla.totals', run: () => sla.runTotals(), intervalMs: config.slaEventsIntervalMs });
  // Notifications (contract 26.1, 26.2): watchers and the inbox, written in the transaction of each change (work-item
  // events, SLA crossings); `watching` on the issues. The mail module listens through `notifications.onCreated`.
  const notifications = createNotificationsService({ db, repo: notificationsRepository(), clock, identity, workItems });
  notifications.subscribe(events);
  sla.onCrossings(notifications.onSlaCrossings);
  workItems.registerIssueWatching(notifications.watchingOf);
  // E-mail of notifications (26.3): queued per the recipient's settings in the transaction that wrote them; the duty
  // composes the instant batches and the daily digests into the mail outbox.
  const mail = createMailService({
    db,
    repo: mailRepo,
    clock,
    queue: mailQueue,
    worker: mailWorker,
    config: config.mail,
    publicBaseUrl: config.publicBaseUrl,
    log,
  });
  notifications.onCreated(mail.onNotifications);
  jobs.push({ name: 'mail.notifications', run: () => mail.runDuty(), intervalMs: config.mail.pollMs });
  jobs.push({ name: 'mail.cleanup', run: () => mail.cleanup(), intervalMs: 3_600_000 });

  // Invitations (26.4) and password reset (26.5): their mails go through the mail outbox, `invited` to the inbox.
  const invitations = createInvitationsService({
    db,
    repo: invitationsRepository(),
    clock,
    identity,
    planGate,
    mail: mailQueue,
    notifier: notifications.notifier,
    publicBaseUrl: config.publicBaseUrl,
  });
  const passwordReset = createPasswordResetService({
    db,
    repo: passwordResetRepository(),
    clock,
    identity,
    mail: mailQueue,
    publicBaseUrl: config.publicBaseUrl,
    limiters: { byEmail: ports.limiters?.passwordResetByEmail ?? NO_ATTEMPT_LIMIT, byIp: ports.limiters?.passwordResetByIp ?? NO_ATTEMPT_LIMIT },
  });

  const slaReports = createSlaReportsService({ db, repo: slaReportsRepository(), clock, identity });
  metrics.collect('sla_trackers_breached', 'SLA trackers breached now, across every workspace', () => sla.countBreachedEverywhere());
  const slaSimulation = createSlaSimulationService({ db, repo: slaSimulationRepository(), clock, identity });

  const customProperties = createCustomPropertiesService({ db, repo: customPropertiesRepository(), clock, identity, workItems, planGate });
  workItems.registerIssueFilter(customProperties.issueFilter);
  workItems.registerIssueSort(customProperties.issueSort);

  // Search (contract 23.1, 23.4): its own routes, `q` and `order_by=relevance` on the issue lists, the duty that
  // rebuilds a workspace's documents after its search language changed, and the one that makes the documents' monthly
  // partitions ahead of time.
  const search = createSearchService({ db, repo: searchRepository(), clock, identity, workItems });
  workItems.registerIssueFilter(search.issueFilter);
  workItems.registerIssueSort(search.issueSort);
  jobs.push({ name: 'search.reindex', run: () => search.runReindex(), intervalMs: 5_000 });
  jobs.push({ name: 'search.partitions', run: () => search.runPartitions(), intervalMs: 3_600_000 });

  // Attachments (contract 25): files on issues and comments in the configured storage, the exact storage quota, and
  // the duty that removes the files of deleted attachments and frees abandoned uploads.
  // Resumable uploads (25.4) keep their bytes in the same storage under `tus/`: the duty's removal of such a key
  // removes the whole tus upload (an abandoned one's partial file and tus's info).
  const fileStorage = createFileStorage(config.storage);
  const tusStore = createTusStore(config.storage);
  const attachments = createAttachmentsService({
    db,
    repo: attachmentsRepository(),
    clock,
    identity,
    workItems,
    planGate,
    outbox,
    storage: withTusCleanup(fileStorage, tusStore),
    maxFileBytes: config.storage.maxFileBytes,
    metrics,
  });
  const tusUploads = createTusUploads({ db, clock, identity, attachments, storage: fileStorage, tus: tusStore, repo: tusUploadsRepository(), log });
  workItems.registerCommentAttachments(attachments.commentAttachments);
  jobs.push({ name: 'attachments.storage', run: () => attachments.runStorageDuty(), intervalMs: 10_000 });

  const baselines = createBaselinesService({ db, repo: baselinesRepository(), clock, identity, workItems, outbox });
  jobs.push({ name: 'baselines.schedules', run: () => baselines.runSchedules(), intervalMs: 30_000 });

  const timeTracking = createTimeTrackingService({ db, repo: timeTrackingRepository(), clock, identity, workItems, planGate, outbox });
  timeTracking.subscribe(events);

  const forecast = createForecastService({ db, repo: forecastRepository(), clock, identity, workItems });

  // Saved views run the issue list (with the filters of every module registered above).
  type ListQuery = Parameters<WorkItemsService['listIssues']>[3];
  const savedViews = createSavedViewsService({
    db,
    repo: savedViewsRepository(),
    clock,
    identity,
    listIssues: (actor, slug, projectId, query) =>
      projectId === null ? workItems.listWorkspaceIssues(actor, slug, query as ListQuery) : workItems.listIssues(actor, slug, projectId, query as ListQuery),
  });

  const webhooks = createWebhooksService({
    db,
    repo: webhooksRepo,
    clock,
    identity,
    worker: webhookWorker,
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
  });
  jobs.push({ name: 'webhooks.deliver', run: () => webhookWorker.run(), intervalMs: config.webhooks.pollMs });
  jobs.push({ name: 'webhooks.cleanup', run: () => webhookWorker.cleanup(), intervalMs: 3_600_000 });

  const paytrClient = createPaytrClient(config.paytr);
  const documents = {
    taxRateBp: config.billingTaxRateBp,
    seller: {
      name: config.billingSeller.name,
      tax_id: config.billingSeller.taxId,
      tax_office: config.billingSeller.taxOffice,
      address: config.billingSeller.address,
    },
  };
  const billingTime = createBillingTime({ clock, repo: billingRepo, testClocks: config.paymentProvider === 'sandbox' });
  const billing = createBillingService({
    db,
    repo: billingRepo,
    clock,
    identity,
    provider: paytrClient,
    credentials: config.paytr,
    graceDays: config.billingGraceDays,
    retryDays: config.billingRetryDays,
    time: billingTime,
    publicBaseUrl: config.publicBaseUrl,
    log,
    outbox,
    documents,
    cardPage: config.paymentProvider === 'paytr' ? { paytr: config.paytr } : null,
    storageUsage: attachments.usage,
  });
  jobs.push({ name: 'billing.lifecycle', run: () => billing.runLifecycle() });
  const refunds = createRefundsService({ db, repo: billingRepo, clock, identity, provider: paytrClient, outbox, log, billing, documents });
  const reconcile = createReconcileService({
    db,
    repo: billingRepo,
    clock,
    provider: paytrClient,
    outbox,
    log,
    billing,
    reconcileAfterMs: config.paymentReconcileAfterS * 1000,
  });
  jobs.push({ name: 'billing.reconcile', run: () => reconcile.run() });
  const notices = createNoticesService({ db, repo: billingRepo, clock, outbox, billing, renewalNoticeDays: config.billingRenewalNoticeDays });
  jobs.push({ name: 'billing.notices', run: () => notices.run() });
  // Renewal charges and dunning retries (19.2, 19.3), and payment_method.expiring (19.1).
  jobs.push({ name: 'billing.collection', run: () => billing.runCollection() });
  jobs.push({ name: 'billing.cards', run: () => billing.runCardNotices(), intervalMs: 3_600_000 });
  const testClock = createTestClockService({
    db,
    repo: billingRepo,
    clock,
    time: billingTime,
    identity,
    billing,
    notices,
    graceDays: config.billingGraceDays,
    renewalNoticeDays: config.billingRenewalNoticeDays,
  });
  // The sandbox's test clocks: the same duties for each workspace on one, at its own billing time (19.7).
  if (billingTime.testClocks) jobs.push({ name: 'billing.test-clocks', run: () => testClock.run() });

  return {
    services: {
      identity,
      workspaces,
      workItems,
      sla,
      slaSimulation,
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
      savedViews,
      search,
      attachments,
      tusUploads,
      notifications,
      mail,
      invitations,
      passwordReset,
    },
    jobs,
    outbox,
    mail: mailQueue,
    close: async () => {
      await webhookWorker.close();
      await mailWorker.close();
    },
  };
}
