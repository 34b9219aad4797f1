export { type SavedViewsRepository, savedViewsRepository } from './saved-views.repository.js';
export { savedViewsRoutes } from './saved-views.routes.js';
export { createSavedViewsService, type SavedViewsService } from './saved-views.service.js';
