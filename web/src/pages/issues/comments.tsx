/** The comments of an issue, oldest first, and a new one. */
import { api, unwrap, when } from '../../api.js';
import { ActionForm } from '../../components/action-form.js';
import { ListOf } from '../../components/list-view.js';
import { Field, formValues, useAction, useLoad } from '../../ui.js';

/** `onAdded` runs after a comment is stored: a comment can answer the SLA's response target and adds to the history. */
export function Comments({ slug, projectId, issueId, onAdded }: { slug: string; projectId: string; issueId: string; onAdded: () => void }) {
  const path = { slug, projectId, issueId };
  const comments = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/comments/', { params: { path } })), [issueId]);
  const addComment = useAction(async (form: HTMLFormElement) => {
    await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/comments/', { params: { path }, body: { body: formValues(form).body ?? '' } }),
    );
    form.reset();
    await comments.reload();
    onAdded();
  });
  return (
    <>
      <ListOf state={comments} empty="No comments yet.">
        {(list) => (
          <ol class="comments">
            {list.map((c) => (
              <li key={c.id}>
                <p>{c.body}</p>
                <small class="muted">{when(c.created_at)}</small>
              </li>
            ))}
          </ol>
        )}
      </ListOf>
      <ActionForm action={addComment} submit="Add comment">
        <Field label="Comment">{(id) => <textarea id={id} name="body" rows={3} required />}</Field>
      </ActionForm>
    </>
  );
}
