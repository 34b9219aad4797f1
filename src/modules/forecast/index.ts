export { forecastRepository } from './forecast.repository.js';
export { forecastRoutes } from './forecast.routes.js';
export { createForecastService, type ForecastService } from './forecast.service.js';
