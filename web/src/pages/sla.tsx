import { useEffect, useState } from 'preact/hooks';
import { type Answer, api, unwrap, when } from '../api.js';
import { Link } from '../router.js';
import { ActionForm } from '../components/action-form.js';
import { EditableCards } from '../components/editable-cards.js';
import { PageOf } from '../components/list-view.js';
import { SelectField } from '../components/options.js';
import { Badge, errorsAt, Field, formValues, PageTitle, ProblemView, useAction, useLoad } from '../ui.js';

const REFRESH_MS = 10_000;
const RULE_PRIORITIES = ['urgent', 'high', 'medium', 'low'] as const;

/** A page of trackers as `sla-breached` answers it (each with its `issue`); the at-risk list has the same shape. */
export type TrackerPage = Answer<'listSlaBreached'>;

export const loadBreached = (slug: string) =>
  unwrap(api().GET('/api/workspaces/{slug}/sla-breached/', { params: { path: { slug }, query: { offset: 0, per_page: 100 } } }));

export const loadAtRisk = (slug: string) =>
  unwrap(api().GET('/api/workspaces/{slug}/sla-at-risk/', { params: { path: { slug }, query: { offset: 0, per_page: 100 } } }));

/**
 * A live list of SLA trackers, refreshed every 10 s without a reload (only while the tab is visible). It knows nothing
 * about which list it shows: the breached board passes `loadBreached`, the at-risk board `loadAtRisk`.
 */
export function TrackerBoard({ slug, load, empty, label }: { slug: string; load: (slug: string) => Promise<TrackerPage>; empty: string; label: string }) {
  const board = useLoad(() => load(slug), [slug, load]);
  const [checked, setChecked] = useState(new Date());
  useEffect(() => {
    const t = setInterval(() => {
      if (document.visibilityState === 'visible') void board.reload().then(() => setChecked(new Date()));
    }, REFRESH_MS);
    return () => clearInterval(t);
  }, [board.reload]);
  return (
    <>
      <p class="muted" aria-live="polite">
        Live: refreshes every 10 seconds · last checked {checked.toLocaleTimeString()}
      </p>
      <PageOf state={board} empty={empty}>
        {(trackers) => (
          <ul class="board" aria-label={label}>
            {trackers.map((t) => (
              <li key={t.id}>
                <Link to={`/w/${slug}/p/${t.issue.project_id}/issues/${t.issue.id}`}>
                  #{t.issue.sequence_id} {t.issue.name}
                </Link>
                <div>
                  <span class={`prio ${t.issue.priority}`}>{t.issue.priority}</span> {t.issue.state_group}{' '}
                  {t.response_breached ? <Badge tone="bad">response breached</Badge> : null}{' '}
                  {t.resolution_breached ? <Badge tone="bad">resolution breached</Badge> : null} {t.at_risk ? <Badge tone="warn">at risk</Badge> : null}{' '}
                  {t.paused ? <Badge tone="warn">paused</Badge> : null}
                </div>
                <small class="muted">
                  response due {when(t.response_due_at)} · resolution due {when(t.resolution_due_at)}
                </small>
              </li>
            ))}
          </ul>
        )}
      </PageOf>
    </>
  );
}

/** Breached trackers, refreshed every 10 s without a reload. */
export function BreachedBoard({ slug }: { slug: string }) {
  return (
    <section>
      <PageTitle>SLA breached</PageTitle>
      <TrackerBoard slug={slug} load={loadBreached} label="Breached trackers" empty="Nothing is breached. Well done." />
      <p>
        <Link to={`/w/${slug}/sla/at-risk`}>At-risk trackers</Link>
      </p>
    </section>
  );
}

/** Trackers at risk (an open target has counted its policy's at-risk share), soonest due first, live. */
export function AtRiskBoard({ slug }: { slug: string }) {
  return (
    <section>
      <PageTitle>SLA at risk</PageTitle>
      <TrackerBoard slug={slug} load={loadAtRisk} label="At-risk trackers" empty="Nothing is at risk right now." />
      <p>
        <Link to={`/w/${slug}/sla/breached`}>Breached trackers</Link>
      </p>
    </section>
  );
}

type Rule = { priority: (typeof RULE_PRIORITIES)[number]; response_time_h: number; resolution_time_h: number };
type Policy = Answer<'listSlaPolicies'>[number];
type Calendar = Answer<'listSlaCalendars'>[number];

