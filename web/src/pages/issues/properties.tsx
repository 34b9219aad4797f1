/** The custom properties of a project (section 9): the list and a new one. */
import { api, unwrap } from '../../api.js';
import { CreateForm } from '../../components/action-form.js';
import { CardList } from '../../components/list-view.js';
import { SelectField } from '../../components/options.js';
import { codeName } from '../../format.js';
import { Field, formValues, PageTitle, useAction, useLoad } from '../../ui.js';

const TYPES = ['text', 'number', 'date', 'select', 'multi_select', 'checkbox', 'url'] as const;

export function Properties({ slug, projectId }: { slug: string; projectId: string }) {
  const list = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', { params: { path: { slug, projectId } } })),
    [projectId],
  );
  const create = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const options = (v.options ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', {
        params: { path: { slug, projectId } },
        body: {
          name: v.name ?? '',
          type: (v.type ?? 'text') as (typeof TYPES)[number],
          ...(options.length ? { options } : {}),
          is_required: v.is_required === 'on',
        },
      }),
    );
    form.reset();
    await list.reload();
  });
  return (
    <section>
      <PageTitle>Custom properties</PageTitle>
      <CardList state={list} empty="No custom properties yet (they need a plan with custom properties: Pro or Business).">
        {(p) => (
          <>
            <strong>{p.name}</strong>{' '}
            <span class="muted">
              {codeName(p.type)}
              {p.options?.length ? `: ${p.options.join(', ')}` : ''}
              {p.is_required ? ' · Required' : ''}
            </span>
          </>
        )}
      </CardList>
      <CreateForm title="New property" action={create} submit="Add property">
        <Field label="Property name">{(id) => <input id={id} name="name" required />}</Field>
        <SelectField label="Type" name="type" items={TYPES.map((t) => [t, codeName(t)] as const)} />
        <Field label="Options" hint="For single and multi-select: the choices, comma-separated">
          {(id) => <input id={id} name="options" />}
        </Field>
        <Field label="Required">{(id) => <input id={id} name="is_required" type="checkbox" />}</Field>
      </CreateForm>
    </section>
  );
}
