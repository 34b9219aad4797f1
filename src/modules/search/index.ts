export { searchRepository } from './search.repository.js';
export { searchRoutes } from './search.routes.js';
export { createSearchService, type SearchService } from './search.service.js';
