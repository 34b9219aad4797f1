export { createMailQueue, type MailOutbox } from './mail.outbox.js';
export { type MailRepository, mailRepository } from './mail.repository.js';
