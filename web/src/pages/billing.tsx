/**
 * Billing (sections 8, 13, 19) in four tabs, the tab in the URL (`?tab=`): plan and usage (the subscription, its
 * limits, dunning, the plans with only the offers that make sense now, checkout, the sandbox's test clock), payment
 * methods, invoices and documents (invoices, payments, credit notes), and the billing profile.
 */
import { useState } from 'preact/hooks';
import { type Answer, api, money, unwrap } from '../api.js';
import { gigabytesText } from '../bytes.js';
import { navigate, useLocation } from '../router.js';
import { Checkout } from './billing/checkout.js';
import { BillingProfile, CreditNotes, Invoices, Payments } from './billing/documents.js';
import { PaymentMethods } from './billing/payment-methods.js';
import { limit, SubscriptionCard, type SubscriptionAnswer } from './billing/subscription.js';
import { type Tab, Tabs } from './billing/tabs.js';
import { TestClock } from './billing/test-clock.js';
import { Badge, PageTitle, ProblemView, Show, useAction, useLoad } from '../ui.js';
import './billing.css';

type TabKey = 'plan' | 'payment-methods' | 'documents' | 'profile';
const TABS: readonly Tab<TabKey>[] = [
  { key: 'plan', label: 'Plan and usage' },
  { key: 'payment-methods', label: 'Payment methods' },
  { key: 'documents', label: 'Invoices and documents' },
  { key: 'profile', label: 'Profile' },
];
type Plan = Answer<'listPlans'>[number];
type Subscription = SubscriptionAnswer['subscription'];

/** Statuses under which the workspace is on its plan now (contract 8.2). */
const ON_PLAN = new Set(['trialing', 'active', 'past_due']);

/**
 * The offers that make sense for the subscription as it stands. A trial: only for a workspace that never had a
 * subscription (one trial per workspace, and the API tells no more of the past). Paying for a plan: any paid plan but
 * the one an active subscription is already on (a trial, a failed renewal or an ended subscription may pay for its own).
 */
function offers(plans: Plan[], subscription: Subscription) {
  const buyable = plans.filter((p) => p.is_active && (p.price_month !== null || p.price_year !== null));
  const current = subscription && ON_PLAN.has(subscription.status) ? subscription.plan_slug : null;
  return {
    current,
    trial: subscription === null,
    buyable: buyable.filter((p) => !(subscription?.status === 'active' && p.slug === subscription.plan_slug)),
  };
}

function PlanCards({ plans, subscription, onTrial, busy }: { plans: Plan[]; subscription: Subscription; onTrial: (slug: string) => void; busy: boolean }) {
  const { current, trial } = offers(plans, subscription);
  return (
    <ul class="plans">
      {plans.map((p) => (
        <li key={p.slug} class={p.slug === (current ?? 'free') ? 'card current' : 'card'}>
          <h3>
            {p.name} {p.slug === (current ?? 'free') ? <Badge tone="ok">Current plan</Badge> : null}
          </h3>
          <p>
            {p.price_month === null ? 'Free' : `${money(p.price_month, p.currency)} a month`}
            {p.price_year !== null ? ` · ${money(p.price_year, p.currency)} a year` : ''}
          </p>
          <p class="muted">
            {limit(p.max_users)} members · {limit(p.max_projects)} projects ·{' '}
            {p.max_storage_gb === -1 ? 'unlimited storage' : `${gigabytesText(p.max_storage_gb)} storage`}
          </p>
          {trial && p.trial_days > 0 ? (
            <button type="button" onClick={() => onTrial(p.slug)} disabled={busy}>
              Start {p.trial_days}-day {p.name} trial
            </button>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/** The plan and usage tab: the subscription, the plans, checkout and (on the sandbox) the test clock. */
function PlanAndUsage({ slug, version, onChange }: { slug: string; version: number; onChange: () => void }) {
  const path = { slug };
  const plans = useLoad(() => unwrap(api().GET('/api/billing/plans/')), []);
  const sub = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/billing/subscription/', { params: { path } })), [slug, version]);
  const trial = useAction(async (planSlug: string) => {
    await unwrap(api().POST('/api/workspaces/{slug}/billing/trial/', { params: { path }, body: { plan_slug: planSlug } }));
    onChange();
  });
  const subscription = sub.data?.subscription ?? null;
  const buyable = plans.data && sub.data ? offers(plans.data, subscription).buyable : [];
  return (
    <>
      <h2>Subscription and limits</h2>
      <SubscriptionCard slug={slug} sub={sub} version={version} onChange={onChange} />
      <h2>Plans</h2>
      <Show state={plans}>{(items) => <PlanCards plans={items} subscription={subscription} onTrial={(p) => void trial.run(p)} busy={trial.busy} />}</Show>
      <ProblemView error={trial.error} />
      {buyable.length ? (
        <>
          <h2>{subscription && ON_PLAN.has(subscription.status) ? 'Change or pay for a plan' : 'Buy a plan'}</h2>
          <Checkout slug={slug} plans={buyable} onPaid={onChange} />
        </>
      ) : null}
      <TestClock slug={slug} periodEnd={subscription?.current_period_end ?? null} version={version} onAdvanced={onChange} />
    </>
  );
}

/** Invoices, payments and credit notes, newest first. */
function Documents({ slug, version }: { slug: string; version: number }) {
  const payments = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/billing/payments/', { params: { path: { slug }, query: { offset: 0, per_page: 20 } } })),
    [slug, version],
  );
  return (
    <>
      <h2>Invoices</h2>
      <Invoices slug={slug} version={version} />
      <h2>Payments</h2>
      <Payments state={payments} />
      <h2>Credit notes</h2>
      <CreditNotes slug={slug} version={version} orders={new Map(payments.data?.results.map((p) => [p.id, p.merchant_oid]))} />
    </>
  );
}

export function Billing({ slug }: { slug: string }) {
  const { query } = useLocation();
  const asked = query.get('tab');
  const tab = TABS.find((t) => t.key === asked)?.key ?? 'plan';
  // Bumped whenever money moved (a checkout, a retry, a trial, the test clock): what the tabs load reloads.
  const [version, setVersion] = useState(0);
  const refresh = () => setVersion((v) => v + 1);
  const select = (key: TabKey) => navigate(`/w/${slug}/billing${key === 'plan' ? '' : `?tab=${key}`}`, true);
  return (
    <section>
      <PageTitle>Billing</PageTitle>
      <Tabs label="Billing" tabs={TABS} selected={tab} onSelect={select}>
        {tab === 'plan' ? <PlanAndUsage slug={slug} version={version} onChange={refresh} /> : null}
        {tab === 'payment-methods' ? (
          <>
            <h2>Payment methods</h2>
            <PaymentMethods slug={slug} version={version} onChange={refresh} />
          </>
        ) : null}
        {tab === 'documents' ? <Documents slug={slug} version={version} /> : null}
        {tab === 'profile' ? (
          <>
            <h2>Billing profile</h2>
            <BillingProfile slug={slug} />
          </>
        ) : null}
      </Tabs>
    </section>
  );
}
