export { createOutbox } from './webhooks.outbox.js';
export { type WebhooksRepository, webhooksRepository } from './webhooks.repository.js';
