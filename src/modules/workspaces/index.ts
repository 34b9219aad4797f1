export { workspacesRepository } from './workspaces.repository.js';
export { workspacesRoutes } from './workspaces.routes.js';
export { createWorkspacesService, type WorkspacesService } from './workspaces.service.js';
