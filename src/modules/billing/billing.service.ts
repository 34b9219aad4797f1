import type { Db, Tx } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import type { Outbox } from '../../kernel/outbox.js';
import type { IdentityService } from '../identity/index.js';
import { createCheckoutService } from './billing.checkout.js';
import { createCouponsService } from './billing.coupons.js';
import { createFulfilment } from './billing.fulfilment.js';
import { assertInstanceAdmin, createPlansService } from './billing.plans.js';
import type { BillingRepository } from './billing.repository.js';
import { createSubscriptionsService } from './billing.subscriptions.js';
import type { PaytrClient, PaytrCredentials } from './paytr/index.js';

export type { CallbackResult, ProviderOutcome } from './billing.checkout.js';

/** The logging the service needs (pino's and Fastify's loggers fit). */
export interface BillingLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface BillingDeps {
  db: Db;
  repo: BillingRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access' | 'me'>;
  provider: PaytrClient;
  credentials: PaytrCredentials;
  graceDays: number;
  publicBaseUrl: string;
  log: BillingLogger;
  /** Events that leave the service (webhooks), recorded in the transaction of the change. */
  outbox: Outbox<Tx>;
}

export type BillingService = ReturnType<typeof createBillingService>;

/**
 * The billing service the routes and the other parts of the module use, composed of one part per concern:
 * plans (`billing.plans.ts`), subscriptions and their lifecycle (`billing.subscriptions.ts`), coupons
 * (`billing.coupons.ts`), what a paid payment buys (`billing.fulfilment.ts`), checkout and the provider's callback
 * (`billing.checkout.ts`).
 */
export function createBillingService(deps: BillingDeps) {
  const plans = createPlansService(deps);
  const subscriptions = createSubscriptionsService(deps);
  const coupons = createCouponsService(deps);
  const fulfilment = createFulfilment({ ...deps, subscriptions, coupons });
  const checkout = createCheckoutService({ ...deps, subscriptions, coupons, fulfilment });

  return {
    /** Rules shared with the round-2 parts of the module (refunds, reconciliation, notices). */
    internals: {
      fulfil: fulfilment.fulfil,
      subscriptionUpdated: subscriptions.subscriptionUpdated,
      subscriptionResponse: subscriptions.subscriptionResponse,
      lockedSubscription: subscriptions.lockedSubscription,
      assertInstanceAdmin,
    },

    listPublicPlans: plans.listPublicPlans,
    adminListPlans: plans.adminListPlans,
    adminCreatePlan: plans.adminCreatePlan,
    adminUpdatePlan: plans.adminUpdatePlan,
    planCheck: plans.planCheck,

    getSubscription: subscriptions.getSubscription,
    startTrial: subscriptions.startTrial,
    cancel: subscriptions.cancel,
    runLifecycle: subscriptions.runLifecycle,
    planInEffect: subscriptions.planInEffect,
    events: subscriptions.events,

    checkout: checkout.checkout,
    handleCallback: checkout.handleCallback,
    settle: checkout.settle,
    listPayments: checkout.listPayments,
    listInvoices: checkout.listInvoices,

    validateCoupon: coupons.validateCoupon,
    adminListCoupons: coupons.adminListCoupons,
    adminCreateCoupon: coupons.adminCreateCoupon,
    adminDeleteCoupon: coupons.adminDeleteCoupon,
  };
}
