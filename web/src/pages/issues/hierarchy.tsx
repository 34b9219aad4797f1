/** Sub-issues (contract 24.2): the issue's parent, chosen among the project's issues, and its children with their progress. */
import { useState } from 'preact/hooks';
import { type Answer, api, unwrap } from '../../api.js';
import { ActionForm } from '../../components/action-form.js';
import { SelectField } from '../../components/options.js';
import { Link } from '../../router.js';
import { issueKey, StateBadge, useProjectMeta } from '../../components/issue-bits.js';
import { Badge, Empty, errorsAt, Field, formValues, ProblemView, Show, useAction, useLoad } from '../../ui.js';

type Issue = Answer<'getIssue'>;
type Listed = Answer<'listIssues'>['results'][number];
/** How many issues a picker offers: the newest of the project (the list's largest page). */
export const PICK_MAX = 100;

/** The newest issues of a project, for a picker. */
export function useProjectIssues(slug: string, projectId: string) {
  return useLoad(
    () =>
      unwrap(
        api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/', {
          params: { path: { slug, projectId }, query: { per_page: PICK_MAX, order_by: '-sequence_id' } },
        }),
      ),
    [slug, projectId],
  );
}

/** The parent: a link to it, and a select of the project's issues (saved on change; the API refuses a cycle). */
export function ParentPicker({ slug, issue, identifier, onSaved }: { slug: string; issue: Issue; identifier: string | undefined; onSaved: () => void }) {
  const projectId = issue.project_id;
  const candidates = useProjectIssues(slug, projectId);
  const parent = useLoad(
    async () =>
      issue.parent_id
        ? unwrap(
            api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', { params: { path: { slug, projectId, issueId: issue.parent_id } } }),
          )
        : null,
    [slug, issue.parent_id],
  );
  const save = useAction(async (parentId: string) => {
    await unwrap(
      api().PATCH('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', {
        params: { path: { slug, projectId, issueId: issue.id } },
        body: { parent_id: parentId || null },
      }),
    );
    onSaved();
  });
  const items = (candidates.data?.results ?? [])
    .filter((i) => i.id !== issue.id)
    .map((i) => [i.id, `${issueKey(identifier, i.sequence_id)} ${i.name}`] as const);
  const p = parent.data;
  if (p && !items.some(([id]) => id === p.id)) items.unshift([p.id, `${issueKey(identifier, p.sequence_id)} ${p.name}`]);
  return (
    <>
      <p>
        {p ? (
          <>
            Sub-issue of <Link to={`/w/${slug}/p/${projectId}/issues/${p.id}`}>{`${issueKey(identifier, p.sequence_id)} ${p.name}`}</Link>
          </>
        ) : (
          <span class="muted">No parent: a top-level issue.</span>
        )}
      </p>
      <form class="inline" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          label="Parent issue"
          all="None (top level)"
          items={items}
          value={issue.parent_id ?? ''}
          onChange={(v) => void save.run(v)}
          errors={errorsAt(save.error, '/parent_id')}
        />
      </form>
      <ProblemView error={save.error} />
    </>
  );
}

/** A bar of done against all, said in words as well ("2 of 3 done"). */
export function Progress({ done, total, label }: { done: number; total: number; label: string }) {
  const pct = total ? Math.round((done / total) * 100) : 0;
  const text = `${done} of ${total} done`;
  return (
    <div class="progress-row">
      <div class="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={total} aria-valuenow={done} aria-valuetext={text}>
        <span style={{ width: `${pct}%` }} />
      </div>
      <span>{text}</span>
    </div>
  );
}

/** The direct children (the list's `parent_id` filter), their progress, and "add sub-issue" (a new child). */
export function SubIssues({ slug, issue, identifier, onChanged }: { slug: string; issue: Issue; identifier: string | undefined; onChanged: () => void }) {
  const projectId = issue.project_id;
  const { total, completed } = issue.sub_issues;
  const [added, setAdded] = useState(0);
  const meta = useProjectMeta(slug, projectId);
  const children = useLoad(
    () =>
      unwrap(
        api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/', {
          params: { path: { slug, projectId }, query: { parent_id: issue.id, per_page: PICK_MAX, order_by: 'sequence_id' } },
        }),
      ),
    [slug, issue.id, total, completed, added],
  );
  const add = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/', {
        params: { path: { slug, projectId } },
        body: { name: v.name ?? '', parent_id: issue.id },
      }),
    );
    form.reset();
    setAdded((n) => n + 1);
    onChanged();
  });
  return (
    <>
      {total ? <Progress done={completed} total={total} label="Sub-issues done" /> : null}
      <Show state={children}>
        {(page) =>
          page.results.length ? (
            <ul class="issue-links">
              {page.results.map((c: Listed) => (
                <li key={c.id}>
                  <Link to={`/w/${slug}/p/${projectId}/issues/${c.id}`}>{issueKey(identifier, c.sequence_id)}</Link> {c.name}{' '}
                  <StateBadge state={meta.data?.stateById.get(c.state_id)} group={c.state_group} />
                  {c.blocked ? (
                    <>
                      {' '}
                      <Badge tone="bad">Blocked</Badge>
                    </>
                  ) : null}
                </li>
              ))}
              {page.total > page.results.length ? <li class="muted">and {page.total - page.results.length} more</li> : null}
            </ul>
          ) : (
            <Empty>No sub-issues.</Empty>
          )
        }
      </Show>
      <ActionForm class="inline" action={add} submit="Add sub-issue" problem="outside">
        <Field label="Sub-issue title">{(id) => <input id={id} name="name" required maxLength={255} />}</Field>
      </ActionForm>
    </>
  );
}
