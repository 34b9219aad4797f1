/** Outgoing webhooks (section 12): endpoints, their delivery log, a delivery's payload and attempts, redeliver, ping. */
import { useState } from 'preact/hooks';
import { type Answer, api, unwrap } from '../api.js';
import { codeName, count, dateTime, milliseconds } from '../format.js';
import { Link, navigate } from '../router.js';
import { ActionForm } from '../components/action-form.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { byId, DataTable } from '../components/data-table.js';
import { Facts } from '../components/facts.js';
import { CardList, PageOf } from '../components/list-view.js';
import { SelectField } from '../components/options.js';
import './webhooks.css';
import { Badge, Empty, errorsAt, Field, FieldErrors, formValues, PageTitle, ProblemView, Show, useAction, useLoad } from '../ui.js';

type Webhook = Answer<'listWebhooks'>[number];
type Delivery = Answer<'getDelivery'>;
type DeliveryStatus = Delivery['status'];

export const EVENT_TYPES = [
  'issue.created',
  'issue.updated',
  'issue.deleted',
  'comment.created',
  'sla.at_risk',
  'sla.breached',
  'baseline.created',
  'payment.succeeded',
  'payment.failed',
  'payment.refunded',
  'invoice.created',
  'subscription.updated',
  'subscription.renewal_upcoming',
  'subscription.trial_will_end',
] as const;
const STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed'];
const PER_PAGE = 20;

const statusTone = (s: DeliveryStatus) => (s === 'succeeded' ? 'ok' : s === 'failed' ? 'bad' : 'info');

/** Why the service turned an endpoint off, in words. */
const DISABLED: Record<NonNullable<Webhook['disabled_reason']>, string> = {
  gone: 'the receiver answered 410 Gone',
  failing: 'deliveries kept failing',
};

function EndpointState({ w }: { w: Webhook }) {
  if (w.is_active) return <Badge tone="ok">Active</Badge>;
  return <Badge tone={w.disabled_reason ? 'bad' : 'warn'}>{w.disabled_reason ? `Turned off: ${DISABLED[w.disabled_reason]}` : 'Off'}</Badge>;
}

function StatusBadge({ status }: { status: DeliveryStatus }) {
  return <Badge tone={statusTone(status)}>{codeName(status)}</Badge>;
}

const answer = (code: number | null, error?: string | null) => (code !== null ? `HTTP ${code}` : (error ?? '—'));

