/**
 * Watch / stop watching an issue (contract 26.1) and who watches it. A chunk of its own (loaded by the issue page
 * when it opens): the issue page's bundle stays as it was.
 */
import { useState } from 'preact/hooks';
import { api, unwrap } from '../../api.js';
import { count } from '../../format.js';
import { ProblemView, useAction, useLoad } from '../../ui.js';

export function Watch({ slug, projectId, issueId, watching }: { slug: string; projectId: string; issueId: string; watching?: boolean | undefined }) {
  const path = { params: { path: { slug, projectId, issueId } } };
  const [on, setOn] = useState(Boolean(watching));
  const watchers = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/watchers/', path)), [issueId]);
  const toggle = useAction(async () => {
    const url = '/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/watch/';
    await unwrap(on ? api().DELETE(url, path) : api().POST(url, path));
    setOn(!on);
    await watchers.reload();
  });
  const list = watchers.data ?? [];
  const names = list.map((w) => w.display_name || w.email).filter(Boolean);
  return (
    <span class="watch">
      <button type="button" class="secondary" disabled={toggle.busy} onClick={() => void toggle.run()}>
        {on ? 'Stop watching' : 'Watch'}
      </button>{' '}
      {on ? <span class="muted">You watch this issue. </span> : null}
      {watchers.data ? (
        <details class="watchers">
          <summary>
            {count(list.length)} {list.length === 1 ? 'watcher' : 'watchers'}
          </summary>
          <ul>
            {names.map((n, i) => (
              <li key={i}>{n}</li>
            ))}
          </ul>
        </details>
      ) : null}
      <ProblemView error={toggle.error ?? watchers.error} />
    </span>
  );
}
