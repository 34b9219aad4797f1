export { type InvitationsRepository, invitationsRepository } from './invitations.repository.js';
export { invitationsRoutes } from './invitations.routes.js';
export { createInvitationsService, type InvitationsService } from './invitations.service.js';
export { type PasswordResetRepository, passwordResetRepository } from './password-reset.repository.js';
export { passwordResetRoutes } from './password-reset.routes.js';
export { createPasswordResetService, type PasswordResetService } from './password-reset.service.js';