/** A signing secret, shown once: after creation and after a rotation. */
function Secret({ secret, onDismiss }: { secret: string; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="card secret" role="status">
      <p>
        <strong>Signing secret</strong>: copy it now, it is not shown again.
      </p>
      <code class="secret-value">{secret}</code>
      <div class="actions">
        {/* The clipboard API exists only on secure origins (https, localhost); elsewhere the secret is selected by hand. */}
        {'clipboard' in navigator ? (
          <button
            type="button"
            onClick={() =>
              void navigator.clipboard.writeText(secret).then(
                () => setCopied(true),
                () => undefined,
              )
            }
          >
            {copied ? 'Copied' : 'Copy secret'}
          </button>
        ) : null}
        <button type="button" class="secondary" onClick={onDismiss}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

/** Create or edit an endpoint: url, description, event types (or all), and, when editing, on/off. */
function WebhookForm({ slug, webhook, onSaved }: { slug: string; webhook?: Webhook; onSaved: (created?: Answer<'createWebhook', 201>) => void }) {
  const [all, setAll] = useState(webhook ? webhook.event_types.includes('*') : false);
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const picked = new FormData(form).getAll('event_types').map(String);
    const event_types = all ? ['*'] : picked;
    const description = v.description ? v.description : null;
    if (webhook) {
      await unwrap(
        api().PATCH('/api/workspaces/{slug}/webhooks/{webhookId}/', {
          params: { path: { slug, webhookId: webhook.id } },
          body: { url: v.url ?? '', description, event_types, is_active: v.is_active === 'on' },
        }),
      );
      onSaved();
    } else {
      const created = await unwrap(
        api().POST('/api/workspaces/{slug}/webhooks/', { params: { path: { slug } }, body: { url: v.url ?? '', description, event_types } }),
      );
      form.reset();
      setAll(false);
      onSaved(created);
    }
  });
  const at = (path: string) => errorsAt(save.error, path);
  const types = webhook?.event_types ?? [];
  return (
    <ActionForm action={save} submit={webhook ? 'Save endpoint' : 'Add endpoint'}>
      <Field label="Endpoint URL" hint="https://… that answers 2xx within 10 s" errors={at('/url')}>
        {(id, by) => (
          <input id={id} name="url" type="url" required defaultValue={webhook?.url ?? ''} placeholder="https://example.com/hooks" aria-describedby={by} />
        )}
      </Field>
      <Field label="Description" errors={at('/description')}>
        {(id, by) => <input id={id} name="description" defaultValue={webhook?.description ?? ''} aria-describedby={by} />}
      </Field>
      <fieldset>
        <legend>Events</legend>
        <label class="check">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} /> All events (<code>*</code>)
        </label>
        <div class="checks">
          {EVENT_TYPES.map((t) => (
            <label key={t} class="check">
              <input type="checkbox" name="event_types" value={t} disabled={all} defaultChecked={types.includes(t)} /> {t}
            </label>
          ))}
        </div>
        <FieldErrors messages={[...(at('/event_types') ?? []), ...EVENT_TYPES.flatMap((_, i) => at(`/event_types/${i}`) ?? [])]} />
      </fieldset>
      {webhook ? (
        <Field
          label="Active"
          hint={webhook.disabled_reason ? `Turned off by the service: ${DISABLED[webhook.disabled_reason]}; turning it on clears that` : undefined}
        >
          {(id, by) => <input id={id} name="is_active" type="checkbox" defaultChecked={webhook.is_active} aria-describedby={by} />}
        </Field>
      ) : null}
    </ActionForm>
  );
}

export function Webhooks({ slug }: { slug: string }) {
  const list = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/webhooks/', { params: { path: { slug } } })), [slug]);
  const [created, setCreated] = useState<Answer<'createWebhook', 201> | null>(null);
  return (
    <section>
      <PageTitle>Webhooks</PageTitle>
      <p class="muted">The service POSTs each event to your endpoints, signed the Standard Webhooks way, and retries for about 41 hours.</p>
      {created ? (
        <>
          <p>
            Endpoint added: <Link to={`/w/${slug}/webhooks/${created.id}`}>{created.url}</Link>
          </p>
          <Secret secret={created.secret} onDismiss={() => setCreated(null)} />
        </>
      ) : null}
      <CardList state={list} empty="No endpoints yet. Add one below to receive events.">
        {(w) => (
          <>
            <Link to={`/w/${slug}/webhooks/${w.id}`}>
              <span class="break">{w.url}</span>
            </Link>{' '}
            <EndpointState w={w} />
            {w.description ? <div>{w.description}</div> : null}
            <div class="muted">{w.event_types.includes('*') ? 'all events' : w.event_types.join(', ')}</div>
          </>
        )}
      </CardList>
      <h2>New endpoint</h2>
      <WebhookForm
        slug={slug}
        onSaved={(c) => {
          if (c) setCreated(c);
          void list.reload();
        }}
      />
    </section>
  );
}

