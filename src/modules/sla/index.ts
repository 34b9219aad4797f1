export { slaRepository } from './sla.repository.js';
export { slaRoutes } from './sla.routes.js';
export { createSlaService, type SlaService } from './sla.service.js';
export { slaSimulationRepository } from './sla-simulation.repository.js';
export { slaSimulationRoutes } from './sla-simulation.routes.js';
export { createSlaSimulationService, type SlaSimulationService } from './sla-simulation.service.js';
export { slaReportsRepository } from './sla-reports.repository.js';
export { slaReportsRoutes } from './sla-reports.routes.js';
export { createSlaReportsService, type SlaReportsService } from './sla-reports.service.js';