/** The rules, calendar and at-risk share as the policy form holds them (saved, or simulated before saving). */
function draftOf(v: Record<string, string>) {
  const rules: Rule[] = [];
  for (const p of RULE_PRIORITIES) {
    const r = v[`${p}_response`];
    const s = v[`${p}_resolution`];
    if (r || s) rules.push({ priority: p, response_time_h: Number(r), resolution_time_h: Number(s) });
  }
  return { rules, calendar_id: v.calendar_id || null, at_risk_percent: v.at_risk_percent ? Number(v.at_risk_percent) : null };
}

function PolicyForm({ slug, policy, calendars, onDone }: { slug: string; policy?: Policy; calendars: Calendar[]; onDone: () => void }) {
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const body = {
      name: v.name ?? '',
      description: v.description ?? '',
      is_default: v.is_default === 'on',
      ...draftOf(v),
    };
    if (policy) await unwrap(api().PATCH('/api/workspaces/{slug}/sla-policies/{policyId}/', { params: { path: { slug, policyId: policy.id } }, body }));
    else await unwrap(api().POST('/api/workspaces/{slug}/sla-policies/', { params: { path: { slug } }, body }));
    if (!policy) form.reset();
    onDone();
  });
  const rule = (p: string) => policy?.rules.find((r) => r.priority === p);
  const at = (path: string) => errorsAt(save.error, path);
  return (
    <ActionForm class="policy" action={save} submit={policy ? 'Save policy' : 'Create policy'}>
      <Field label="Policy name" errors={at('/name')}>
        {(id, d) => <input id={id} name="name" required defaultValue={policy?.name ?? ''} aria-describedby={d} />}
      </Field>
      <Field label="Description">{(id) => <input id={id} name="description" defaultValue={policy?.description ?? ''} />}</Field>
      <Field label="Workspace default">{(id) => <input id={id} name="is_default" type="checkbox" defaultChecked={policy?.is_default ?? false} />}</Field>
      <div class="row">
        <SelectField
          label="Calendar"
          hint="working time the clocks count; none: all time counts"
          errors={at('/calendar_id')}
          name="calendar_id"
          all="None (24/7)"
          items={calendars.map((c) => [c.id, `${c.name} (${c.time_zone})`] as const)}
          selected={policy?.calendar_id ?? ''}
        />
        <Field label="At risk at (%)" hint="1–99; empty: no at-risk warning" errors={at('/at_risk_percent')}>
          {(id, d) => (
            <input
              id={id}
              name="at_risk_percent"
              type="number"
              min="1"
              max="99"
              step="1"
              defaultValue={policy ? String(policy.at_risk_percent ?? '') : '75'}
              aria-describedby={d}
            />
          )}
        </Field>
      </div>
      <fieldset>
        <legend>Targets in hours (leave empty for no rule)</legend>
        <div class="rules">
          {RULE_PRIORITIES.map((p) => (
            <div key={p} class="rule">
              <span class={`prio ${p}`}>{p}</span>
              <Field label={`${p} response (h)`}>
                {(id) => <input id={id} name={`${p}_response`} type="number" step="any" min="0" defaultValue={String(rule(p)?.response_time_h ?? '')} />}
              </Field>
              <Field label={`${p} resolution (h)`}>
                {(id) => <input id={id} name={`${p}_resolution`} type="number" step="any" min="0" defaultValue={String(rule(p)?.resolution_time_h ?? '')} />}
              </Field>
            </div>
          ))}
        </div>
      </fieldset>
      <SimulatePanel slug={slug} />
    </ActionForm>
  );
}

type Simulation = Answer<'simulateSlaPolicy'>;
type Block = Simulation['current']['response'];

const isoDay = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/** `92.5 % (37 met, 3 breached, 2 open)`, or a dash when nothing was met or breached. */
function BlockCell({ b }: { b: Block }) {
  return (
    <td>
      <strong>{b.achievement_percent === null ? '–' : `${b.achievement_percent} %`}</strong>{' '}
      <small class="muted">
        {b.met} met · {b.breached} breached · {b.open} open
      </small>
    </td>
  );
}

function ComparisonRow({ label, current, draft }: { label: string; current: Simulation['current']; draft: Simulation['draft'] }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <BlockCell b={current.response} />
      <BlockCell b={draft.response} />
      <BlockCell b={current.resolution} />
      <BlockCell b={draft.resolution} />
    </tr>
  );
}

/**
 * What the policy as edited would have done (contract 20.2): the issues created in the range replayed under the policy
 * that applies to each now and under the form's rules, calendar and at-risk share, before anything is saved.
 */
