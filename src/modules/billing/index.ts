export { billingRepository, type BillingRepository } from './billing.repository.js';
export { billingCallbackRoutes, billingRoutes } from './billing.routes.js';
export { type BillingService, createBillingService } from './billing.service.js';
export { createPlanGate } from './billing.plan-gate.js';
export { createPaytrClient, returnPages, sandboxRoutes } from './paytr/index.js';
export { createRefundsService } from './billing.refunds.js';
export { createReconcileService } from './billing.reconcile.js';
export { round2Repository } from './billing.round2.repository.js';
export { billingRound2Routes } from './billing.round2.routes.js';
