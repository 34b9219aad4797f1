/**
 * The door to the issue page's files and activity (contract 25.7, issue 41). Attachments (attachments.tsx, files.ts)
 * and the activity feed with its comments and their files (activity.tsx, comments.tsx, history.tsx) are a chunk of
 * their own (files-chunk.ts), loaded when an issue page opens: the other pages' bundle stays as small as it was. Each
 * section shows "Loading" for the moment the chunk takes.
 */
import { useEffect, useState } from 'preact/hooks';
import { Loading, ProblemView } from '../../ui.js';

type FilesChunk = typeof import('./files-chunk.js');
let loaded: FilesChunk | null = null;
let loading: Promise<FilesChunk> | null = null;

/** The chunk (once; a failed load is tried again on the next call). */
export function loadFiles(): Promise<FilesChunk> {
  loading ??= import('./files-chunk.js').then(
    (m) => (loaded = m),
    (error: unknown) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

/** The chunk once loaded (at once when an earlier page loaded it), or the error of its load. */
function useFiles(): { chunk: FilesChunk | null; error: unknown } {
  const [state, setState] = useState<{ chunk: FilesChunk | null; error: unknown }>({ chunk: loaded, error: null });
  useEffect(() => {
    if (state.chunk) return;
    loadFiles().then(
      (chunk) => setState({ chunk, error: null }),
      (error: unknown) => setState({ chunk: null, error }),
    );
  }, []);
  return state;
}

function Waiting({ error }: { error: unknown }) {
  return error ? <ProblemView error={error} /> : <Loading />;
}

/** The Attachments section of the issue page. */
export function AttachmentsSection(props: Parameters<FilesChunk['Attachments']>[0]) {
  const { chunk, error } = useFiles();
  if (chunk) return <chunk.Attachments {...props} />;
  return (
    <section aria-labelledby="attachments-h" class="attachments-section">
      <h2 id="attachments-h">Attachments</h2>
      <Waiting error={error} />
    </section>
  );
}

/** The activity feed of the issue page: comments (each with its files) and history, and the comment box. */
export function ActivitySection(props: Parameters<FilesChunk['Activity']>[0]) {
  const { chunk, error } = useFiles();
  if (chunk) return <chunk.Activity {...props} />;
  return (
    <section aria-labelledby="activity-h" class="activity-section">
      <h2 id="activity-h">Activity</h2>
      <Waiting error={error} />
    </section>
  );
}
