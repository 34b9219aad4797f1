/**
 * Comments in the activity feed (activity.tsx): one comment (its author, when, its Markdown body, its files), and the
 * box for a new one. Files dropped onto the box, pasted into it (a screenshot) or picked wait beside it and are
 * uploaded after the comment is posted, each with the new comment's `comment_id` (the API attaches a file only to a
 * stored comment, so the comment is created first). Loaded with the files, as a chunk of their own (issue-files.tsx).
 */
import { useState } from 'preact/hooks';
import { type Answer, api, unwrap } from '../../api.js';
import { bytesText } from '../../bytes.js';
import { ActionForm } from '../../components/action-form.js';
import { Markdown } from '../../components/markdown.js';
import { dateTimeLong, relative } from '../../format.js';
import { Field, formValues, useAction, useLoad } from '../../ui.js';
import { type CommentBatch, CommentFiles, CommentUploads, peopleOf } from './attachments.js';
import { FilePicker, pastedFiles, useFileDrop } from './file-input.js';

type Comment = Answer<'listComments'>[number];
type Target = { slug: string; projectId: string; issueId: string };
let batchSeq = 0;

/** An instant relative to now ("3 hours ago"), the full date and time on hover. */
export function When({ at }: { at: string }) {
  return (
    <time dateTime={at} title={dateTimeLong(at)}>
      {relative(at)}
    </time>
  );
}

/** One comment; `onFilesChanged` says a file of it was deleted. */
export function CommentItem({ comment, author, target, onFilesChanged }: { comment: Comment; author: string; target: Target; onFilesChanged: () => void }) {
  return (
    <article class="comment" aria-label={`Comment by ${author}`}>
      <p class="activity-line">
        <span class="who">{author}</span> commented <When at={comment.created_at} />
        {comment.edited_at ? (
          <>
            {' '}
            · edited <When at={comment.edited_at} />
          </>
        ) : null}
      </p>
      <Markdown class="comment-body" text={comment.body} />
      {comment.attachments.length ? <CommentFiles target={target} items={comment.attachments} onDeleted={onFilesChanged} /> : null}
    </article>
  );
}

/**
 * The box for a new comment. `onAdded` runs after a comment is stored (it can answer the SLA's response target, and
 * the feed shows it); `onFilesChanged` says its files were stored (the Attachments section reloads).
 */
export function CommentBox({ target, onAdded, onFilesChanged }: { target: Target; onAdded: () => Promise<void> | void; onFilesChanged: () => void }) {
  const { slug } = target;
  const path = target;
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
    await onAdded();
    // Uploaded by CommentUploads (a progress bar each, under the box) while the next comment can be written.
    if (files.length) setBatches((b) => [...b, { key: ++batchSeq, commentId: comment.id, files }]);
  });
  const canUpload = people.data?.canUpload !== false;
  return (
    <>
      <div class={drop.over ? 'comment-box dropping' : 'comment-box'} {...drop.props}>
        <ActionForm action={addComment} submit="Add comment">
          <Field label="Comment" hint={`Markdown works.${canUpload ? ' Drop or paste files here to attach them to the comment.' : ''}`}>
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
