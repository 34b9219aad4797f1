import type { Executor } from '../../../db/database.js';
import type { Clock } from '../../../kernel/clock.js';
import type { CollectionRepository } from '../collection/collection.repository.js';

/**
 * A workspace's billing time (contract 19.7): the real clock, plus the offset of the workspace's test clock when the
 * provider is the sandbox. Only billing reads it: every other module, and billing under PayTR, sees the real clock.
 */
export interface BillingTime {
  /** Whether test clocks exist at all (PAYMENT_PROVIDER=sandbox). */
  readonly testClocks: boolean;
  now(tx: Executor, workspaceId: string): Promise<Date>;
}

export function createBillingTime(deps: { clock: Clock; repo: Pick<CollectionRepository, 'findClockOffset'>; testClocks: boolean }): BillingTime {
  const { clock, repo, testClocks } = deps;
  return {
    testClocks,
    async now(tx, workspaceId) {
      const real = clock.now();
      if (!testClocks) return real;
      const offset = await repo.findClockOffset(tx, workspaceId);
      return offset === 0 ? real : new Date(real.getTime() + offset * 1000);
    },
  };
}
