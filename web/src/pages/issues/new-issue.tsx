/**
 * A new issue: title, description, priority and state; on success its page. While the title is typed, the project's
 * similar issues (contract 23.4) show under it, to open before filing a duplicate; they never block creating it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Answer, api, PRIORITIES, unwrap } from '../../api.js';
import { ActionForm } from '../../components/action-form.js';
import { SelectField } from '../../components/options.js';
import { href, navigate } from '../../router.js';
import { Field, formValues, PageTitle, useAction, useLoad } from '../../ui.js';

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
  const states = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/states/', { params: { path: { slug, projectId } } })),
    [slug, projectId],
  );
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const similar = useSimilar(slug, projectId, name, description);
  const create = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const issue = await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/', {
        params: { path: { slug, projectId } },
        body: {
          name: v.name ?? '',
          description: v.description ?? '',
          priority: (v.priority || 'none') as (typeof PRIORITIES)[number],
          ...(v.state_id ? { state_id: v.state_id } : {}),
        },
      }),
    );
    navigate(`/w/${slug}/p/${projectId}/issues/${issue.id}`);
  });
  return (
    <section class="narrow">
      <PageTitle>New issue</PageTitle>
      <ActionForm action={create} submit="Create issue">
        <Field label="Title">{(id) => <input id={id} name="name" required onInput={(e) => setName(e.currentTarget.value)} />}</Field>
        <SimilarIssues slug={slug} found={similar} />
        <Field label="Description">{(id) => <textarea id={id} name="description" rows={4} onInput={(e) => setDescription(e.currentTarget.value)} />}</Field>
        <SelectField label="Priority" name="priority" items={PRIORITIES} selected="none" />
        <SelectField
          label="State"
          name="state_id"
          all="Default (Backlog)"
          items={(states.data ?? []).map((s) => [s.id, `${s.name}${s.pauses_sla ? ' (pauses SLA)' : ''}`] as const)}
        />
      </ActionForm>
    </section>
  );
}
