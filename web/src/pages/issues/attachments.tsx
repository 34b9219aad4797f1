/**
 * Files on an issue (contract 25.1, 25.7), in the chunk the issue page loads (issue-files.tsx): the Attachments section (thumbnails of images, a type label otherwise,
 * size, uploader, date, a larger preview, download, delete), uploads with a progress bar and the API's error per file,
 * files dropped anywhere on the issue page or pasted outside text fields (a screenshot), and the files of comments
 * (comments.tsx).
 *
 * Uploads are plain `multipart/form-data` requests (files.ts), one per file, in parallel.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, getToken, unwrap } from '../../api.js';
import { dateTime, percent } from '../../format.js';
import { bytesText } from '../../bytes.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { ListOf } from '../../components/list-view.js';
import { type Attachment, download, imageUrl, isPreviewable, thumbnailUrl, typeLabel, type UploadTarget, uploadFile } from '../../files.js';
import { Link } from '../../router.js';
import { ProblemView, useAction, useLoad } from '../../ui.js';
import { carriesFiles, FilePicker, pastedFiles } from './file-input.js';

/** Who is looking: their id, whether they may upload (not a guest) or delete others' files (an admin), members' names. */
export interface People {
  id: string;
  admin: boolean;
  canUpload: boolean;
  names: Map<string, string>;
}

// Who is looking does not change while the console runs under one token: asked once per workspace and token, for the
// Attachments section and every comment's files alike.
const people = new Map<string, Promise<People>>();

export function peopleOf(slug: string): Promise<People> {
  const key = `${getToken() ?? ''} ${slug}`;
  let found = people.get(key);
  if (!found) {
    found = (async () => {
      const c = api();
      const [me, members] = await Promise.all([
        unwrap(c.GET('/api/users/me/')),
        unwrap(c.GET('/api/workspaces/{slug}/members/', { params: { path: { slug } } })).catch(() => null),
      ]);
      const role = members?.find((m) => m.user_id === me.id)?.role;
      return {
        id: me.id,
        admin: role === 'admin',
        // Guests read; when the members list is closed to the caller the API's 403 says so on the first upload.
        canUpload: role !== 'guest',
        names: new Map((members ?? []).map((m) => [m.user_id, m.display_name || m.email])),
      };
    })();
    found.catch(() => people.delete(key));
    people.set(key, found);
  }
  return found;
}

function usePeople(slug: string) {
  return useLoad(() => peopleOf(slug), [slug]);
}

// ---------------------------------------------------------------------------------------------------------------
// Uploads: one progress bar per file, the API's error per file.

export interface UploadItem {
  key: number;
  file: File;
  sent: number;
  total: number;
  /** `sending` the bytes, `storing` (all sent, the service stores the file and makes its thumbnail), or `failed`. */
  state: 'sending' | 'storing' | 'failed';
  error?: unknown;
  abort: () => void;
}

export interface Uploads {
  items: UploadItem[];
  /** What the last finished upload did, for screen readers. */
  status: string;
  /** Uploads each file (to the comment `commentId` when given); resolves when all have finished or failed. */
  start: (files: File[], commentId?: string) => Promise<void>;
  dismiss: (key: number) => void;
}

let uploadSeq = 0;

/** Uploads of files to an issue; `onUploaded` runs as each one is stored (the lists reload). */
export function useUploads(target: UploadTarget, onUploaded: (a: Attachment) => void): Uploads {
  const [items, setItems] = useState<UploadItem[]>([]);
  const [status, setStatus] = useState('');
  const latest = useRef({ target, onUploaded });
  latest.current = { target, onUploaded };
  const patch = (key: number, change: Partial<UploadItem>) => setItems((list) => list.map((i) => (i.key === key ? { ...i, ...change } : i)));
  const drop = (key: number) => setItems((list) => list.filter((i) => i.key !== key));
  const start = async (files: File[], commentId?: string) => {
    await Promise.all(
      files.map(async (file) => {
        const key = ++uploadSeq;
        const up = uploadFile(latest.current.target, file, commentId, (sent, total) =>
          patch(key, { sent, total, state: sent >= total ? 'storing' : 'sending' }),
        );
        setItems((list) => [...list, { key, file, sent: 0, total: file.size, state: 'sending', abort: up.abort }]);
        try {
          const stored = await up.done;
          drop(key);
          setStatus(`${stored.filename} attached`);
          latest.current.onUploaded(stored);
        } catch (error) {
          if (error instanceof DOMException && error.name === 'AbortError') {
            drop(key);
            setStatus(`Upload of ${file.name} cancelled`);
          } else {
            patch(key, { state: 'failed', error });
            setStatus(`${file.name} was not attached`);
          }
        }
      }),
    );
  };
  return { items, status, start, dismiss: drop };
}

