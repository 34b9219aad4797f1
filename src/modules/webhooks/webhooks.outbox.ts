import type { Tx } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import type { Outbox } from '../../kernel/outbox.js';
import type { WebhooksRepository } from './webhooks.repository.js';

export interface OutboxDeps {
  repo: Pick<WebhooksRepository, 'insertEvent'>;
  clock: Clock;
}

export function createOutbox({ repo, clock }: OutboxDeps): Outbox<Tx> {
  return {
    async record(tx, event) {
      const id = newId();
      // A JSON round trip makes the stored payload exactly what a receiver will parse (dates as ISO strings).
      const data: unknown = JSON.parse(JSON.stringify(event.data ?? null));
      await repo.insertEvent(tx, { id, workspace_id: event.workspaceId, type: event.type, data, created_at: clock.now() });
      return id;
    },
  };
}
