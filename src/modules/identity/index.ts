export { identityRepository } from './identity.repository.js';
export { identityRoutes } from './identity.routes.js';
export { createIdentityService, type IdentityDeps, type IdentityService, type WorkspaceAccess } from './identity.service.js';
export { type Permission, type Role, roleAllows } from './permissions.js';
export { AuthResponse, DisplayName, Member as MemberSchema, Password, RoleSchema, User as UserSchema } from './identity.schemas.js';
