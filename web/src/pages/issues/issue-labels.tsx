/** The labels of one issue, chosen among the project's: each box saved as it changes (the whole set, as the API takes it). */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Answer, api, unwrap } from '../../api.js';
import { type Label, LabelChip } from '../../components/label-chips.js';
import { Link } from '../../router.js';
import { ProblemView } from '../../ui.js';

type Issue = Answer<'getIssue'>;

export function IssueLabels({
  slug,
  projectId,
  issue,
  labels,
  onSaved,
}: {
  slug: string;
  projectId: string;
  issue: Issue;
  labels: readonly Label[] | undefined;
  onSaved: () => void;
}) {
  // What the boxes show: the issue's labels, ahead of the API while a change is saved. Changes are sent one after
  // another (each carries the whole set), so quick clicks cannot arrive out of order.
  const [ids, setIds] = useState<readonly string[]>(issue.label_ids);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>(null);
  const queue = useRef<Promise<void>>(Promise.resolve());
  useEffect(() => setIds(issue.label_ids), [issue.label_ids.join()]);
  const change = (next: string[]) => {
    setIds(next);
    setStatus('Saving…');
    setError(null);
    queue.current = queue.current.then(async () => {
      try {
        await unwrap(
          api().PATCH('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', {
            params: { path: { slug, projectId, issueId: issue.id } },
            body: { label_ids: next },
          }),
        );
        setStatus('Labels saved.');
        onSaved();
      } catch (e) {
        setIds(issue.label_ids);
        setStatus('');
        setError(e);
      }
    });
  };
  if (!labels) return null;
  if (!labels.length)
    return (
      <p class="muted">
        This project has no labels yet. <Link to={`/w/${slug}/p/${projectId}/labels`}>Create labels</Link>
      </p>
    );
  return (
    <fieldset class="label-picker">
      <legend>Labels of this issue</legend>
      <div class="checks">
        {labels.map((l) => (
          <label class="check" key={l.id}>
            <input
              type="checkbox"
              checked={ids.includes(l.id)}
              onChange={(e) => change(e.currentTarget.checked ? [...ids, l.id] : ids.filter((id) => id !== l.id))}
            />
            <LabelChip label={l} />
          </label>
        ))}
      </div>
      <p class="muted" role="status">
        {status}
      </p>
      <ProblemView error={error} />
    </fieldset>
  );
}
