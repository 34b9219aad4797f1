import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { BillingService } from './billing.service.js';
import { catalogRoutes } from './catalog/catalog.routes.js';
import { checkoutRoutes } from './checkout/checkout.routes.js';
import { invoicesRoutes } from './invoices/invoices.routes.js';
import { profileRoutes } from './profile/profile.routes.js';
import type { ReconcileService } from './refunds/refunds.reconcile.js';
import { refundsRoutes } from './refunds/refunds.routes.js';
import type { RefundsService } from './refunds/refunds.service.js';
import { subscriptionsRoutes } from './subscriptions/subscriptions.routes.js';
import { collectionRoutes } from './collection/collection.routes.js';
import { paymentMethodsRoutes } from './payment-methods/payment-methods.routes.js';
import { testClockRoutes } from './test-clock/test-clock.routes.js';
import type { TestClockService } from './test-clock/test-clock.service.js';

export { billingCallbackRoutes, cardPageRoutes } from './checkout/checkout.routes.js';

type Opts = { billing: BillingService; refunds: RefundsService; reconcile: ReconcileService; testClock: TestClockService };

/** Every billing route but the provider's callback (`billingCallbackRoutes`, which answers in plain text): one plugin per sub-module. */
export const billingRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { billing, refunds, reconcile, testClock }) => {
  await app.register(catalogRoutes, { billing });
  await app.register(subscriptionsRoutes, { billing });
  await app.register(checkoutRoutes, { billing });
  await app.register(invoicesRoutes, { billing, refunds });
  await app.register(refundsRoutes, { refunds, reconcile });
  await app.register(profileRoutes, { billing });
  await app.register(paymentMethodsRoutes, { billing });
  await app.register(collectionRoutes, { billing });
  await app.register(testClockRoutes, { testClock });
};
