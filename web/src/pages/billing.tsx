/** Billing (sections 8, 13, 19): subscription and usage, dunning, stored cards, plans, checkout, test clock, documents. */
import { useState } from 'preact/hooks';
import { api, money, unwrap } from '../api.js';
import { gigabytesText } from '../bytes.js';
import { Checkout } from './billing/checkout.js';
import { BillingProfile, CreditNotes, Invoices, Payments } from './billing/documents.js';
import { PaymentMethods } from './billing/payment-methods.js';
import { limit, SubscriptionCard } from './billing/subscription.js';
import { TestClock } from './billing/test-clock.js';
import { PageTitle, ProblemView, Show, useAction, useLoad } from '../ui.js';

export function Billing({ slug }: { slug: string }) {
  const path = { slug };
  const plans = useLoad(() => unwrap(api().GET('/api/billing/plans/')), []);
  const sub = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/billing/subscription/', { params: { path } })), [slug]);
  const payments = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/billing/payments/', { params: { path, query: { offset: 0, per_page: 20 } } })),
    [slug],
  );
  // Bumped whenever money moved (a checkout, a retry, the test clock): the lists that load themselves reload.
  const [version, setVersion] = useState(0);
  const refreshAll = () => {
    void sub.reload();
    void payments.reload();
    setVersion((v) => v + 1);
  };
  const trial = useAction(async (planSlug: string) => {
    await unwrap(api().POST('/api/workspaces/{slug}/billing/trial/', { params: { path }, body: { plan_slug: planSlug } }));
    await sub.reload();
  });
  return (
    <section>
      <PageTitle>Billing</PageTitle>
      <h2>Subscription and limits</h2>
      <SubscriptionCard slug={slug} sub={sub} version={version} onChange={refreshAll} />
      <h2>Payment methods</h2>
      <PaymentMethods slug={slug} version={version} onChange={refreshAll} />
      <TestClock slug={slug} periodEnd={sub.data?.subscription?.current_period_end ?? null} version={version} onAdvanced={refreshAll} />
      <h2>Plans</h2>
      <Show state={plans}>
        {(items) => (
          <ul class="plans">
            {items.map((p) => (
              <li key={p.slug} class="card">
                <h3>{p.name}</h3>
                <p>
                  {p.price_month === null ? 'Free' : `${money(p.price_month, p.currency)} / month`}
                  {p.price_year !== null ? ` · ${money(p.price_year, p.currency)} / year` : ''}
                </p>
                <p class="muted">
                  members {limit(p.max_users)} · projects {limit(p.max_projects)} ·{' '}
                  {p.max_storage_gb === -1 ? 'unlimited storage' : `${gigabytesText(p.max_storage_gb)} storage`}
                </p>
                {p.trial_days > 0 ? (
                  <button type="button" onClick={() => void trial.run(p.slug)} disabled={trial.busy}>
                    Start {p.trial_days}-day trial
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Show>
      <ProblemView error={trial.error} />
      <h2>Checkout</h2>
      <Checkout slug={slug} plans={plans.data ?? []} onPaid={refreshAll} />
      <h2>Billing profile</h2>
      <BillingProfile slug={slug} />
      <h2>Invoices</h2>
      <Invoices slug={slug} version={version} />
      <h2>Payments</h2>
      <Payments state={payments} />
      <h2>Credit notes</h2>
      <CreditNotes slug={slug} version={version} orders={new Map(payments.data?.results.map((p) => [p.id, p.merchant_oid]))} />
    </section>
  );
}
