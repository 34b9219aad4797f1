/**
 * A new issue: title, description, state (by name, in the project's order), priority and assignees (the workspace's
 * members); on success its page. While the title is typed, the project's similar issues (contract 23.4) show under it,
 * to open before filing a duplicate; they never block creating it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Answer, api, PRIORITIES, unwrap } from '../../api.js';
import { ActionForm } from '../../components/action-form.js';
import { initials, useMembers, useProjectMeta } from '../../components/issue-bits.js';
import { SelectField } from '../../components/options.js';
import { href, navigate } from '../../router.js';
import { Field, PageTitle, useAction } from '../../ui.js';
import { PRIORITY_ITEMS } from './filter-bar.js';
import './new-issue.css';

type Similar = Answer<'getSimilar'>;
const SIMILAR_DEBOUNCE_MS = 250;
const SIMILAR_MIN = 3;
const SIMILAR_MAX = 255;

/** The issues like `name` (and `description`), asked a moment after typing stops; an answer to older text is dropped. */
function useSimilar(slug: string, projectId: string, name: string, description: string): Similar {
  const [found, setFound] = useState<Similar>([]);
  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    const n = name.trim();
    if (n.length < SIMILAR_MIN || n.length > SIMILAR_MAX) {
      setFound([]);
      return;
    }
    const timer = setTimeout(() => {
      const d = description.trim().slice(0, 2000);
      unwrap(
        api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/similar/', {
          params: { path: { slug, projectId }, query: { name: n, ...(d ? { description: d } : {}) } },
        }),
      ).then(
        (list) => mine === seq.current && setFound(list),
        () => mine === seq.current && setFound([]), // a hint only: a failure shows nothing rather than an error
      );
    }, SIMILAR_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [slug, projectId, name, description]);
  return found;
}

function SimilarIssues({ slug, found }: { slug: string; found: Similar }) {
  return (
    <>
      <p class="sr-only" role="status" aria-live="polite">
        {found.length ? `${found.length} similar ${found.length === 1 ? 'issue' : 'issues'} found` : ''}
      </p>
      {found.length ? (
        <section class="similar" aria-labelledby="similar-issues">
          <h2 id="similar-issues">Similar issues</h2>
          <ul>
            {found.map(({ issue }) => (
              <li key={issue.id}>
                <a href={href(`/w/${slug}/p/${issue.project_id}/issues/${issue.id}`)} target="_blank" rel="noopener">
                  <strong>{issue.key}</strong> {issue.name}
                  <span class="sr-only"> (opens in a new tab)</span>
                </a>{' '}
                <span class="muted">· {issue.state.name}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}

export function NewIssue({ slug, projectId }: { slug: string; projectId: string }) {
  const meta = useProjectMeta(slug, projectId);
  const members = useMembers(slug);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const similar = useSimilar(slug, projectId, name, description);
  const create = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const text = (k: string) => String(data.get(k) ?? '');
    const issue = await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/', {
        params: { path: { slug, projectId } },
        body: {
          name: text('name'),
          description: text('description'),
          priority: (text('priority') || 'none') as (typeof PRIORITIES)[number],
          assignee_ids: data.getAll('assignee_ids').map(String),
          ...(text('state_id') ? { state_id: text('state_id') } : {}),
        },
      }),
    );
    navigate(`/w/${slug}/p/${projectId}/issues/${issue.id}`);
  });
  const states = meta.data?.states ?? [];
  const byDefault = states.find((s) => s.is_default)?.id;
  return (
    <section class="narrow">
      <PageTitle>New issue</PageTitle>
      <ActionForm action={create} submit="Create issue">
        <Field label="Title">{(id) => <input id={id} name="name" required onInput={(e) => setName(e.currentTarget.value)} />}</Field>
        <SimilarIssues slug={slug} found={similar} />
        <Field label="Description">{(id) => <textarea id={id} name="description" rows={4} onInput={(e) => setDescription(e.currentTarget.value)} />}</Field>
        <SelectField
          key={byDefault}
          label="State"
          name="state_id"
          items={states.map((s) => [s.id, `${s.name}${s.pauses_sla ? ' (pauses SLA)' : ''}`] as const)}
          selected={byDefault ?? ''}
        />
        <SelectField label="Priority" name="priority" items={PRIORITY_ITEMS} selected="none" />
        <fieldset class="assignee-pick">
          <legend>Assignees</legend>
          {members.data ? (
            [...members.data.values()].map((m) => (
              <label key={m.user_id} class="check">
                <input type="checkbox" name="assignee_ids" value={m.user_id} />
                <span class="avatar" aria-hidden="true">
                  {initials(m)}
                </span>
                {m.display_name}
              </label>
            ))
          ) : (
            <p class="muted">Loading the members…</p>
          )}
        </fieldset>
      </ActionForm>
    </section>
  );
}
