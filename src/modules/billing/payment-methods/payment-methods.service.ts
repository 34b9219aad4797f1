import type { Tx } from '../../../db/database.js';
import type { Actor } from '../../../kernel/actor.js';
import { addMs, DAY_MS } from '../../../kernel/clock.js';
import { AppError, notFound } from '../../../kernel/errors.js';
import { newId } from '../../../kernel/ids.js';
import type { BillingDeps } from '../billing.deps.js';
import { paymentMethodView } from '../billing.views.js';
import { PaytrError } from '../provider/paytr/index.js';

/** `payment_method.expiring` goes out this long before the default card expires (19.1). */
export const EXPIRING_NOTICE_DAYS = 30;
const BATCH = 100;

export type PaymentMethodsService = ReturnType<typeof createPaymentMethodsService>;

/**
 * Stored cards (contract 19.1): what the provider stored for the workspace (its `utoken`), listed here without the
 * card token; remove (at the provider, then here), make default, and the `payment_method.expiring` notice.
 */
export function createPaymentMethodsService(deps: Pick<BillingDeps, 'db' | 'repo' | 'clock' | 'time' | 'identity' | 'provider' | 'log' | 'outbox'>) {
  const { db, repo, clock, time, identity, log } = deps;

  const providerError = (error: unknown): AppError => {
    const reason = error instanceof PaytrError ? error.reason : 'unexpected error';
    if (!(error instanceof PaytrError)) log.error({ err: error }, 'billing: card storage request crashed');
    return new AppError('payment_provider_error', `The payment provider failed: ${reason}`);
  };

  return {
    async list(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'billing');
      return (await repo.listPaymentMethods(db, ws.workspaceId)).map(paymentMethodView);
    },

    /** Removes the card at the provider, then here; the newest remaining card becomes the default. */
    async remove(actor: Actor, slug: string, methodId: string): Promise<void> {
      const { workspaceId, ctoken, utoken } = await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        const method = await repo.findPaymentMethod(tx, ws.workspaceId, methodId);
        if (!method) throw notFound('Payment method');
        return { workspaceId: ws.workspaceId, ctoken: method.ctoken, utoken: await repo.findUtoken(tx, ws.workspaceId) };
      });
      if (utoken) {
        try {
          await deps.provider.deleteCard(utoken, ctoken);
        } catch (error) {
          // The provider answered that it does not have the card (removed there already): removing it here is what
          // the customer asked for. A provider that could not be reached changes nothing (502, try again).
          if (!(error instanceof PaytrError && error.kind === 'refused')) throw providerError(error);
          log.warn({ workspaceId, reason: error.reason }, 'billing: the provider refused to remove a card; removed here');
        }
      }
      await db.transaction().execute(async (tx) => {
        await repo.lockWorkspace(tx, workspaceId);
        const removed = await repo.deletePaymentMethod(tx, workspaceId, methodId);
        if (!removed?.is_default) return;
        const [newest] = await repo.listPaymentMethods(tx, workspaceId);
        if (newest) await repo.setDefaultPaymentMethod(tx, workspaceId, newest.id);
      });
    },

    async makeDefault(actor: Actor, slug: string, methodId: string) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        await repo.lockWorkspace(tx, ws.workspaceId);
        if (!(await repo.findPaymentMethod(tx, ws.workspaceId, methodId))) throw notFound('Payment method');
        return paymentMethodView(await repo.setDefaultPaymentMethod(tx, ws.workspaceId, methodId));
      });
    },

    /**
     * Stores the cards the provider lists for the workspace's utoken that are not stored yet (`/odeme/capi/list`);
     * the newest of them becomes the default. false when the provider could not be asked.
     */
    async syncCards(workspaceId: string): Promise<boolean> {
      const utoken = await repo.findUtoken(db, workspaceId);
      if (!utoken) return true;
      let cards;
      try {
        cards = await deps.provider.listCards(utoken);
      } catch (error) {
        log.warn({ workspaceId, reason: error instanceof PaytrError ? error.reason : 'unexpected error' }, 'billing: stored cards could not be listed');
        return false;
      }
      await db.transaction().execute(async (tx) => {
        await repo.lockWorkspace(tx, workspaceId);
        const now = await time.now(tx, workspaceId);
        let newest: string | undefined;
        for (const card of cards) {
          const row = await repo.insertPaymentMethod(tx, {
            id: newId(),
            workspace_id: workspaceId,
            ctoken: card.ctoken,
            brand: card.brand,
            last4: card.last4,
            exp_month: card.expMonth,
            exp_year: card.expYear,
            created_at: now,
          });
          if (row) newest = row.id;
        }
        if (newest) await repo.setDefaultPaymentMethod(tx, workspaceId, newest);
      });
      return true;
    },

    /**
     * The periodic job `billing.cards`: `payment_method.expiring` once per default card, 30 days before it expires.
     * `scope`: one workspace at its own billing time (a test clock's); else every workspace, now.
     */
    async runExpiring(scope?: { workspaceId: string; now: Date }): Promise<{ notified: number }> {
      let notified = 0;
      for (;;) {
        const n = await db.transaction().execute(async (tx: Tx) => {
          const now = scope?.now ?? clock.now();
          const rows = await repo.claimExpiringCards(tx, addMs(now, EXPIRING_NOTICE_DAYS * DAY_MS), BATCH, scope?.workspaceId);
          for (const card of rows) {
            await repo.markExpiringNotified(tx, card.workspace_id, card.id, now);
            await deps.outbox.record(tx, { workspaceId: card.workspace_id, type: 'payment_method.expiring', data: paymentMethodView(card) });
          }
          return rows.length;
        });
        notified += n;
        if (n < BATCH) break;
      }
      return { notified };
    },
  };
}
