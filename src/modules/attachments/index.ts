export { type AttachmentsRepository, attachmentsRepository } from './attachments.repository.js';
export { attachmentsRoutes } from './attachments.routes.js';
export { type AttachmentsService, createAttachmentsService } from './attachments.service.js';
export { createFileStorage } from './attachments.s3.js';
export { type FileStorage, localStorage } from './attachments.storage.js';
export { createTusUploads, type TusUploads } from './attachments.tus.js';
export { tusUploadsRepository } from './attachments.tus.repository.js';
export { tusRoutes } from './attachments.tus.routes.js';
export { createTusStore, withTusCleanup } from './attachments.tus.store.js';
