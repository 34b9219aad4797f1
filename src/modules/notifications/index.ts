export { type NotificationsRepository, notificationsRepository } from './notifications.repository.js';
export { notificationsRoutes } from './notifications.routes.js';
export { createNotificationsService, type NotificationsService } from './notifications.service.js';
export { excerptOf, mentionCandidates, mentionedMembers, selectNotifications } from './notifications.rules.js';
