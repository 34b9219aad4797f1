export { baselinesRepository } from './baselines.repository.js';
export { baselinesRoutes } from './baselines.routes.js';
export { type BaselinesService, createBaselinesService } from './baselines.service.js';
