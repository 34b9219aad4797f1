/**
 * SLA policies (issue 41): each policy's targets as people read them ("Urgent: respond in 15 min, resolve in 4 hr"), its
 * calendar by name, its at-risk share; the editor (targets in hours) with the simulation panel.
 */
import { type Answer, api, unwrap } from '../../api.js';
import { Link } from '../../router.js';
import { ActionForm } from '../../components/action-form.js';
import { EditableCards } from '../../components/editable-cards.js';
import { PriorityIcon } from '../../components/issue-bits.js';
import { SelectField } from '../../components/options.js';
import { codeName, duration, percent } from '../../format.js';
import { Badge, errorsAt, Field, formValues, PageTitle, ProblemView, useAction, useLoad } from '../../ui.js';
import { type Draft, SimulatePanel } from './simulate.js';
import './sla.css';

const RULE_PRIORITIES = ['urgent', 'high', 'medium', 'low'] as const;

type Rule = { priority: (typeof RULE_PRIORITIES)[number]; response_time_h: number; resolution_time_h: number };
type Policy = Answer<'listSlaPolicies'>[number];
type Calendar = Answer<'listSlaCalendars'>[number];

function draftOf(v: Record<string, string>): Draft {
  const rules: Rule[] = [];
  for (const p of RULE_PRIORITIES) {
    const r = v[`${p}_response`];
    const s = v[`${p}_resolution`];
    if (r || s) rules.push({ priority: p, response_time_h: Number(r), resolution_time_h: Number(s) });
  }
  return { rules, calendar_id: v.calendar_id || null, at_risk_percent: v.at_risk_percent ? Number(v.at_risk_percent) : null };
}

/** "Urgent: respond in 15 min, resolve in 4 hr" (hours as a duration, never "0.25 h"). */
export function ruleText(r: Pick<Rule, 'priority' | 'response_time_h' | 'resolution_time_h'>): string {
  return `${codeName(r.priority)}: respond in ${duration(r.response_time_h * 3600)}, resolve in ${duration(r.resolution_time_h * 3600)}`;
}

function PolicyForm({ slug, policy, calendars, onDone }: { slug: string; policy?: Policy; calendars: Calendar[]; onDone: () => void }) {
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const body = { name: v.name ?? '', description: v.description ?? '', is_default: v.is_default === 'on', ...draftOf(v) };
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
        <legend>Targets in hours (0.25 is 15 minutes; leave empty for no rule)</legend>
        <div class="rules">
          {RULE_PRIORITIES.map((p) => (
            <div key={p} class="rule">
              <PriorityIcon priority={p} withText />
              <Field label={`${codeName(p)} response (h)`}>
                {(id) => <input id={id} name={`${p}_response`} type="number" step="any" min="0" defaultValue={String(rule(p)?.response_time_h ?? '')} />}
              </Field>
              <Field label={`${codeName(p)} resolution (h)`}>
                {(id) => <input id={id} name={`${p}_resolution`} type="number" step="any" min="0" defaultValue={String(rule(p)?.resolution_time_h ?? '')} />}
              </Field>
            </div>
          ))}
        </div>
      </fieldset>
      <SimulatePanel slug={slug} draftOf={draftOf} of={policy ? policy.name : 'new policy'} />
    </ActionForm>
  );
}

/** What a policy promises, in words: its targets, its calendar by name, its at-risk share. */
function PolicySummary({ policy, calendars }: { policy: Policy; calendars: Calendar[] }) {
  const calendar = policy.calendar_id ? calendars.find((c) => c.id === policy.calendar_id) : null;
  return (
    <>
      <strong>{policy.name}</strong> {policy.is_default ? <Badge tone="info">Default</Badge> : null}
      {policy.rules.length ? (
        <ul class="policy-rules">
          {policy.rules.map((r) => (
            <li key={r.priority}>{ruleText(r)}</li>
          ))}
        </ul>
      ) : (
        <div class="muted">No rules</div>
      )}
      <div class="muted">
        Calendar: {calendar ? `${calendar.name} (working time, ${calendar.time_zone})` : policy.calendar_id ? 'a deleted calendar' : 'none (24/7)'} · at risk at{' '}
        {policy.at_risk_percent === null ? 'no warning' : percent(policy.at_risk_percent, 0)}
      </div>
    </>
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
    <section class="sla-policies">
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
        {(p) => <PolicySummary policy={p} calendars={cals} />}
      </EditableCards>
      <h2>New policy</h2>
      <PolicyForm slug={slug} calendars={cals} onDone={() => void list.reload()} />
    </section>
  );
}
