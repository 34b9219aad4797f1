/** Dates and estimates of an issue (contract 18.1): what they read, and an editor that sends only what changed. */
import { type Answer, api, unwrap } from '../../api.js';
import { ActionForm } from '../../components/action-form.js';
import { Facts } from '../../components/facts.js';
import { minutesField, minutesText } from '../../components/minutes.js';
import { errorsAt, Field, formValues, useAction } from '../../ui.js';

export type Issue = Answer<'getIssue'>;
type Planning = Pick<Issue, 'start_date' | 'target_date' | 'estimate_minutes' | 'remaining_minutes'>;

/**
 * `remaining_minutes` reads the user's figure or, while none is set, the estimate minus the time spent: the field shows
 * what it reads and is sent only when edited, so saving a date never turns the derived figure into a fixed one.
 * "Follow the estimate" sends null (the derived figure again).
 */
export function Planning({ slug, projectId, issue, onSaved }: { slug: string; projectId: string; issue: Issue; onSaved: () => void }) {
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const next: Planning = {
      start_date: v.start_date || null,
      target_date: v.target_date || null,
      estimate_minutes: minutesField(v.estimate_minutes),
      remaining_minutes: v.follow === 'on' ? null : minutesField(v.remaining_minutes),
    };
    const body: Partial<Planning> = {};
    for (const key of ['start_date', 'target_date', 'estimate_minutes'] as const) if (next[key] !== issue[key]) Object.assign(body, { [key]: next[key] });
    if (v.follow === 'on' || next.remaining_minutes !== issue.remaining_minutes) body.remaining_minutes = next.remaining_minutes;
    if (!Object.keys(body).length) return;
    await unwrap(
      api().PATCH('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', { params: { path: { slug, projectId, issueId: issue.id } }, body }),
    );
    form.reset();
    onSaved();
  });
  const minutes = (name: 'estimate_minutes' | 'remaining_minutes', label: string, hint: string) => (
    <Field label={label} hint={hint} errors={errorsAt(save.error, `/${name}`)}>
      {(id, describedBy) => (
        <input id={id} name={name} type="number" min={0} max={1000000} step={1} defaultValue={String(issue[name] ?? '')} aria-describedby={describedBy} />
      )}
    </Field>
  );
  return (
    <div class="planning-facts">
      <Facts
        live
        items={[
          ['Start', issue.start_date ?? '—'],
          ['Target', issue.target_date ?? '—'],
          ['Estimate', minutesText(issue.estimate_minutes)],
          ['Time spent', minutesText(issue.time_spent_minutes)],
          ['Remaining', minutesText(issue.remaining_minutes)],
        ]}
      />
      {/* Keyed by what the issue reads: a save or a worklog remounts the form with the new figures. */}
      <ActionForm
        key={`${issue.updated_at} ${issue.time_spent_minutes} ${issue.remaining_minutes ?? ''}`}
        class="planning"
        action={save}
        submit="Save dates and estimate"
        problem="after"
      >
        <Field label="Start date" errors={errorsAt(save.error, '/start_date')}>
          {(id, describedBy) => <input id={id} name="start_date" type="date" defaultValue={issue.start_date ?? ''} aria-describedby={describedBy} />}
        </Field>
        <Field label="Target date" errors={errorsAt(save.error, '/target_date')}>
          {(id, describedBy) => <input id={id} name="target_date" type="date" defaultValue={issue.target_date ?? ''} aria-describedby={describedBy} />}
        </Field>
        {minutes('estimate_minutes', 'Estimate (minutes)', 'The original estimate; blank: none')}
        {minutes('remaining_minutes', 'Remaining (minutes)', 'Reads the estimate minus the time spent until you set it')}
        <Field label="Remaining follows the estimate">{(id) => <input id={id} name="follow" type="checkbox" />}</Field>
      </ActionForm>
    </div>
  );
}