function SimulatePanel({ slug }: { slug: string }) {
  const today = new Date();
  const [result, setResult] = useState<Simulation | null>(null);
  const run = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    setResult(null);
    const body = { policy: draftOf(v), from: v.simulate_from ?? '', to: v.simulate_to ?? '' };
    setResult(await unwrap(api().POST('/api/workspaces/{slug}/sla-policies/simulate/', { params: { path: { slug } }, body })));
  });
  return (
    // A fieldset is at least as wide as its content: min-width 0 lets the comparison scroll in its own box on a phone.
    <fieldset class="simulate" style={{ minWidth: 0 }}>
      <legend>Simulate before saving</legend>
      <div class="row">
        <Field label="Issues created from" errors={errorsAt(run.error, '/from')}>
          {(id) => <input id={id} name="simulate_from" type="date" defaultValue={isoDay(new Date(today.getTime() - 29 * 86_400_000))} />}
        </Field>
        <Field label="to" errors={errorsAt(run.error, '/to')}>
          {(id) => <input id={id} name="simulate_to" type="date" defaultValue={isoDay(today)} />}
        </Field>
        <button type="button" disabled={run.busy} onClick={(e) => void run.run(e.currentTarget.form!)}>
          {run.busy ? 'Simulating…' : 'Simulate'}
        </button>
      </div>
      <ProblemView error={run.error} />
      {result ? (
        <div aria-live="polite" class="simulation">
          <p>
            {result.issues} issues replayed · {result.changed.total === 0 ? 'no target would change' : `${result.changed.total} targets would change`}
          </p>
          <div class="table-wrap" role="region" aria-label="Current policy against draft" tabIndex={0}>
            <table aria-label="Current policy against draft">
              <thead>
                <tr>
                  <th scope="col">Priority</th>
                  <th scope="col">Response now</th>
                  <th scope="col">Response draft</th>
                  <th scope="col">Resolution now</th>
                  <th scope="col">Resolution draft</th>
                </tr>
              </thead>
              <tbody>
                {result.by_priority.map((p) => (
                  <ComparisonRow key={p.priority} label={p.priority} current={p.current} draft={p.draft} />
                ))}
                <ComparisonRow label="all" current={result.current} draft={result.draft} />
              </tbody>
            </table>
          </div>
          {result.changed.items.length ? (
            <details>
              <summary>Changed targets{result.changed.total > result.changed.items.length ? ` (first ${result.changed.items.length})` : ''}</summary>
              <ul>
                {result.changed.items.map((c) => (
                  <li key={`${c.issue_id}-${c.target}`}>
                    <code>{c.issue_id}</code> {c.target}: {c.current} → {c.draft}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
        </div>
      ) : null}
    </fieldset>
  );
}

export function Policies({ slug }: { slug: string }) {
  const list = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/sla-policies/', { params: { path: { slug } } })), [slug]);
  const calendars = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/sla-calendars/', { params: { path: { slug } } })), [slug]);
  const cals = calendars.data ?? [];
  const remove = useAction(async (p: Policy) => {
    await unwrap(api().DELETE('/api/workspaces/{slug}/sla-policies/{policyId}/', { params: { path: { slug, policyId: p.id } } }));
    await list.reload();
  });
  return (
    <section>
      <PageTitle
        actions={
          <Link class="button" to={`/w/${slug}/sla/calendars`}>
            Calendars
          </Link>
        }
      >
        SLA policies
      </PageTitle>
      <ProblemView error={remove.error} />
      <ProblemView error={calendars.error} />
      <EditableCards
        state={list}
        empty="No SLA policies yet: without a policy, issues have no SLA tracker."
        noun="policy"
        remove={remove}
        form={(p, done) => <PolicyForm slug={slug} policy={p} calendars={cals} onDone={done} />}
      >
        {(p) => (
          <>
            <strong>{p.name}</strong> {p.is_default ? <Badge tone="info">default</Badge> : null}
            <div class="muted">{p.rules.map((r) => `${r.priority}: ${r.response_time_h} h / ${r.resolution_time_h} h`).join(' · ') || 'no rules'}</div>
            <div class="muted">
              calendar: {p.calendar_id ? (cals.find((c) => c.id === p.calendar_id)?.name ?? p.calendar_id) : 'none (24/7)'} · at risk at{' '}
              {p.at_risk_percent === null ? 'no warning' : `${p.at_risk_percent} %`}
            </div>
          </>
        )}
      </EditableCards>
      <h2>New policy</h2>
      <PolicyForm slug={slug} calendars={cals} onDone={() => void list.reload()} />
    </section>
  );
}
