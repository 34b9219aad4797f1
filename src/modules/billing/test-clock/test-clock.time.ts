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
  /** The billing time of a workspace whose offset is already known (read with the row that needed it). */
  at(offsetSeconds: number): Date;
}

export function createBillingTime(deps: { clock: Clock; repo: Pick<CollectionRepository, 'findClockOffset'>; testClocks: boolean }): BillingTime {
  const { clock, repo, testClocks } = deps;
  const at = (offsetSeconds: number): Date => {
    const real = clock.now();
    return !testClocks || offsetSeconds === 0 ? real : new Date(real.getTime() + offsetSeconds * 1000);
  };
  return {
    testClocks,
    at,
    async now(tx, workspaceId) {
      return testClocks ? at(await repo.findClockOffset(tx, workspaceId)) : clock.now();
    },
  };
}
