import { catalogRepository } from './catalog/catalog.repository.js';
import { checkoutRepository } from './checkout/checkout.repository.js';
import { collectionRepository } from './collection/collection.repository.js';
import { invoicesRepository } from './invoices/invoices.repository.js';
import { paymentMethodsRepository } from './payment-methods/payment-methods.repository.js';
import { profileRepository } from './profile/profile.repository.js';
import { refundsRepository } from './refunds/refunds.repository.js';
import { subscriptionsRepository } from './subscriptions/subscriptions.repository.js';

export type { CouponRow, PlanRow } from './catalog/catalog.repository.js';
export type { PaymentRow } from './checkout/checkout.repository.js';
export type { InvoiceRow } from './invoices/invoices.repository.js';
export type { PaymentMethodRow } from './payment-methods/payment-methods.repository.js';
export type { RefundRow } from './refunds/refunds.repository.js';
export type { SubscriptionRow } from './subscriptions/subscriptions.repository.js';

export type BillingRepository = ReturnType<typeof billingRepository>;

/**
 * Every query of billing in one object, the `repo` its parts share; the SQL itself lives with each sub-module
 * (`<sub>/<sub>.repository.ts`), and no two of them name the same function.
 */
export function billingRepository() {
  return {
    ...catalogRepository(),
    ...subscriptionsRepository(),
    ...checkoutRepository(),
    ...invoicesRepository(),
    ...refundsRepository(),
    ...profileRepository(),
    ...paymentMethodsRepository(),
    ...collectionRepository(),
  };
}
