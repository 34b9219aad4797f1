/**
 * The issue's activity (issue 41): its comments and its history in one feed, by time, newest last, with the comment
 * box at the end. The history's own "commented" entries are left out: the comment itself stands in the feed. A long
 * feed shows its newest entries and a button for the older ones. In the files chunk (issue-files.tsx): comments carry
 * files.
 */
import { useState } from 'preact/hooks';
import { type Answer, api, unwrap } from '../../api.js';
import { count } from '../../format.js';
import { ProblemView, useLoad } from '../../ui.js';
import { CommentBox, CommentItem, When } from './comments.js';
import { describe, type Entry, loadHistory, type Names, useHistoryNames } from './history.js';

type Comment = Answer<'listComments'>[number];
type Item = { id: string } & ({ comment: Comment } | { entry: Entry });

/** A UUID v7 (time-ordered); entries written for a whole project at once carry random (v4) ids. */
const timeOrdered = (id: string) => id[14] === '7';

/**
 * The history in its own order (by time, then as written) with the comments put in by time. A comment made in the
 * same instant as an entry goes before it when its id, time-ordered like the entry's, was made first: with a clock
 * that stands still (tests), the feed still reads in the order things happened.
 */
function merge(history: readonly Entry[], comments: readonly Comment[]): Item[] {
  const sorted = [...comments].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id.localeCompare(b.id));
  const out: Item[] = [];
  let next = 0;
  for (const entry of history) {
    const at = Date.parse(entry.at);
    for (let c = sorted[next]; c; c = sorted[next]) {
      const cAt = Date.parse(c.created_at);
      if (cAt > at || (cAt === at && !(timeOrdered(entry.id) && c.id < entry.id))) break;
      out.push({ id: c.id, comment: c });
      next++;
    }
    if (entry.kind !== 'comment') out.push({ id: entry.id, entry });
  }
  for (const c of sorted.slice(next)) out.push({ id: c.id, comment: c });
  return out;
}

/** How many of the newest entries show at first. */
const SHOWN = 50;

/**
 * `version` changes when the issue changed (its history grows); `filesVersion` when files of the issue changed (the
 * comments' files reload). `onCommented` runs after a comment is stored (the SLA clocks can move); `onFilesChanged`
 * says files of a comment were stored or deleted.
 */
export function Activity({
  slug,
  projectId,
  issueId,
  version,
  filesVersion,
  onCommented,
  onFilesChanged,
}: {
  slug: string;
  projectId: string;
  issueId: string;
  version: string;
  filesVersion: number;
  onCommented: () => void;
  onFilesChanged: () => void;
}) {
  const target = { slug, projectId, issueId };
  const [all, setAll] = useState(false);
  const names = useHistoryNames(slug, projectId);
  const comments = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/comments/', { params: { path: target } })),
    [issueId, filesVersion],
  );
  const history = useLoad(() => loadHistory(slug, projectId, issueId), [issueId, version]);
  const n: Names = names.data ?? { users: new Map(), states: new Map(), policies: new Map(), labels: new Map(), identifier: undefined, slug, projectId };
  const items = merge(history.data ?? [], comments.data ?? []);
  const hidden = all ? 0 : Math.max(0, items.length - SHOWN);
  const loading = comments.data === undefined || history.data === undefined;
  const who = (id: string | null) => (id ? (n.users.get(id) ?? 'a former member') : 'The system');
  return (
    <section class="activity-section" aria-labelledby="activity-h">
      <h2 id="activity-h">Activity</h2>
      <ProblemView error={comments.error ?? history.error} />
      {loading && !comments.error && !history.error ? (
        <p class="loading" role="status">
          Loading…
        </p>
      ) : null}
      {hidden ? (
        <button type="button" class="link show-older" onClick={() => setAll(true)}>
          Show {count(hidden)} older {hidden === 1 ? 'entry' : 'entries'}
        </button>
      ) : null}
      {items.length ? (
        <ol class="activity" aria-label="Comments and history, oldest first">
          {items.slice(hidden).map((item) => (
            <li key={item.id} class={'comment' in item ? 'is-comment' : 'is-event'}>
              {'comment' in item ? (
                <CommentItem comment={item.comment} author={who(item.comment.author_id)} target={target} onFilesChanged={onFilesChanged} />
              ) : (
                <p class="activity-line">
                  <span class="who">{who(item.entry.actor_id)}</span> {describe(item.entry, n)} <When at={item.entry.at} />
                </p>
              )}
            </li>
          ))}
        </ol>
      ) : null}
      <CommentBox
        target={target}
        onAdded={async () => {
          await comments.reload();
          onCommented();
        }}
        onFilesChanged={onFilesChanged}
      />
    </section>
  );
}
