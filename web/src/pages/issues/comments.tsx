/**
 * The comments of an issue, oldest first, each with its files, and a new one. Files dropped onto the comment box,
 * pasted into it (a screenshot) or picked wait beside it and are uploaded after the comment is posted, each with the
 * new comment's `comment_id` (the API attaches a file only to a stored comment, so the comment is created first).
 * Loaded with the files, as a chunk of its own (issue-files.tsx).
 */
import { useState } from 'preact/hooks';
import { api, unwrap, when } from '../../api.js';
import { bytesText } from '../../bytes.js';
import { ActionForm } from '../../components/action-form.js';
import { ListOf } from '../../components/list-view.js';
import { Field, formValues, useAction, useLoad } from '../../ui.js';
import { type CommentBatch, CommentFiles, CommentUploads, peopleOf } from './attachments.js';
import { FilePicker, pastedFiles, useFileDrop } from './file-input.js';

let batchSeq = 0;

/**
 * `onAdded` runs after a comment is stored: a comment can answer the SLA's response target and adds to the history.
 * `filesVersion` changes when files of the issue change (the comments' files reload); `onFilesChanged` says a file of
 * a comment was stored or deleted (the Attachments section reloads).
 */
export function Comments({
  slug,
  projectId,
  issueId,
  filesVersion,
  onAdded,
  onFilesChanged,
}: {
  slug: string;
  projectId: string;
  issueId: string;
  filesVersion: number;
  onAdded: () => void;
  onFilesChanged: () => void;
}) {
  const path = { slug, projectId, issueId };
  const comments = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/comments/', { params: { path } })),
    [issueId, filesVersion],
  );
  const people = useLoad(() => peopleOf(slug), [slug]);
  const [pending, setPending] = useState<File[]>([]);
  const [batches, setBatches] = useState<CommentBatch[]>([]);
  const hold = (files: File[]) => setPending((p) => [...p, ...files]);
  const drop = useFileDrop(hold);
  const addComment = useAction(async (form: HTMLFormElement) => {
    const comment = await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/comments/', { params: { path }, body: { body: formValues(form).body ?? '' } }),
    );
    form.reset();
    const files = pending;
    setPending([]);
    await comments.reload();
    onAdded();
    // Uploaded by CommentUploads (a progress bar each, under the box) while the next comment can be written.
    if (files.length) setBatches((b) => [...b, { key: ++batchSeq, commentId: comment.id, files }]);
  });
  const canUpload = people.data?.canUpload !== false;
  return (
    <>
      <ListOf state={comments} empty="No comments yet.">
        {(list) => (
          <ol class="comments">
            {list.map((c) => (
              <li key={c.id}>
                <p>{c.body}</p>
                <small class="muted">
                  {when(c.created_at)}
                  {c.edited_at ? ` · edited ${when(c.edited_at)}` : ''}
                </small>
                {c.attachments.length ? <CommentFiles target={path} items={c.attachments} onDeleted={onFilesChanged} /> : null}
              </li>
            ))}
          </ol>
        )}
      </ListOf>
      <div class={drop.over ? 'comment-box dropping' : 'comment-box'} {...drop.props}>
        <ActionForm action={addComment} submit="Add comment">
          <Field label="Comment" hint={canUpload ? 'Drop or paste files here to attach them to the comment.' : undefined}>
            {(id, describedBy) => (
              <textarea
                id={id}
                name="body"
                rows={3}
                required
                aria-describedby={describedBy}
                onPaste={(e) => {
                  if (!canUpload) return;
                  const files = pastedFiles(e.clipboardData, true);
                  if (!files.length) return;
                  e.preventDefault();
                  hold(files);
                }}
              />
            )}
          </Field>
          {pending.length ? (
            <ul class="pending-files" aria-label="Files to attach to the comment">
              {pending.map((f, i) => (
                <li key={`${i}-${f.name}`}>
                  <span class="filename">{f.name}</span> <small>{bytesText(f.size)}</small>{' '}
                  <button type="button" class="link" aria-label={`Remove ${f.name}`} onClick={() => setPending((p) => p.filter((_, j) => j !== i))}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
          {canUpload ? <FilePicker label="Attach files" onFiles={hold} /> : null}
        </ActionForm>
      </div>
      <CommentUploads target={path} batches={batches} onUploaded={onFilesChanged} />
    </>
  );
}
