export { customPropertiesRepository } from './custom-properties.repository.js';
export { customPropertiesRoutes } from './custom-properties.routes.js';
export { createCustomPropertiesService, type CustomPropertiesService } from './custom-properties.service.js';
