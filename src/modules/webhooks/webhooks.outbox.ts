import type { Tx } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import type { Outbox, OutboxEvent } from '../../kernel/outbox.js';
import type { WebhooksRepository } from './webhooks.repository.js';

export interface OutboxDeps {
  repo: Pick<WebhooksRepository, 'insertEventsForEndpoints' | 'insertDeliveries'>;
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
  async function recordMany(tx: Tx, events: OutboxEvent[]): Promise<string[]> {
    if (!events.length) return [];
    const now = clock.now();
    const rows = events.map((event) => ({
      id: newId(),
      workspace_id: event.workspaceId,
      type: event.type,
      // A JSON round trip makes the stored payload exactly what a receiver will parse (dates as ISO strings).
      data: JSON.parse(JSON.stringify(event.data ?? null)) as unknown,
      created_at: now,
    }));
    const matches = await repo.insertEventsForEndpoints(tx, rows);
    if (matches.length) {
      const byId = new Map(rows.map((r) => [r.id, r]));
      await repo.insertDeliveries(
        tx,
        matches.map((m) => ({
          id: newId(),
          workspace_id: byId.get(m.event_id)!.workspace_id,
          webhook_id: m.webhook_id,
          event_id: m.event_id,
          event_type: byId.get(m.event_id)!.type,
          next_attempt_at: now,
          created_at: now,
        })),
      );
      onDeliveries?.();
    }
    return rows.map((r) => r.id);
  }
  return {
    recordMany,
    async record(tx, event) {
      return (await recordMany(tx, [event]))[0]!;
    },
  };
}