/** Why a file was not stored, in words: a full workspace (with its used and limit sizes), a file too large, else the API's detail. */
function UploadProblem({ error, file, slug }: { error: unknown; file: File; slug: string }) {
  if (error instanceof ApiError && error.code === 'storage_limit_reached') {
    const p = error.problem as ApiError['problem'] & { used_bytes?: number; limit_bytes?: number };
    return (
      <div class="problem" role="alert">
        <strong>The workspace's storage is full.</strong>{' '}
        {p.used_bytes !== undefined && p.limit_bytes !== undefined ? (
          <>
            {bytesText(p.used_bytes)} of {bytesText(p.limit_bytes)} used; this file needs {bytesText(file.size)}.{' '}
          </>
        ) : null}
        Delete files or move to a <Link to={`/w/${slug}/billing`}>plan with more storage</Link>. <span class="code">(402 storage_limit_reached)</span>
      </div>
    );
  }
  if (error instanceof ApiError && error.code === 'file_too_large') {
    return (
      <div class="problem" role="alert">
        <strong>The file is too large ({bytesText(file.size)}).</strong> {error.problem.detail} <span class="code">(413 file_too_large)</span>
      </div>
    );
  }
  return <ProblemView error={error} />;
}

/** The uploads under way (a progress bar each) and the failed ones (the reason, and Dismiss). */
export function UploadList({ uploads, slug, label }: { uploads: Uploads; slug: string; label: string }) {
  return (
    <>
      {uploads.items.length ? (
        <ul class="uploads" aria-label={label}>
          {uploads.items.map((i) => (
            <li key={i.key}>
              <div class="upload-name">
                <span class="filename">{i.file.name}</span> <small>{bytesText(i.file.size)}</small>
              </div>
              {i.state === 'failed' ? (
                <div class="upload-failed">
                  <UploadProblem error={i.error} file={i.file} slug={slug} />
                  <button type="button" class="link" aria-label={`Dismiss ${i.file.name}`} onClick={() => uploads.dismiss(i.key)}>
                    Dismiss
                  </button>
                </div>
              ) : (
                <div class="progress-row">
                  {i.state === 'storing' ? (
                    // All bytes sent: the service stores the file (and makes its thumbnail); the bar has no value now.
                    <progress key="storing" aria-label={`Storing ${i.file.name}`} />
                  ) : (
                    <progress key="sending" max={Math.max(1, i.total)} value={i.sent} aria-label={`Uploading ${i.file.name}`} />
                  )}
                  <span>{i.state === 'storing' ? 'Storing…' : percent(i.total ? (i.sent / i.total) * 100 : 0, 0)}</span>
                  {i.state === 'sending' ? (
                    <button type="button" class="link" aria-label={`Cancel the upload of ${i.file.name}`} onClick={i.abort}>
                      Cancel
                    </button>
                  ) : null}
                </div>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      <p class="sr-only" role="status" aria-live="polite">
        {uploads.status}
      </p>
    </>
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The whole issue page as a drop target, and pastes outside text fields.

/**
 * While the Attachments section is shown: files dropped anywhere on the page (the comment box keeps its own drops) and
 * a screenshot pasted outside a text field (the comment box takes its own pastes) go to `onFiles`. `over` is true
 * while files are dragged over the page; the page is outlined (the body's `dropping-files` class).
 */
function usePageFiles(onFiles: (files: File[]) => void): boolean {
  const [over, setOver] = useState(false);
  const latest = useRef(onFiles);
  latest.current = onFiles;
  useEffect(() => {
    // dragenter/dragleave fire for every element crossed: the count of entries says when the pointer has left.
    let depth = 0;
    const show = (on: boolean) => {
      setOver(on);
      document.body.classList.toggle('dropping-files', on);
    };
    const enter = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      depth++;
      show(true);
    };
    const overPage = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const leave = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) show(false);
    };
    const drop = (e: DragEvent) => {
      depth = 0;
      show(false);
      const files = [...(e.dataTransfer?.files ?? [])];
      if (!files.length) return;
      e.preventDefault();
      latest.current(files);
    };
    const paste = (e: ClipboardEvent) => {
      if (e.defaultPrevented) return;
      const t = e.target;
      if (t instanceof Element && t.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])')) return;
      const files = pastedFiles(e.clipboardData);
      if (!files.length) return;
      e.preventDefault();
      latest.current(files);
    };
    document.addEventListener('dragenter', enter);
    document.addEventListener('dragover', overPage);
    document.addEventListener('dragleave', leave);
    document.addEventListener('drop', drop);
    document.addEventListener('paste', paste);
    return () => {
      document.removeEventListener('dragenter', enter);
      document.removeEventListener('dragover', overPage);
      document.removeEventListener('dragleave', leave);
      document.removeEventListener('drop', drop);
      document.removeEventListener('paste', paste);
      document.body.classList.remove('dropping-files');
    };
  }, []);
  return over;
}

// ---------------------------------------------------------------------------------------------------------------
// Stored files: a list of items, each with its thumbnail or type, its facts, preview, download and delete.

function Thumb({ target, a }: { target: UploadTarget; a: Attachment }) {
  // null while it loads, false when the file has none (then the type label shows).
  const [src, setSrc] = useState<string | null | false>(null);
  useEffect(() => {
    let live = true;
    thumbnailUrl(target, a.id).then(
      (url) => live && setSrc(url),
      () => live && setSrc(false),
    );
    return () => {
      live = false;
    };
  }, [a.id]);
  if (src === false) return <span class="file-type">{typeLabel(a)}</span>;
  if (src === null) return <span class="thumb-wait" />;
  return <img src={src} alt="" />;
}

/** The larger preview of an image: a modal dialog; Escape or Close shut it and the focus goes back to the thumbnail. */
function Preview({ target, a, onClose }: { target: UploadTarget; a: Attachment; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [src, setSrc] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const headingId = `preview-${a.id}`;
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    const aborted = new AbortController();
    imageUrl(target, a.id, aborted.signal).then(setSrc, (e: unknown) => {
      if (!aborted.signal.aborted) setError(e);
    });
    return () => {
      aborted.abort();
      if (dialog.open) dialog.close();
      opener?.focus();
    };
  }, [a.id]);
  return (
    <dialog ref={ref} class="preview" aria-labelledby={headingId} onClose={onClose}>
      <div class="preview-head">
        <h2 id={headingId}>{a.filename}</h2>
        <button type="button" onClick={() => ref.current?.close()}>
          Close
        </button>
      </div>
      {src ? (
        <img src={src} alt={a.filename} width={a.image?.width} height={a.image?.height} />
      ) : error ? (
        <ProblemView error={error} />
      ) : (
        <p role="status">Loading the image…</p>
      )}
      <p class="muted">
        {a.image ? `${a.image.width} × ${a.image.height} px · ` : ''}
        {bytesText(a.size_bytes)}
      </p>
    </dialog>
  );
}

function AttachmentItem({ target, a, people, onDeleted }: { target: UploadTarget; a: Attachment; people: People | undefined; onDeleted: () => void }) {
  const [previewing, setPreviewing] = useState(false);
  const save = useAction(() => download(target, a));
  const remove = useAction(async () => {
    await unwrap(
      api().DELETE('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/attachments/{attachmentId}/', {
        params: { path: { ...target, attachmentId: a.id } },
      }),
    );
    onDeleted();
  });
  const uploader = people?.id === a.created_by ? 'you' : (people?.names.get(a.created_by) ?? 'a former member');
  const mayDelete = people && (people.id === a.created_by || people.admin);
  return (
    <li class="attachment">
      {isPreviewable(a) ? (
        <button type="button" class="thumb" aria-label={`Preview ${a.filename}`} onClick={() => setPreviewing(true)}>
          <Thumb target={target} a={a} />
        </button>
      ) : a.image ? (
        <span class="thumb">
          <Thumb target={target} a={a} />
        </span>
      ) : (
        <span class="thumb">
          <span class="file-type">{typeLabel(a)}</span>
        </span>
      )}
      <div class="attachment-info">
        <span class="filename">{a.filename}</span>
        <small>
          {bytesText(a.size_bytes)} · {typeLabel(a)}
          {a.image ? ` ${a.image.width}×${a.image.height}` : ''} · by {uploader} · <time dateTime={a.created_at}>{dateTime(a.created_at)}</time>
        </small>
        <div class="attachment-actions">
          <button type="button" class="link" aria-label={`Download ${a.filename}`} disabled={save.busy} onClick={() => void save.run()}>
            {save.busy ? 'Downloading…' : 'Download'}
          </button>
          {mayDelete ? (
            <ConfirmButton
              class="link danger"
              question={`Delete ${a.filename}? This cannot be undone.`}
              label={`Delete ${a.filename}`}
              disabled={remove.busy}
              onConfirm={() => void remove.run()}
            >
              Delete
            </ConfirmButton>
          ) : null}
        </div>
        <ProblemView error={save.error ?? remove.error} />
      </div>
      {previewing ? <Preview target={target} a={a} onClose={() => setPreviewing(false)} /> : null}
    </li>
  );
}

/** Stored files as a list (the Attachments section, a comment's files). */
export function AttachmentList({
  target,
  items,
  people,
  onDeleted,
  label,
}: {
  target: UploadTarget;
  items: Attachment[];
  people: People | undefined;
  onDeleted: () => void;
  label: string;
}) {
  return (
    <ul class="attachments" aria-label={label}>
      {items.map((a) => (
        <AttachmentItem key={a.id} target={target} a={a} people={people} onDeleted={onDeleted} />
      ))}
    </ul>
  );
}

/**
 * The Attachments section of the issue page: the files of the issue and of its comments (newest first), the picker,
 * the uploads under way; files dropped on the page or pasted go to the issue. `onChanged` says a file was stored or
 * deleted here; `version` changes whenever any file of the issue was (the list reloads).
 */
export function Attachments({ target, version, onChanged }: { target: UploadTarget; version: number; onChanged: () => void }) {
  const who = usePeople(target.slug);
  const uploads = useUploads(target, onChanged);
  const canUpload = who.data?.canUpload !== false;
  const over = usePageFiles((files) => {
    if (canUpload) void uploads.start(files);
  });
  const list = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/attachments/', { params: { path: target } })),
    [target.issueId, version],
  );
  return (
    <section aria-labelledby="attachments-h" class="attachments-section">
      <h2 id="attachments-h">Attachments{list.data?.length ? ` (${list.data.length})` : ''}</h2>
      {over && canUpload ? (
        <p class="drop-banner" aria-hidden="true">
          Drop the files to attach them to this issue
        </p>
      ) : null}
      {canUpload ? (
        <div class="file-drop-hint">
          <FilePicker label="Add files" onFiles={(files) => void uploads.start(files)} />
          <small>or drop files anywhere on this issue, or paste a screenshot.</small>
        </div>
      ) : null}
      <UploadList uploads={uploads} slug={target.slug} label="Uploads to the issue" />
      <ListOf state={list} empty="No files yet.">
        {(items) => <AttachmentList target={target} items={items} people={who.data} onDeleted={onChanged} label="Files of the issue and its comments" />}
      </ListOf>
    </section>
  );
}

/** The files of one comment. */
export function CommentFiles({ target, items, onDeleted }: { target: UploadTarget; items: Attachment[]; onDeleted: () => void }) {
  const who = usePeople(target.slug);
  return <AttachmentList target={target} items={items} people={who.data} onDeleted={onDeleted} label="Files of the comment" />;
}

/** Files that wait for their comment to be stored, then go with its `comment_id`. */
export interface CommentBatch {
  key: number;
  commentId: string;
  files: File[];
}

/** Uploads the files of each new batch once, with a progress bar per file under the comment box. */
export function CommentUploads({ target, batches, onUploaded }: { target: UploadTarget; batches: CommentBatch[]; onUploaded: () => void }) {
  const uploads = useUploads(target, onUploaded);
  const started = useRef(new Set<number>());
  useEffect(() => {
    for (const b of batches) {
      if (started.current.has(b.key)) continue;
      started.current.add(b.key);
      void uploads.start(b.files, b.commentId);
    }
  }, [batches]);
  return <UploadList uploads={uploads} slug={target.slug} label="Uploads to the comment" />;
}
