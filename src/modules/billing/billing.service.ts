import type { BillingDeps } from './billing.deps.js';
import { createCouponsService } from './catalog/catalog.coupons.js';
import { assertInstanceAdmin, createPlansService } from './catalog/catalog.plans.js';
import { createFulfilment } from './checkout/checkout.fulfilment.js';
import { createCheckoutService } from './checkout/checkout.service.js';
import { createInvoiceIssuer } from './invoices/invoices.issue.js';
import { createInvoicesService } from './invoices/invoices.service.js';
import { createProfileService } from './profile/profile.service.js';
import { createDunning } from './collection/collection.dunning.js';
import { createCollectionService } from './collection/collection.service.js';
import { createPaymentMethodsService } from './payment-methods/payment-methods.service.js';
import { createSubscriptionsService } from './subscriptions/subscriptions.service.js';

export type { CallbackResult, ProviderOutcome } from './checkout/checkout.service.js';

export type BillingService = ReturnType<typeof createBillingService>;

/**
 * The billing service the routes and the other parts of the module use, composed of one part per concern:
 * plans (`catalog/catalog.plans.ts`), subscriptions and their lifecycle (`subscriptions/subscriptions.service.ts`),
 * coupons (`catalog/catalog.coupons.ts`), what a paid payment buys (`checkout/checkout.fulfilment.ts`), checkout and
 * the provider's callback (`checkout/checkout.service.ts`).
 */
export function createBillingService(deps: BillingDeps) {
  const plans = createPlansService(deps);
  const subscriptions = createSubscriptionsService(deps);
  const coupons = createCouponsService(deps);
  const invoiceIssuer = createInvoiceIssuer(deps);
  const fulfilment = createFulfilment({ ...deps, subscriptions, coupons, invoices: invoiceIssuer });
  const invoices = createInvoicesService(deps);
  const profile = createProfileService(deps);
  const paymentMethods = createPaymentMethodsService(deps);
  const dunning = createDunning({ ...deps, subscriptions });
  const checkout = createCheckoutService({ ...deps, subscriptions, coupons, fulfilment, dunning, cards: paymentMethods });
  const collection = createCollectionService({ ...deps, subscriptions, settle: checkout.settle });

  return {
    /** Rules shared with the parts composed outside this service (refunds, reconciliation, notices). */
    internals: {
      fulfil: fulfilment.fulfil,
      issueInvoice: invoiceIssuer.issueInvoice,
      subscriptionUpdated: subscriptions.subscriptionUpdated,
      subscriptionResponse: subscriptions.subscriptionResponse,
      lockedSubscription: subscriptions.lockedSubscription,
      chargeFailed: dunning.chargeFailed,
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

    listPaymentMethods: paymentMethods.list,
    removePaymentMethod: paymentMethods.remove,
    makeDefaultPaymentMethod: paymentMethods.makeDefault,
    runCardNotices: paymentMethods.runExpiring,
    retryNow: collection.retryNow,
    runCollection: collection.run,

    checkout: checkout.checkout,
    handleCallback: checkout.handleCallback,
    cardPage: checkout.cardPage,
    settle: checkout.settle,
    listPayments: checkout.listPayments,
    listInvoices: checkout.listInvoices,
    getInvoice: invoices.getInvoice,
    invoicePdf: invoices.invoicePdf,
    creditNotePdf: invoices.creditNotePdf,

    getProfile: profile.getProfile,
    putProfile: profile.putProfile,

    validateCoupon: coupons.validateCoupon,
    adminListCoupons: coupons.adminListCoupons,
    adminCreateCoupon: coupons.adminCreateCoupon,
    adminDeleteCoupon: coupons.adminDeleteCoupon,
  };
}
