export { slaRepository } from './sla.repository.js';
export { slaRoutes } from './sla.routes.js';
export { createSlaService, type SlaService } from './sla.service.js';
