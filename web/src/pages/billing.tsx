import { useState } from 'preact/hooks';
import { api, getToken, money, unwrap, when } from '../api.js';
import { ActionForm } from '../components/action-form.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { byId, DataTable } from '../components/data-table.js';
import { Card, Facts } from '../components/facts.js';
import { PageOf } from '../components/list-view.js';
import { SelectField } from '../components/options.js';
import { Badge, errorsAt, Field, formValues, PageTitle, ProblemView, Show, useAction, useLoad } from '../ui.js';

const limit = (n: number) => (n === -1 ? 'unlimited' : String(n));
const NOTES_PER_PAGE = 20;

/** KDV rate in basis points as a percentage: 2000 -> "20 %". */
const ratePct = (bp: number) => `${bp / 100} %`;

/** The tax split of a document (contract 19.4): net + KDV. */
const taxSplit = (d: { net_amount: number; tax_amount: number; tax_rate_bp: number; currency: string }) =>
  `${money(d.net_amount, d.currency)} + KDV ${ratePct(d.tax_rate_bp)} ${money(d.tax_amount, d.currency)}`;

/**
 * A link to a document's PDF (contract 19.6). The API wants the bearer token, which a plain link cannot send, so a
 * click fetches the file with it and hands the browser the bytes to save or show under the document's number.
 */
