/** Billing records: the billing profile (19.5), invoices and credit notes with their tax split and a PDF link (19.6), payments. */
import { useState } from 'preact/hooks';
import { api, type Answer, getToken, money, unwrap } from '../../api.js';
import { ActionForm } from '../../components/action-form.js';
import { byId, DataTable } from '../../components/data-table.js';
import { PageOf } from '../../components/list-view.js';
import { codeName, date, dateTime, dateTimeLong, percent } from '../../format.js';
import { Badge, errorsAt, Field, formValues, type Loaded, Show, useAction, useLoad } from '../../ui.js';

const NOTES_PER_PAGE = 20;

/** KDV rate in basis points as a percentage: 2000 -> "20%" (in the user's locale). */
const ratePct = (bp: number) => percent(bp / 100, 2);

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

/** The day a document was issued; the instant on hover. */
const Issued = ({ at }: { at: string }) => (
  <time dateTime={at} title={dateTimeLong(at)}>
    {date(at)}
  </time>
);

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
export function BillingProfile({ slug }: { slug: string }) {
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
export function CreditNotes({ slug, version, orders }: { slug: string; version: number; orders: Map<string, string> }) {
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
          label="Credit notes"
          rows={rows}
          rowKey={byId}
          columns={[
            { header: 'Number', cell: (n) => n.credit_note_number },
            { header: 'Reason', cell: (n) => n.reason ?? '—' },
            { header: 'Amount', cell: (n) => money(n.amount, n.currency) },
            { header: 'Net + KDV', cell: (n) => taxSplit(n) },
            { header: 'Payment order', cell: (n) => <code class="order-id">{orders.get(n.payment_id) ?? n.payment_id}</code> },
            { header: 'Issued', cell: (n) => <Issued at={n.created_at} /> },
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

/** Invoices, newest first, each with its tax split and PDF link. */
export function Invoices({ slug, version }: { slug: string; version: number }) {
  const invoices = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/billing/invoices/', { params: { path: { slug }, query: { offset: 0, per_page: 20 } } })),
    [slug, version],
  );
  return (
    <PageOf state={invoices} empty="No invoices yet.">
      {(rows) => (
        <DataTable
          label="Invoices"
          rows={rows}
          rowKey={byId}
          columns={[
            { header: 'Number', cell: (i) => i.invoice_number },
            { header: 'Plan', cell: (i) => i.plan_name },
            { header: 'Amount', cell: (i) => money(i.total_amount, i.currency) },
            { header: 'Net + KDV', cell: (i) => taxSplit(i) },
            { header: 'Issued', cell: (i) => <Issued at={i.created_at} /> },
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
  );
}

export type PaymentsPage = Answer<'listPayments'>;
export type Payment = PaymentsPage['results'][number];

/** A payment's status as a badge, with the provider's reason for a failure and any partial refund. */
export function PaymentStatus({ p }: { p: Payment }) {
  return (
    <>
      <Badge tone={p.status === 'success' ? 'ok' : p.status === 'failed' ? 'bad' : 'info'}>{codeName(p.status)}</Badge>
      {p.failure_reason ? ` ${codeName(p.failure_reason)}` : ''}
      {p.refunded_amount > 0 && p.status !== 'refunded' ? (
        <>
          {' '}
          <Badge tone="warn">Refunded {money(p.refunded_amount, p.currency)}</Badge>
        </>
      ) : null}
    </>
  );
}

/** Payments, newest first: checkouts, renewal charges and dunning retries. */
export function Payments({ state }: { state: Loaded<PaymentsPage> }) {
  return (
    <PageOf state={state} empty="No payments yet.">
      {(rows) => (
        <DataTable
          label="Payments"
          rows={rows}
          rowKey={byId}
          columns={[
            { header: 'Order', cell: (p) => <code class="order-id">{p.merchant_oid}</code> },
            { header: 'Plan', cell: (p) => `${codeName(p.plan_slug)}, ${p.billing_interval === 'year' ? 'yearly' : 'monthly'}` },
            { header: 'Kind', cell: (p) => codeName(p.kind) },
            { header: 'Amount', cell: (p) => money(p.amount, p.currency) },
            { header: 'Status', cell: (p) => <PaymentStatus p={p} /> },
            { header: 'Created', cell: (p) => dateTime(p.created_at) },
          ]}
        />
      )}
    </PageOf>
  );
}
