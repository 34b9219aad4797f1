import type { Db } from '../../../db/database.js';
import { addMs, type Clock, DAY_MS } from '../../../kernel/clock.js';
import type { Outbox } from '../../../kernel/outbox.js';
import type { Tx } from '../../../db/database.js';
import type { BillingRepository } from '../billing.repository.js';
import type { BillingService } from '../billing.service.js';

export interface NoticeDeps {
  db: Db;
  repo: Pick<BillingRepository, 'claimNoticeDue' | 'insertNotice'>;
  clock: Clock;
  outbox: Outbox<Tx>;
  billing: BillingService;
  /** BILLING_RENEWAL_NOTICE_DAYS */
  renewalNoticeDays: number;
}

export const TRIAL_NOTICE_DAYS = 3;
const BATCH = 100;

const KINDS = [
  { kind: 'renewal_upcoming', type: 'subscription.renewal_upcoming' },
  { kind: 'trial_will_end', type: 'subscription.trial_will_end' },
] as const;

/**
 * The periodic job `billing.notices`: `subscription.renewal_upcoming` BILLING_RENEWAL_NOTICE_DAYS before the end of an
 * active period that will not cancel, `subscription.trial_will_end` 3 days before a trial ends. Each is recorded in
 * `subscription_notices` for the period end it was sent for, in the transaction that records the outbox event, so
 * it goes out once per period whatever the number of instances (claimed with SKIP LOCKED, the primary key as the
 * last guard). A period extended later (renewal) gets its own notice.
 */
export function createNoticesService(deps: NoticeDeps) {
  const { db, repo, clock } = deps;
  return {
    /** `scope`: one workspace at its own billing time (a test clock's); else every other workspace, now. */
    async run(scope?: { workspaceId: string; now: Date }): Promise<{ renewal_upcoming: number; trial_will_end: number }> {
      const sent = { renewal_upcoming: 0, trial_will_end: 0 };
      for (const { kind, type } of KINDS) {
        const lead = (kind === 'trial_will_end' ? TRIAL_NOTICE_DAYS : deps.renewalNoticeDays) * DAY_MS;
        for (;;) {
          const { claimed, n } = await db.transaction().execute(async (tx) => {
            const now = scope?.now ?? clock.now();
            const rows = await repo.claimNoticeDue(tx, kind, now, addMs(now, lead), BATCH, scope?.workspaceId);
            let n = 0;
            for (const sub of rows) {
              const recorded = await repo.insertNotice(tx, {
                subscription_id: sub.id,
                workspace_id: sub.workspace_id,
                kind,
                period_end: sub.current_period_end,
                sent_at: now,
              });
              if (!recorded) continue;
              const data = await deps.billing.internals.subscriptionResponse(tx, sub, now);
              await deps.outbox.record(tx, { workspaceId: sub.workspace_id, type, data });
              n++;
            }
            return { claimed: rows.length, n };
          });
          sent[kind] += n;
          if (claimed < BATCH || n === 0) break;
        }
      }
      return sent;
    },
  };
}
