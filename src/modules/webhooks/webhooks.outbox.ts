import type { Tx } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import type { Outbox } from '../../kernel/outbox.js';
import type { WebhooksRepository } from './webhooks.repository.js';

export interface OutboxDeps {
  repo: Pick<WebhooksRepository, 'insertEventForEndpoints' | 'insertDeliveries'>;
  clock: Clock;
  /** Called when an event created deliveries (the worker wakes soon after, once the transaction has committed). */
  onDeliveries?: () => void;
}

/**
 * Records an event in the transaction of the change that caused it, and one delivery per active endpoint of the
 * workspace that takes its type, in that same transaction: a committed change always has its deliveries, a
 * rolled-back one never does.
 */
export function createOutbox({ repo, clock, onDeliveries }: OutboxDeps): Outbox<Tx> {
  return {
    async record(tx, event) {
      const id = newId();
      const now = clock.now();
      // A JSON round trip makes the stored payload exactly what a receiver will parse (dates as ISO strings).
      const data: unknown = JSON.parse(JSON.stringify(event.data ?? null));
      const endpoints = await repo.insertEventForEndpoints(tx, { id, workspace_id: event.workspaceId, type: event.type, data, created_at: now });
      if (endpoints.length) {
        await repo.insertDeliveries(
          tx,
          endpoints.map((webhookId) => ({
            id: newId(),
            workspace_id: event.workspaceId,
            webhook_id: webhookId,
            event_id: id,
            event_type: event.type,
            next_attempt_at: now,
            created_at: now,
          })),
        );
        onDeliveries?.();
      }
      return id;
    },
  };
}
