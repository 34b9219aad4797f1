export { billingRepository, type BillingRepository } from './billing.repository.js';
export { billingCallbackRoutes, billingRoutes } from './billing.routes.js';
export { type BillingService, createBillingService } from './billing.service.js';
export { createPlanGate } from './billing.plan-gate.js';
export { createPaytrClient, returnPages, sandboxRoutes } from './paytr/index.js';
export { CreateCouponBody, CreatePlanBody } from './billing.schemas.js';
