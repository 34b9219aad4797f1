import type { Executor, Tx } from '../../../db/database.js';
import type { Actor } from '../../../kernel/actor.js';
import { addMs, DAY_MS } from '../../../kernel/clock.js';
import { conflict, invalid } from '../../../kernel/errors.js';
import { newId } from '../../../kernel/ids.js';
import { recordEvent } from './subscriptions.audit.js';
import { addInterval, dueTransitions, nextState } from '../billing.domain.js';
import { planInEffect, planOrThrow } from '../catalog/catalog.plans.js';
import type { PlanRow, SubscriptionRow } from '../billing.repository.js';
import type { BillingDeps } from '../billing.deps.js';
import { limitsView, subscriptionView } from '../billing.views.js';

const LIFECYCLE_BATCH = 100;

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;

/** A workspace's subscription: reading it (transitions applied on read), trial, cancel, and the lifecycle job. */
const NO_USAGE = { storage_used_bytes: 0, storage_reserved_bytes: 0 };

export function createSubscriptionsService(deps: Pick<BillingDeps, 'db' | 'repo' | 'clock' | 'identity' | 'graceDays' | 'outbox' | 'time' | 'storageUsage'>) {
  const { db, repo, clock, identity, graceDays, time } = deps;

  /**
   * An active period that ended and does not cancel is renewed by charging the default card (19.2): with one, the
   * period's end is the renewal charge's business, not a transition. Asked only when it matters (rarely).
   */
  const willRenew = (row: SubscriptionRow, now: Date): boolean => row.status === 'active' && !row.cancel_at_period_end && row.current_period_end <= now;
  async function autoRenews(tx: Executor, row: SubscriptionRow, now: Date): Promise<boolean> {
    return willRenew(row, now) && (await repo.findDefaultPaymentMethod(tx, row.workspace_id)) !== undefined;
  }

  /** Writes down every transition that is due (the row must be locked by the caller), once, with an audit event each. */
  async function applyDue(tx: Executor, row: SubscriptionRow, now: Date, known: { hasCard?: boolean } = {}): Promise<SubscriptionRow> {
    row = await applyScheduledChange(tx, row, now);
    const autoRenew = known.hasCard === undefined ? await autoRenews(tx, row, now) : known.hasCard && willRenew(row, now);
    const { state, transitions } = dueTransitions(row, now, graceDays, { autoRenew });
    if (transitions.length === 0) return row;
    const last = transitions[transitions.length - 1]!;
    const enteredDunning = row.status === 'active' && transitions.some((t) => t.to === 'past_due');
    const updated = await repo.updateSubscription(tx, row.workspace_id, row.id, {
      status: state.status,
      canceled_at: state.status === 'canceled' ? (row.canceled_at ?? last.at) : row.canceled_at,
      // No card to charge at the period end: past_due with nothing attempted and no retry scheduled (19.3).
      ...(enteredDunning ? { dunning_attempts: 0, next_retry_at: null, last_failure_reason: null } : {}),
      // The grace period is over: no retry is made after it.
      ...(state.status !== 'past_due' ? { next_retry_at: null } : {}),
      updated_at: now,
    });
    await subscriptionUpdated(tx, updated, row.status, now);
    for (const t of transitions) {
      await repo.insertEvent(tx, {
        id: newId(),
        workspace_id: row.workspace_id,
        subscription_id: row.id,
        payment_id: null,
        type: 'subscription.transition',
        from_status: t.from,
        to_status: t.to,
        data: JSON.stringify({ reason: t.reason }),
        at: t.at,
      });
    }
    return updated;
  }

  /**
   * A downgrade paid during the previous period takes over at its end: the new plan's period follows on at once
   * (it is paid), so the subscription stays active. Written once (the caller holds the row lock).
   */
  async function applyScheduledChange(tx: Executor, row: SubscriptionRow, now: Date): Promise<SubscriptionRow> {
    if (!row.scheduled_plan_slug || row.status !== 'active' || row.current_period_end > now) return row;
    const start = row.current_period_end;
    const interval = row.scheduled_billing_interval!;
    const updated = await repo.updateSubscription(tx, row.workspace_id, row.id, {
      plan_slug: row.scheduled_plan_slug,
      billing_interval: interval,
      amount_per_period: row.scheduled_amount_per_period!,
      current_period_start: start,
      current_period_end: addInterval(start, interval),
      scheduled_plan_slug: null,
      scheduled_billing_interval: null,
      scheduled_amount_per_period: null,
      updated_at: now,
    });
    await subscriptionUpdated(tx, updated, row.status, now);
    await recordEvent(repo, tx, {
      workspaceId: row.workspace_id,
      type: 'subscription.plan_changed',
      subscriptionId: row.id,
      from: row.status,
      to: updated.status,
      data: { from_plan: row.plan_slug, to_plan: updated.plan_slug, reason: 'scheduled_downgrade' },
      at: start,
    });
    return updated;
  }

  /** The workspace's subscription, locked, with due transitions applied. */
  async function lockedSubscription(tx: Executor, workspaceId: string, now: Date, known: { hasCard?: boolean } = {}): Promise<SubscriptionRow | undefined> {
    const row = await repo.findSubscription(tx, workspaceId, true);
    return row ? applyDue(tx, row, now, known) : undefined;
  }

  /** Applied on read: the row is locked only when a transition is due, so plain reads stay cheap. */
  async function currentSubscription(tx: Executor, workspaceId: string, now: Date): Promise<SubscriptionRow | undefined> {
    const row = await repo.findSubscription(tx, workspaceId);
    if (!row || !nextState(row, now, graceDays)) return row;
    return lockedSubscription(tx, workspaceId, now);
  }

  /** The subscription answer (spec 2.8): the subscription, and the limits in effect with the storage used (25.3). */
  async function subscriptionResponse(tx: Executor, sub: SubscriptionRow | undefined, now: Date, plan?: PlanRow, workspaceId = sub?.workspace_id) {
    const limits = limitsView(await planInEffect(repo, tx, sub, now, graceDays, plan));
    const usage = workspaceId === undefined ? NO_USAGE : await deps.storageUsage(tx, workspaceId);
    return { subscription: sub ? subscriptionView(sub) : null, limits: { ...limits, usage } };
  }

  /** `subscription.updated` for webhooks: the subscription response plus the status it had before. */
  async function subscriptionUpdated(tx: Executor, sub: SubscriptionRow, previousStatus: string | null, now: Date, plan?: PlanRow) {
    const data = { ...(await subscriptionResponse(tx, sub, now, plan)), previous_status: previousStatus };
    await deps.outbox.record(tx as Tx, { workspaceId: sub.workspace_id, type: 'subscription.updated', data });
  }

  return {
    applyDue,
    lockedSubscription,
    currentSubscription,
    subscriptionResponse,
    subscriptionUpdated,

    async getSubscription(actor: Actor, slug: string) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'read', tx);
        const now = await time.now(tx, ws.workspaceId);
        return subscriptionResponse(tx, await currentSubscription(tx, ws.workspaceId, now), now, undefined, ws.workspaceId);
      });
    },

    async startTrial(actor: Actor, slug: string, input: { plan_slug: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        const now = await time.now(tx, ws.workspaceId);
        await repo.lockWorkspace(tx, ws.workspaceId);
        const plan = await planOrThrow(repo, input.plan_slug, tx);
        if (!plan.is_active || plan.trial_days <= 0) throw invalid('/plan_slug', `the ${plan.name} plan has no trial`);
        const current = await lockedSubscription(tx, ws.workspaceId, now);
        if (current && (current.status === 'trialing' || current.status === 'active' || current.status === 'past_due')) {
          throw conflict('The workspace already has a subscription');
        }
        const end = addMs(now, plan.trial_days * DAY_MS);
        if (!(await repo.insertTrial(tx, { workspace_id: ws.workspaceId, plan_slug: plan.slug, started_at: now, ends_at: end }))) {
          throw conflict('This workspace has already used its free trial');
        }
        const fields = {
          plan_slug: plan.slug,
          status: 'trialing' as const,
          billing_interval: 'month' as const,
          currency: plan.currency,
          amount_per_period: 0,
          current_period_start: now,
          current_period_end: end,
          cancel_at_period_end: false,
          canceled_at: null,
          created_at: now,
          updated_at: now,
        };
        const sub = current
          ? await repo.replaceSubscription(tx, ws.workspaceId, current.id, { id: newId(), ...fields })
          : await repo.insertSubscription(tx, { id: newId(), workspace_id: ws.workspaceId, ...fields });
        await subscriptionUpdated(tx, sub, current?.status ?? null, now);
        await recordEvent(repo, tx, {
          workspaceId: ws.workspaceId,
          type: 'subscription.trial_started',
          subscriptionId: sub.id,
          from: current?.status ?? null,
          to: 'trialing',
          at: now,
        });
        return subscriptionResponse(tx, sub, now);
      });
    },

    async cancel(actor: Actor, slug: string, input: { immediate: boolean }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'billing', tx);
        const now = await time.now(tx, ws.workspaceId);
        await repo.lockWorkspace(tx, ws.workspaceId);
        const current = await lockedSubscription(tx, ws.workspaceId, now);
        if (!current || current.status === 'canceled' || current.status === 'expired') {
          throw conflict('There is no subscription to cancel');
        }
        // A period that already ended (past_due, suspended) has nothing left to wait for: cancel now.
        const now_ = input.immediate || current.status === 'past_due' || current.status === 'suspended';
        let sub: SubscriptionRow;
        if (now_) {
          const end = current.current_period_end > now ? now : current.current_period_end;
          sub = await repo.updateSubscription(tx, ws.workspaceId, current.id, {
            status: 'canceled',
            canceled_at: now,
            current_period_end: end < current.current_period_start ? current.current_period_start : end,
            updated_at: now,
          });
          await subscriptionUpdated(tx, sub, current.status, now);
          await recordEvent(repo, tx, {
            workspaceId: ws.workspaceId,
            type: 'subscription.canceled',
            subscriptionId: sub.id,
            from: current.status,
            to: 'canceled',
            data: { immediate: true },
            at: now,
          });
        } else if (current.cancel_at_period_end) {
          sub = current;
        } else {
          sub = await repo.updateSubscription(tx, ws.workspaceId, current.id, { cancel_at_period_end: true, updated_at: now });
          await recordEvent(repo, tx, {
            workspaceId: ws.workspaceId,
            type: 'subscription.cancel_scheduled',
            subscriptionId: sub.id,
            from: current.status,
            to: current.status,
            data: { immediate: false },
            at: now,
          });
        }
        return subscriptionResponse(tx, sub, now);
      });
    },

    /**
     * The periodic job: claims due subscriptions in batches with FOR UPDATE SKIP LOCKED, so any number of instances
     * can run it at once and each transition is written exactly once. `scope`: one workspace at its own billing time
     * (a test clock's); else every workspace without a test clock, at the real time.
     */
    async runLifecycle(scope?: { workspaceId: string; now: Date }): Promise<{ transitioned: number }> {
      let transitioned = 0;
      for (;;) {
        const { claimed, changed } = await db.transaction().execute(async (tx: Tx) => {
          const now = scope?.now ?? clock.now();
          const rows = await repo.claimDueSubscriptions(tx, now, addMs(now, -graceDays * DAY_MS), LIFECYCLE_BATCH, scope?.workspaceId);
          let n = 0;
          for (const row of rows) if ((await applyDue(tx, row, now)) !== row) n++;
          return { claimed: rows.length, changed: n };
        });
        transitioned += changed;
        if (claimed < LIFECYCLE_BATCH || changed === 0) break;
      }
      return { transitioned };
    },

    /** The plan in effect for a workspace, read inside the caller's transaction (no writes). */
    async planInEffect(tx: Executor, workspaceId: string): Promise<PlanRow> {
      const now = clock.now();
      return planInEffect(repo, tx, await repo.findSubscription(tx, workspaceId), now, graceDays);
    },

    /** Audit trail of one workspace (tests and operators). */
    async events(workspaceId: string) {
      return repo.listEvents(db, workspaceId);
    },
  };
}
