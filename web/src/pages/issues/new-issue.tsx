/** A new issue: title, description, priority and state; on success its page. */
import { api, PRIORITIES, unwrap } from '../../api.js';
import { ActionForm } from '../../components/action-form.js';
import { SelectField } from '../../components/options.js';
import { navigate } from '../../router.js';
import { Field, formValues, PageTitle, useAction, useLoad } from '../../ui.js';

export function NewIssue({ slug, projectId }: { slug: string; projectId: string }) {
  const states = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/states/', { params: { path: { slug, projectId } } })),
    [slug, projectId],
  );
  const create = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const issue = await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/', {
        params: { path: { slug, projectId } },
        body: {
          name: v.name ?? '',
          description: v.description ?? '',
          priority: (v.priority || 'none') as (typeof PRIORITIES)[number],
          ...(v.state_id ? { state_id: v.state_id } : {}),
        },
      }),
    );
    navigate(`/w/${slug}/p/${projectId}/issues/${issue.id}`);
  });
  return (
    <section class="narrow">
      <PageTitle>New issue</PageTitle>
      <ActionForm action={create} submit="Create issue">
        <Field label="Title">{(id) => <input id={id} name="name" required />}</Field>
        <Field label="Description">{(id) => <textarea id={id} name="description" rows={4} />}</Field>
        <SelectField label="Priority" name="priority" items={PRIORITIES} selected="none" />
        <SelectField
          label="State"
          name="state_id"
          all="Default (Backlog)"
          items={(states.data ?? []).map((s) => [s.id, `${s.name}${s.pauses_sla ? ' (pauses SLA)' : ''}`] as const)}
        />
      </ActionForm>
    </section>
  );
}
