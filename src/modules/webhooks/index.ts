export { createOutbox } from './webhooks.outbox.js';
export { type WebhooksRepository, webhooksRepository } from './webhooks.repository.js';
export { webhooksRoutes } from './webhooks.routes.js';
export { createSender } from './webhooks.sender.js';
export { createWebhooksService, type WebhooksService } from './webhooks.service.js';
export { createWorker, type Worker } from './webhooks.worker.js';
