/** The states of a project (section 4) with `pauses_sla` (section 11.2): the SLA clocks stop while an issue is in one. */
import { type Answer, api, STATE_GROUPS, unwrap } from '../api.js';
import { ActionForm } from '../components/action-form.js';
import { EditableCards } from '../components/editable-cards.js';
import { SelectField } from '../components/options.js';
import { codeName } from '../format.js';
import { Badge, errorsAt, Field, formValues, PageTitle, ProblemView, useAction, useLoad } from '../ui.js';

type State = Answer<'listStates'>[number];
type Group = State['group'];

function StateForm({ slug, projectId, state, onDone }: { slug: string; projectId: string; state?: State; onDone: () => void }) {
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const body = { name: v.name ?? '', group: (v.group ?? 'backlog') as Group, color: (v.color ?? '').toUpperCase(), pauses_sla: v.pauses_sla === 'on' };
    if (state)
      await unwrap(
        api().PATCH('/api/workspaces/{slug}/projects/{projectId}/states/{stateId}/', { params: { path: { slug, projectId, stateId: state.id } }, body }),
      );
    else {
      await unwrap(api().POST('/api/workspaces/{slug}/projects/{projectId}/states/', { params: { path: { slug, projectId } }, body }));
      form.reset();
    }
    onDone();
  });
  const at = (path: string) => errorsAt(save.error, path);
  return (
    <ActionForm class="inline" action={save} submit={state ? 'Save state' : 'Add state'} problem="after">
      <Field label="State name" errors={at('/name')}>
        {(id, by) => <input id={id} name="name" required defaultValue={state?.name ?? ''} aria-describedby={by} />}
      </Field>
      <SelectField
        label="Group"
        name="group"
        items={STATE_GROUPS.map((g) => [g, codeName(g)] as const)}
        selected={state?.group ?? 'started'}
        errors={at('/group')}
      />
      <Field label="Colour" errors={at('/color')}>
        {(id, by) => <input id={id} name="color" type="color" defaultValue={(state?.color ?? '#6B7280').toLowerCase()} aria-describedby={by} />}
      </Field>
      <Field label="Pauses SLA" hint="e.g. Waiting on customer" errors={at('/pauses_sla')}>
        {(id, by) => <input id={id} name="pauses_sla" type="checkbox" defaultChecked={state?.pauses_sla ?? false} aria-describedby={by} />}
      </Field>
    </ActionForm>
  );
}

export function States({ slug, projectId }: { slug: string; projectId: string }) {
  const list = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/states/', { params: { path: { slug, projectId } } })),
    [slug, projectId],
  );
  const remove = useAction(async (s: State) => {
    await unwrap(api().DELETE('/api/workspaces/{slug}/projects/{projectId}/states/{stateId}/', { params: { path: { slug, projectId, stateId: s.id } } }));
    await list.reload();
  });
  return (
    <section>
      <PageTitle>States</PageTitle>
      <p class="muted">While an issue is in a state that pauses the SLA, its response and resolution clocks stop.</p>
      <ProblemView error={remove.error} />
      <EditableCards
        state={list}
        empty="No states."
        noun="state"
        remove={remove}
        form={(s, done) => <StateForm slug={slug} projectId={projectId} state={s} onDone={done} />}
      >
        {(s) => (
          <>
            <span class="swatch" style={{ background: s.color }} aria-hidden="true" /> <strong>{s.name}</strong>{' '}
            <span class="muted">Group: {codeName(s.group)}</span> {s.pauses_sla ? <Badge tone="warn">pauses SLA</Badge> : null}{' '}
            {s.is_default ? <Badge tone="info">Default</Badge> : null}
          </>
        )}
      </EditableCards>
      <h2>New state</h2>
      <StateForm slug={slug} projectId={projectId} onDone={() => void list.reload()} />
    </section>
  );
}
