/** The labels of a project (contract 24.1): list, new, rename and recolour, delete (it comes off its issues). */
import { api, unwrap } from '../api.js';
import { ActionForm } from '../components/action-form.js';
import { EditableCards } from '../components/editable-cards.js';
import { type Label, LabelChip, useLabels } from '../components/label-chips.js';
import { Link } from '../router.js';
import { errorsAt, Field, formValues, PageTitle, ProblemView, useAction } from '../ui.js';

const DEFAULT_COLOR = '#6b7280';

function LabelForm({ slug, projectId, label, onDone }: { slug: string; projectId: string; label?: Label; onDone: () => void }) {
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const body = { name: v.name ?? '', color: (v.color || DEFAULT_COLOR).toLowerCase(), description: v.description ?? '' };
    if (label)
      await unwrap(
        api().PATCH('/api/workspaces/{slug}/projects/{projectId}/labels/{labelId}/', { params: { path: { slug, projectId, labelId: label.id } }, body }),
      );
    else {
      await unwrap(api().POST('/api/workspaces/{slug}/projects/{projectId}/labels/', { params: { path: { slug, projectId } }, body }));
      form.reset();
    }
    onDone();
  });
  const at = (path: string) => errorsAt(save.error, path);
  return (
    <ActionForm class="inline" action={save} submit={label ? 'Save label' : 'Add label'} problem="after">
      <Field label="Label name" errors={at('/name')}>
        {(id, by) => <input id={id} name="name" required maxLength={64} defaultValue={label?.name ?? ''} aria-describedby={by} />}
      </Field>
      <Field label="Colour" errors={at('/color')}>
        {(id, by) => <input id={id} name="color" type="color" defaultValue={label?.color ?? DEFAULT_COLOR} aria-describedby={by} />}
      </Field>
      <Field label="Description" errors={at('/description')}>
        {(id, by) => <input id={id} name="description" maxLength={500} defaultValue={label?.description ?? ''} aria-describedby={by} />}
      </Field>
    </ActionForm>
  );
}

export function Labels({ slug, projectId }: { slug: string; projectId: string }) {
  const list = useLabels(slug, projectId);
  const remove = useAction(async (l: Label) => {
    await unwrap(api().DELETE('/api/workspaces/{slug}/projects/{projectId}/labels/{labelId}/', { params: { path: { slug, projectId, labelId: l.id } } }));
    await list.reload();
  });
  return (
    <section>
      <PageTitle>Labels</PageTitle>
      <p class="muted">Deleting a label takes it off every issue that has it.</p>
      <ProblemView error={remove.error} />
      <EditableCards
        state={list}
        empty="No labels yet. Add the first one below."
        noun="label"
        remove={remove}
        form={(l, done) => <LabelForm slug={slug} projectId={projectId} label={l} onDone={done} />}
      >
        {(l) => (
          <>
            <LabelChip label={l} /> {l.description ? <span class="muted">{l.description}</span> : null}{' '}
            <Link to={`/w/${slug}/p/${projectId}/issues?label_id=${l.id}`}>
              Issues<span class="sr-only"> labelled {l.name}</span>
            </Link>
          </>
        )}
      </EditableCards>
      <h2>New label</h2>
      <LabelForm slug={slug} projectId={projectId} onDone={() => void list.reload()} />
    </section>
  );
}