/** One endpoint: edit, rotate the secret, ping, delete, and its delivery log (paginated, filtered by status in the URL). */
export function WebhookPage({ slug, webhookId, query }: { slug: string; webhookId: string; query: URLSearchParams }) {
  const path = { slug, webhookId };
  const statusParam = query.get('status') ?? '';
  const status = (STATUSES as string[]).includes(statusParam) ? (statusParam as DeliveryStatus) : undefined;
  const offset = Math.max(0, Number(query.get('offset') ?? '0') || 0);
  const setQuery = (next: { status?: string; offset?: number }) => {
    const q = new URLSearchParams();
    const s = next.status ?? status ?? '';
    const o = next.offset ?? offset;
    if (s) q.set('status', s);
    if (o) q.set('offset', String(o));
    navigate(`/w/${slug}/webhooks/${webhookId}${q.size ? `?${q}` : ''}`);
  };
  const hook = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/webhooks/{webhookId}/', { params: { path } })), [slug, webhookId]);
  const log = useLoad(
    () =>
      unwrap(
        api().GET('/api/workspaces/{slug}/webhooks/{webhookId}/deliveries/', {
          params: { path, query: { offset, per_page: PER_PAGE, ...(status ? { status } : {}) } },
        }),
      ),
    [slug, webhookId, status, offset],
  );
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [pinged, setPinged] = useState<Delivery | null>(null);
  const rotate = useAction(async () => {
    setSecret((await unwrap(api().POST('/api/workspaces/{slug}/webhooks/{webhookId}/rotate-secret/', { params: { path } }))).secret);
  });
  const ping = useAction(async () => {
    setPinged(await unwrap(api().POST('/api/workspaces/{slug}/webhooks/{webhookId}/ping/', { params: { path } })));
    await log.reload();
  });
  const remove = useAction(async () => {
    await unwrap(api().DELETE('/api/workspaces/{slug}/webhooks/{webhookId}/', { params: { path } }));
    navigate(`/w/${slug}/webhooks`);
  });
  return (
    <section>
      <p class="crumbs">
        <Link to={`/w/${slug}/webhooks`}>Webhooks</Link> /
      </p>
      <Show state={hook}>
        {(w) => (
          <>
            <PageTitle>{`Endpoint ${w.url}`}</PageTitle>
            <p>
              <EndpointState w={w} /> {w.description ? <span>{w.description}</span> : null}
            </p>
            <p class="muted">
              Events: {w.event_types.includes('*') ? 'all' : w.event_types.join(', ')} · created {dateTime(w.created_at)}
            </p>
            <div class="actions">
              <button type="button" onClick={() => void ping.run()} disabled={ping.busy}>
                {ping.busy ? 'Pinging…' : 'Send ping'}
              </button>
              <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
                Edit
              </button>
              <ConfirmButton
                class="secondary"
                disabled={rotate.busy}
                question="Rotate the signing secret? For 24 hours deliveries carry both signatures."
                onConfirm={() => void rotate.run()}
              >
                Rotate secret
              </ConfirmButton>
              <ConfirmButton disabled={remove.busy} question={`Delete the endpoint ${w.url} and its delivery log?`} onConfirm={() => void remove.run()}>
                Delete
              </ConfirmButton>
            </div>
            <ProblemView error={ping.error ?? rotate.error ?? remove.error} />
            {pinged ? (
              <p class="card" role="status">
                Ping <Link to={`/w/${slug}/webhooks/${webhookId}/deliveries/${pinged.id}`}>{pinged.event_type}</Link>: <StatusBadge status={pinged.status} />{' '}
                {pinged.last_status_code !== null ? `HTTP ${pinged.last_status_code}` : ''} {pinged.last_error ?? ''}
              </p>
            ) : null}
            {secret ? <Secret secret={secret} onDismiss={() => setSecret(null)} /> : null}
            {editing ? (
              <>
                <h2>Edit endpoint</h2>
                <WebhookForm
                  slug={slug}
                  webhook={w}
                  onSaved={() => {
                    setEditing(false);
                    void hook.reload();
                  }}
                />
              </>
            ) : null}
          </>
        )}
      </Show>
      <h2>Delivery log</h2>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          label="Status"
          all="All"
          items={STATUSES.map((v) => [v, codeName(v)] as const)}
          value={status ?? ''}
          onChange={(v) => setQuery({ status: v, offset: 0 })}
        />
        <button type="button" class="secondary" onClick={() => void log.reload()} disabled={log.loading}>
          Refresh
        </button>
      </form>
      <PageOf
        state={log}
        empty={status ? `No ${status} deliveries.` : 'No deliveries yet. Send a ping to test the endpoint.'}
        paging={{ offset, perPage: PER_PAGE, onPage: (o) => setQuery({ offset: o }), label: 'Delivery pages' }}
      >
        {(rows) => (
          <DataTable
            label="Deliveries"
            rows={rows}
            rowKey={byId}
            columns={[
              { header: 'Event', cell: (d) => <Link to={`/w/${slug}/webhooks/${webhookId}/deliveries/${d.id}`}>{d.event_type}</Link> },
              { header: 'Status', cell: (d) => <StatusBadge status={d.status} /> },
              { header: 'Attempts', cell: (d) => count(d.attempts) },
              { header: 'Last answer', cell: (d) => <span class="clip">{answer(d.last_status_code, d.last_error)}</span> },
              { header: 'Created', cell: (d) => dateTime(d.created_at) },
              { header: 'Next attempt', cell: (d) => dateTime(d.next_attempt_at) },
            ]}
          />
        )}
      </PageOf>
    </section>
  );
}