function PdfLink({ href, filename, label }: { href: string; filename: string; label: string }) {
  const [failed, setFailed] = useState<string | null>(null);
  const open = async (e: MouseEvent) => {
    e.preventDefault();
    setFailed(null);
    const token = getToken();
    const res = await fetch(href, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    if (!res.ok) {
      setFailed(`PDF not available (${res.status})`);
      return;
    }
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  };
  return (
    <>
      <a href={href} download={filename} aria-label={label} onClick={(e) => void open(e)}>
        PDF
      </a>
      {failed ? <span class="muted"> {failed}</span> : null}
    </>
  );
}

const PROFILE_FIELDS = [
  ['legal_name', 'Legal name', 'Company title (unvan) or full name'],
  ['tax_id', 'Tax id', 'For Turkey: VKN (10 digits) or TCKN (11 digits)'],
  ['tax_office', 'Tax office', 'Vergi dairesi'],
  ['address_line', 'Address', ''],
  ['city', 'City', ''],
  ['postal_code', 'Postal code', ''],
  ['country', 'Country', 'Two letters, e.g. TR'],
  ['email', 'Invoice e-mail', ''],
] as const;

/** The billing profile (contract 19.5): the buyer printed on invoices and credit notes from now on. */
function BillingProfile({ slug }: { slug: string }) {
  const path = { slug };
  const profile = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/billing/profile/', { params: { path } })), [slug]);
  const [saved, setSaved] = useState(false);
  const save = useAction(async (form: HTMLFormElement) => {
    setSaved(false);
    const v = formValues(form);
    const opt = (k: string) => (v[k] ? v[k] : null);
    await unwrap(
      api().PUT('/api/workspaces/{slug}/billing/profile/', {
        params: { path },
        body: {
          legal_name: v.legal_name ?? '',
          tax_id: opt('tax_id'),
          tax_office: opt('tax_office'),
          address_line: opt('address_line'),
          city: opt('city'),
          postal_code: opt('postal_code'),
          country: v.country ? v.country.toUpperCase() : 'TR',
          email: opt('email'),
        },
      }),
    );
    await profile.reload();
    setSaved(true);
  });
  return (
    <Show state={profile}>
      {(p) => (
        <ActionForm action={save} submit="Save billing profile">
          <p class="muted">Printed as the buyer on invoices and credit notes issued from now on; documents already issued keep theirs.</p>
          {PROFILE_FIELDS.map(([name, label, hint]) => (
            <Field key={name} label={label} hint={hint || undefined} errors={errorsAt(save.error, `/${name}`)}>
              {(id, by) => <input id={id} name={name} defaultValue={p[name] ?? ''} aria-describedby={by} />}
            </Field>
          ))}
          {saved && !save.error ? (
            <p class="muted" role="status">
              Saved.
            </p>
          ) : null}
        </ActionForm>
      )}
    </Show>
  );
}

/** Credit notes of the refunds (section 13), newest first, paged. */
function CreditNotes({ slug, version, orders }: { slug: string; version: number; orders: Map<string, string> }) {
  const [offset, setOffset] = useState(0);
  const notes = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/billing/credit-notes/', { params: { path: { slug }, query: { offset, per_page: NOTES_PER_PAGE } } })),
    [slug, offset, version],
  );
  return (
    <PageOf
      state={notes}
      empty="No credit notes: none of the payments was refunded."
      paging={{ offset, perPage: NOTES_PER_PAGE, onPage: setOffset, label: 'Credit note pages' }}
    >
      {(rows) => (
        <DataTable
          rows={rows}
          rowKey={byId}
          columns={[
            { header: 'Number', cell: (n) => n.credit_note_number },
            { header: 'Reason', cell: (n) => n.reason ?? '—' },
            { header: 'Amount', cell: (n) => money(n.amount, n.currency) },
            { header: 'Net + KDV', cell: (n) => taxSplit(n) },
            { header: 'Payment order', cell: (n) => <code>{orders.get(n.payment_id) ?? n.payment_id}</code> },
            { header: 'Issued', cell: (n) => when(n.created_at) },
            {
              header: 'Document',
              cell: (n) => (
                <PdfLink
                  href={`/api/workspaces/${slug}/billing/credit-notes/${n.id}/pdf/`}
                  filename={`${n.credit_note_number}.pdf`}
                  label={`PDF of credit note ${n.credit_note_number}`}
                />
              ),
            },
          ]}
        />
      )}
    </PageOf>
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
          <Card>
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
            <Facts
              items={[
                ['Plan', limits.plan_name],
                ['Members', limit(limits.max_users)],
                ['Projects', limit(limits.max_projects)],
                ['Storage', `${limit(limits.max_storage_gb)} GB`],
                ['Custom properties', limits.features.custom_properties ? 'yes' : 'no'],
              ]}
            />
            {subscription && (subscription.status === 'active' || subscription.status === 'trialing' || subscription.status === 'past_due') ? (
              <div class="actions">
                <button type="button" onClick={() => void cancel.run(false)} disabled={cancel.busy}>
                  Cancel at period end
                </button>
                <ConfirmButton question="Cancel the subscription now?" onConfirm={() => void cancel.run(true)} disabled={cancel.busy}>
                  Cancel now
                </ConfirmButton>
              </div>
            ) : null}
            <ProblemView error={cancel.error} />
          </Card>
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
      <ActionForm class="inline" action={checkout} submit="Go to payment" problem="outside">
        <SelectField label="Plan" name="plan_slug" items={buyable.map((p) => [p.slug, p.name] as const)} />
        <SelectField
          label="Billing interval"
          name="billing_interval"
          items={[
            ['month', 'Monthly'],
            ['year', 'Yearly'],
          ]}
        />
        <Field label="Coupon code">{(id) => <input id={id} name="coupon_code" autocomplete="off" />}</Field>
      </ActionForm>
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
      <h2>Billing profile</h2>
      <BillingProfile slug={slug} />
      <h2>Invoices</h2>
      <PageOf state={invoices} empty="No invoices yet.">
        {(rows) => (
          <DataTable
            rows={rows}
            rowKey={byId}
            columns={[
              { header: 'Number', cell: (i) => i.invoice_number },
              { header: 'Plan', cell: (i) => i.plan_name },
              { header: 'Amount', cell: (i) => money(i.total_amount, i.currency) },
              { header: 'Net + KDV', cell: (i) => taxSplit(i) },
              { header: 'Issued', cell: (i) => when(i.created_at) },
              {
                header: 'Document',
                cell: (i) => (
                  <PdfLink
                    href={`/api/workspaces/${slug}/billing/invoices/${i.id}/pdf/`}
                    filename={`${i.invoice_number}.pdf`}
                    label={`PDF of invoice ${i.invoice_number}`}
                  />
                ),
              },
            ]}
          />
        )}
      </PageOf>
      <h2>Payments</h2>
      <PageOf state={payments} empty="No payments yet.">
        {(rows) => (
          <DataTable
            rows={rows}
            rowKey={byId}
            columns={[
              { header: 'Order', cell: (p) => <code>{p.merchant_oid}</code> },
              { header: 'Plan', cell: (p) => `${p.plan_slug} (${p.billing_interval})` },
              { header: 'Amount', cell: (p) => money(p.amount, p.currency) },
              {
                header: 'Status',
                cell: (p) => (
                  <>
                    <Badge tone={p.status === 'success' ? 'ok' : p.status === 'failed' ? 'bad' : 'info'}>{p.status}</Badge>
                    {p.failure_reason ? ` ${p.failure_reason}` : ''}
                    {p.refunded_amount > 0 && p.status !== 'refunded' ? (
                      <>
                        {' '}
                        <Badge tone="warn">refunded {money(p.refunded_amount, p.currency)}</Badge>
                      </>
                    ) : null}
                  </>
                ),
              },
              { header: 'Created', cell: (p) => when(p.created_at) },
            ]}
          />
        )}
      </PageOf>
      <h2>Credit notes</h2>
      <CreditNotes slug={slug} version={notesVersion} orders={new Map(payments.data?.results.map((p) => [p.id, p.merchant_oid]))} />
    </section>
  );
}
