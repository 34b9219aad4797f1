/**
 * The subscription card: plan, status, the limits with what the workspace uses of them (19.8; storage 25.3), cancel, and while the
 * subscription is past due or suspended its dunning state with "Retry now" (19.3). Statuses, plans and reasons by name.
 */
import { useState } from 'preact/hooks';
import { api, type Answer, money, unwrap } from '../../api.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { Card, Facts } from '../../components/facts.js';
import { codeName, count, dateTime } from '../../format.js';
import { Badge, type Loaded, ProblemView, Show, useAction, useLoad } from '../../ui.js';
import { type Payment, PaymentStatus } from './documents.js';
import { StorageUsage } from './storage.js';

export type SubscriptionAnswer = Answer<'getSubscription'>;
type Subscription = NonNullable<SubscriptionAnswer['subscription']>;

export const limit = (n: number) => (n === -1 ? 'unlimited' : count(n));
const INTERVALS = { month: 'monthly', year: 'yearly' } as const;

/** "3 of 5" (a meter beside it), "3 (unlimited)"; at or over the cap a warning. */
function Usage({ used, cap, what }: { used: number | undefined; cap: number; what: string }) {
  if (used === undefined) return <>{limit(cap)}</>;
  if (cap === -1) return <>{count(used)} used (unlimited)</>;
  return (
    <>
      {count(used)} of {count(cap)} <meter min={0} max={Math.max(cap, 1)} value={used} aria-label={`${what} used of the plan's ${cap}`} />
      {used >= cap ? (
        <>
          {' '}
          <Badge tone="warn">{used > cap ? 'over the limit' : 'limit reached'}</Badge>
        </>
      ) : null}
    </>
  );
}

/** Members and projects of the workspace, counted as the plan's limits count them (every member, every project). */
function useUsage(slug: string, version: number) {
  const path = { slug };
  return useLoad(async () => {
    const [members, projects] = await Promise.all([
      unwrap(api().GET('/api/workspaces/{slug}/members/', { params: { path } })),
      unwrap(api().GET('/api/workspaces/{slug}/projects/', { params: { path } })),
    ]);
    return { members: members.length, projects: projects.length };
  }, [slug, version]);
}

/** Failed charges of the unpaid period, the next scheduled retry, the last reason, and "Retry now" with its outcome. */
function Dunning({ slug, subscription, onChange }: { slug: string; subscription: Subscription; onChange: () => void }) {
  const [outcome, setOutcome] = useState<Payment | null>(null);
  const retry = useAction(async () => {
    setOutcome(null);
    const r = await unwrap(api().POST('/api/workspaces/{slug}/billing/retry/', { params: { path: { slug } } }));
    setOutcome(r.payment);
    onChange();
  });
  const d = subscription.dunning;
  return (
    <section class="dunning" aria-label="Dunning">
      <h3>{subscription.status === 'suspended' ? 'Suspended: the period is unpaid' : 'Payment failed: in the grace period'}</h3>
      <Facts
        items={[
          ['Failed attempts', d ? String(d.attempts) : '—'],
          ['Next retry', d?.next_retry_at ? dateTime(d.next_retry_at) : 'no retry scheduled'],
          ['Last failure', codeName(d?.last_failure_reason)],
        ]}
      />
      <div class="actions">
        <button type="button" onClick={() => void retry.run()} disabled={retry.busy}>
          {retry.busy ? 'Charging…' : 'Retry now'}
        </button>
      </div>
      {outcome ? (
        <p role="status">
          Retry of {money(outcome.amount, outcome.currency)} (order <code>{outcome.merchant_oid}</code>): <PaymentStatus p={outcome} />
        </p>
      ) : null}
      <ProblemView error={retry.error} />
    </section>
  );
}

export function SubscriptionCard({ slug, sub, version, onChange }: { slug: string; sub: Loaded<SubscriptionAnswer>; version: number; onChange: () => void }) {
  const usage = useUsage(slug, version);
  const cancel = useAction(async (immediate: boolean) => {
    await unwrap(api().POST('/api/workspaces/{slug}/billing/cancel/', { params: { path: { slug } }, body: { immediate } }));
    onChange();
  });
  return (
    <Show state={sub}>
      {({ subscription, limits }) => (
        <Card>
          {subscription ? (
            <p>
              <strong>{codeName(subscription.plan_slug)}</strong>{' '}
              <Badge tone={subscription.status === 'active' || subscription.status === 'trialing' ? 'ok' : 'warn'}>{codeName(subscription.status)}</Badge>{' '}
              {subscription.status === 'trialing' ? 'trial' : INTERVALS[subscription.billing_interval]} ·{' '}
              {subscription.status === 'trialing' ? 'ends' : 'period ends'} {dateTime(subscription.current_period_end)}
              {subscription.cancel_at_period_end ? (
                <>
                  {' '}
                  <Badge tone="warn">Cancels at period end</Badge>
                </>
              ) : null}
            </p>
          ) : (
            <p>No subscription: the workspace is on the free plan.</p>
          )}
          <Facts
            items={[
              ['Plan', limits.plan_name],
              ['Members', <Usage used={usage.data?.members} cap={limits.max_users} what="Members" />],
              ['Projects', <Usage used={usage.data?.projects} cap={limits.max_projects} what="Projects" />],
              ['Storage', <StorageUsage maxGb={limits.max_storage_gb} used={limits.usage.storage_used_bytes} reserved={limits.usage.storage_reserved_bytes} />],
              ['Custom properties', limits.features.custom_properties ? 'Included' : 'Not in this plan'],
            ]}
          />
          <ProblemView error={usage.error} />
          {subscription && (subscription.status === 'past_due' || subscription.status === 'suspended') ? (
            <Dunning slug={slug} subscription={subscription} onChange={onChange} />
          ) : null}
          {subscription && (subscription.status === 'active' || subscription.status === 'trialing' || subscription.status === 'past_due') ? (
            <div class="actions">
              {/* A past due period has ended already: only "now" makes sense; one set to cancel needs no second ask. */}
              {subscription.cancel_at_period_end || subscription.status === 'past_due' ? null : (
                <button type="button" onClick={() => void cancel.run(false)} disabled={cancel.busy}>
                  Cancel at period end
                </button>
              )}
              <ConfirmButton question="Cancel the subscription now?" onConfirm={() => void cancel.run(true)} disabled={cancel.busy}>
                Cancel now
              </ConfirmButton>
            </div>
          ) : null}
          <ProblemView error={cancel.error} />
        </Card>
      )}
    </Show>
  );
}