/** One delivery: what was sent (payload), every attempt, and Redeliver (one attempt now, same webhook-id). */
export function DeliveryPage({ slug, webhookId, deliveryId }: { slug: string; webhookId: string; deliveryId: string }) {
  const path = { slug, webhookId, deliveryId };
  const delivery = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/webhooks/{webhookId}/deliveries/{deliveryId}/', { params: { path } })), [deliveryId]);
  const [latest, setLatest] = useState<Delivery | null>(null);
  const redeliver = useAction(async () => {
    setLatest(await unwrap(api().POST('/api/workspaces/{slug}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver/', { params: { path } })));
  });
  return (
    <section>
      <p class="crumbs">
        <Link to={`/w/${slug}/webhooks`}>Webhooks</Link> / <Link to={`/w/${slug}/webhooks/${webhookId}`}>Endpoint</Link> /
      </p>
      <Show state={delivery}>
        {(loaded) => {
          const d = latest ?? loaded;
          return (
            <>
              <PageTitle
                actions={
                  <button type="button" onClick={() => void redeliver.run()} disabled={redeliver.busy}>
                    {redeliver.busy ? 'Sending…' : 'Redeliver'}
                  </button>
                }
              >
                {`Delivery ${d.event_type}`}
              </PageTitle>
              <ProblemView error={redeliver.error} />
              <Facts
                live
                items={[
                  ['Status', <StatusBadge status={d.status} />],
                  ['Attempts', count(d.attempts)],
                  ['Last answer', answer(d.last_status_code)],
                  ['Created', dateTime(d.created_at)],
                  ['Delivered', dateTime(d.succeeded_at)],
                  ['Next attempt', dateTime(d.next_attempt_at)],
                  ['webhook-id', <code class="break">{d.event_id}</code>],
                ]}
              />
              {d.last_error ? (
                <p>
                  Last error: <code class="break">{d.last_error}</code>
                </p>
              ) : null}
              <h2>Attempts</h2>
              {d.attempt_log.length ? (
                <DataTable
                  label="Delivery attempts"
                  rows={d.attempt_log}
                  rowKey={(_, i) => i}
                  columns={[
                    { header: 'At', cell: (a) => dateTime(a.at) },
                    {
                      header: 'Answer',
                      cell: (a) =>
                        a.status_code !== null ? <Badge tone={a.status_code >= 200 && a.status_code < 300 ? 'ok' : 'bad'}>HTTP {a.status_code}</Badge> : '—',
                    },
                    { header: 'Duration', cell: (a) => milliseconds(a.duration_ms) },
                    { header: 'Error', cell: (a) => <span class="clip">{a.error ?? '—'}</span> },
                  ]}
                />
              ) : (
                <Empty>No attempt yet.</Empty>
              )}
              <h2>Payload</h2>
              <pre class="payload" tabIndex={0} aria-label="Payload (JSON)">
                {JSON.stringify(d.payload, null, 2)}
              </pre>
            </>
          );
        }}
      </Show>
    </section>
  );
}
