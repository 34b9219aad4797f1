export { timeTrackingRepository } from './time-tracking.repository.js';
export { timeTrackingRoutes } from './time-tracking.routes.js';
export { createTimeTrackingService, type TimeTrackingService } from './time-tracking.service.js';
