import { useState } from 'preact/hooks';
import { api, money, unwrap, when } from '../api.js';
import { Badge, Empty, Field, formValues, PageTitle, Pager, ProblemView, Show, useAction, useLoad } from '../ui.js';

const limit = (n: number) => (n === -1 ? 'unlimited' : String(n));
const NOTES_PER_PAGE = 20;

/** Credit notes of the refunds (section 13), newest first, paged. */
function CreditNotes({ slug, version, orders }: { slug: string; version: number; orders: Map<string, string> }) {
  const [offset, setOffset] = useState(0);
  const notes = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/billing/credit-notes/', { params: { path: { slug }, query: { offset, per_page: NOTES_PER_PAGE } } })),
    [slug, offset, version],
  );
  return (
    <Show state={notes}>
      {(page) =>
        page.results.length ? (
          <>
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Number</th>
                    <th scope="col">Reason</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Payment order</th>
                    <th scope="col">Issued</th>
                  </tr>
                </thead>
                <tbody>
                  {page.results.map((n) => (
                    <tr key={n.id}>
                      <td>{n.credit_note_number}</td>
                      <td>{n.reason ?? '—'}</td>
                      <td>{money(n.amount, n.currency)}</td>
                      <td>
                        <code>{orders.get(n.payment_id) ?? n.payment_id}</code>
                      </td>
                      <td>{when(n.created_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager offset={offset} perPage={NOTES_PER_PAGE} shown={page.results.length} total={page.total} onPage={setOffset} label="Credit note pages" />
          </>
        ) : (
          <Empty>No credit notes: none of the payments was refunded.</Empty>
        )
      }
    </Show>
  );
}

export function Billing({ slug }: { slug: string }) {
  const path = { slug };
  const plans = useLoad(() => unwrap(api().GET('/api/billing/plans/')), []);
  const sub = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/billing/subscription/', { params: { path } })), [slug]);
  const invoices = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/billing/invoices/', { params: { path, query: { offset: 0, per_page: 20 } } })),
    [slug],
  );
  const payments = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/billing/payments/', { params: { path, query: { offset: 0, per_page: 20 } } })),
    [slug],
  );
  const [session, setSession] = useState<{ iframe_url: string | null; amount: number; currency: string; merchant_oid: string } | null>(null);
  const [notesVersion, setNotesVersion] = useState(0);
  const refreshAll = async () => {
    await Promise.all([sub.reload(), invoices.reload(), payments.reload()]);
    setNotesVersion((v) => v + 1);
  };
  const checkout = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const s = await unwrap(
      api().POST('/api/workspaces/{slug}/billing/checkout/', {
        params: { path },
        body: {
          plan_slug: v.plan_slug ?? '',
          billing_interval: (v.billing_interval ?? 'month') as 'month' | 'year',
          ...(v.coupon_code ? { coupon_code: v.coupon_code } : {}),
        },
      }),
    );
    setSession(s);
    if (!s.iframe_url) await refreshAll();
  });
  const trial = useAction(async (planSlug: string) => {
    await unwrap(api().POST('/api/workspaces/{slug}/billing/trial/', { params: { path }, body: { plan_slug: planSlug } }));
    await sub.reload();
  });
  const cancel = useAction(async (immediate: boolean) => {
    await unwrap(api().POST('/api/workspaces/{slug}/billing/cancel/', { params: { path }, body: { immediate } }));
    await sub.reload();
  });
  const buyable = plans.data?.filter((p) => p.is_active && (p.price_month !== null || p.price_year !== null)) ?? [];
  return (
    <section>
      <PageTitle>Billing</PageTitle>
      <h2>Subscription and limits</h2>
      <Show state={sub}>
        {({ subscription, limits }) => (
          <div class="card">
            {subscription ? (
              <p>
                <strong>{subscription.plan_slug}</strong>{' '}
                <Badge tone={subscription.status === 'active' || subscription.status === 'trialing' ? 'ok' : 'warn'}>{subscription.status}</Badge>{' '}
                {subscription.billing_interval} · period ends {when(subscription.current_period_end)}
                {subscription.cancel_at_period_end ? (
                  <>
                    {' '}
                    <Badge tone="warn">cancels at period end</Badge>
                  </>
                ) : null}
              </p>
            ) : (
              <p>No subscription: the workspace is on the free plan.</p>
            )}
            <dl class="limits">
              <div>
                <dt>Plan</dt>
                <dd>{limits.plan_name}</dd>
              </div>
              <div>
                <dt>Members</dt>
                <dd>{limit(limits.max_users)}</dd>
              </div>
              <div>
                <dt>Projects</dt>
                <dd>{limit(limits.max_projects)}</dd>
              </div>
              <div>
                <dt>Storage</dt>
                <dd>{limit(limits.max_storage_gb)} GB</dd>
              </div>
              <div>
                <dt>Custom properties</dt>
                <dd>{limits.features.custom_properties ? 'yes' : 'no'}</dd>
              </div>
            </dl>
            {subscription && (subscription.status === 'active' || subscription.status === 'trialing' || subscription.status === 'past_due') ? (
              <div class="actions">
                <button type="button" onClick={() => void cancel.run(false)} disabled={cancel.busy}>
                  Cancel at period end
                </button>
                <button
                  type="button"
                  class="danger"
                  onClick={() => {
                    if (confirm('Cancel the subscription now?')) void cancel.run(true);
                  }}
                  disabled={cancel.busy}
                >
                  Cancel now
                </button>
              </div>
            ) : null}
            <ProblemView error={cancel.error} />
          </div>
        )}
      </Show>
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
                  members {limit(p.max_users)} · projects {limit(p.max_projects)} · {limit(p.max_storage_gb)} GB
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
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void checkout.run(e.currentTarget);
        }}
      >
        <Field label="Plan">
          {(id) => (
            <select id={id} name="plan_slug">
              {buyable.map((p) => (
                <option key={p.slug} value={p.slug}>
                  {p.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Billing interval">
          {(id) => (
            <select id={id} name="billing_interval">
              <option value="month">Monthly</option>
              <option value="year">Yearly</option>
            </select>
          )}
        </Field>
        <Field label="Coupon code">{(id) => <input id={id} name="coupon_code" autocomplete="off" />}</Field>
        <button type="submit" disabled={checkout.busy}>
          Go to payment
        </button>
      </form>
      <ProblemView error={checkout.error} />
      {session ? (
        session.iframe_url ? (
          <div class="payment">
            <p>
              Pay {money(session.amount, session.currency)} (order {session.merchant_oid}) on the provider's page below, then{' '}
              <button type="button" onClick={() => void refreshAll()}>
                refresh the subscription
              </button>
              .
            </p>
            <iframe title="Payment page" src={session.iframe_url} class="payment-frame" />
          </div>
        ) : (
          <p class="card">Nothing to pay: the subscription is active.</p>
        )
      ) : null}
      <h2>Invoices</h2>
      <Show state={invoices}>
        {(page) =>
          page.results.length ? (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Number</th>
                    <th scope="col">Plan</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Issued</th>
                  </tr>
                </thead>
                <tbody>
                  {page.results.map((i) => (
                    <tr key={i.id}>
                      <td>{i.invoice_number}</td>
                      <td>{i.plan_name}</td>
                      <td>{money(i.total_amount, i.currency)}</td>
                      <td>{when(i.created_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <Empty>No invoices yet.</Empty>
          )
        }
      </Show>
      <h2>Payments</h2>
      <Show state={payments}>
        {(page) =>
          page.results.length ? (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Order</th>
                    <th scope="col">Plan</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.results.map((p) => (
                    <tr key={p.id}>
                      <td>
                        <code>{p.merchant_oid}</code>
                      </td>
                      <td>
                        {p.plan_slug} ({p.billing_interval})
                      </td>
                      <td>{money(p.amount, p.currency)}</td>
                      <td>
                        <Badge tone={p.status === 'success' ? 'ok' : p.status === 'failed' ? 'bad' : 'info'}>{p.status}</Badge>
                        {p.failure_reason ? ` ${p.failure_reason}` : ''}
                        {p.refunded_amount > 0 && p.status !== 'refunded' ? (
                          <>
                            {' '}
                            <Badge tone="warn">refunded {money(p.refunded_amount, p.currency)}</Badge>
                          </>
                        ) : null}
                      </td>
                      <td>{when(p.created_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <Empty>No payments yet.</Empty>
          )
        }
      </Show>
      <h2>Credit notes</h2>
      <CreditNotes slug={slug} version={notesVersion} orders={new Map(payments.data?.results.map((p) => [p.id, p.merchant_oid]))} />
    </section>
  );
}
