export { createMailQueue, type MailOutbox } from './mail.outbox.js';
export { type MailRepository, mailRepository } from './mail.repository.js';
export { mailRoutes } from './mail.routes.js';
export { createMailService, type MailService } from './mail.service.js';
export { createSmtpTransport, type MailTransport, type SendResult } from './mail.transport.js';
export { createMailWorker, type MailWorker } from './mail.worker.js';
