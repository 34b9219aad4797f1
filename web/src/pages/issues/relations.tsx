/** Relations of an issue (contract 24.3): "blocked by WEB-3" and the like, listed from this side; add one, remove one. */
import { useState } from 'preact/hooks';
import { type Answer, api, unwrap } from '../../api.js';
import { ActionForm } from '../../components/action-form.js';
import { SelectField } from '../../components/options.js';
import { Link } from '../../router.js';
import { issueKey, StateBadge, useProjectMeta } from '../../components/issue-bits.js';
import { Empty, errorsAt, ProblemView, Show, useAction, useLoad } from '../../ui.js';
import { PICK_MAX, useProjectIssues } from './hierarchy.js';

type Relation = Answer<'listRelations'>[number];
type RelationType = Relation['type'];

/**
 * How each type reads before the other issue's key. `duplicates` is the inverse of `duplicate_of` (contract 24.3): seen
 * from the original, the other issue is its duplicate, so it reads "duplicated by".
 */
export const RELATION_TEXT: Record<RelationType, string> = {
  blocked_by: 'blocked by',
  blocks: 'blocks',
  duplicate_of: 'duplicate of',
  duplicates: 'duplicated by',
  relates_to: 'relates to',
};
const TYPES = Object.entries(RELATION_TEXT) as [RelationType, string][];

export function Relations({ slug, projectId, issueId, onChanged }: { slug: string; projectId: string; issueId: string; onChanged: () => void }) {
  const list = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/relations/', { params: { path: { slug, projectId, issueId } } })),
    [slug, projectId, issueId],
  );
  const projects = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/projects/', { params: { path: { slug } } })), [slug]);
  const [otherProject, setOtherProject] = useState(projectId);
  const issues = useProjectIssues(slug, otherProject);
  const meta = useProjectMeta(slug, projectId);
  const identifier = projects.data?.find((p) => p.id === otherProject)?.identifier;
  const add = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/relations/', {
        params: { path: { slug, projectId, issueId } },
        body: { type: String(data.get('type')) as RelationType, issue_id: String(data.get('issue_id')) },
      }),
    );
    await list.reload();
    onChanged();
  });
  const remove = useAction(async (r: Relation) => {
    await unwrap(
      api().DELETE('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/relations/{relationId}/', {
        params: { path: { slug, projectId, issueId, relationId: r.id } },
      }),
    );
    await list.reload();
    onChanged();
  });
  const choices = (issues.data?.results ?? []).filter((i) => i.id !== issueId).map((i) => [i.id, `${issueKey(identifier, i.sequence_id)} ${i.name}`] as const);
  return (
    <>
      <Show state={list}>
        {(relations) =>
          relations.length ? (
            <ul class="issue-links">
              {relations.map((r) => {
                const text = `${RELATION_TEXT[r.type]} ${r.issue.key}`;
                return (
                  <li key={r.id}>
                    <span class="relation">{RELATION_TEXT[r.type]}</span>{' '}
                    <Link to={`/w/${slug}/p/${r.issue.project_id}/issues/${r.issue.id}`}>{r.issue.key}</Link> {r.issue.name}{' '}
                    <StateBadge
                      state={meta.data?.stateById.get(r.issue.state.id) ?? { name: r.issue.state.name, color: '#8a94a6' }}
                      group={r.issue.state.group}
                    />{' '}
                    <button type="button" class="link danger" aria-label={`Remove relation: ${text}`} disabled={remove.busy} onClick={() => void remove.run(r)}>
                      Remove
                    </button>
                  </li>
                );
              })}
            </ul>
          ) : (
            <Empty>No relations.</Empty>
          )
        }
      </Show>
      <ProblemView error={remove.error} />
      <ActionForm class="inline" action={add} submit="Add relation" problem="outside">
        <SelectField label="Relation" name="type" items={TYPES} selected="blocked_by" errors={errorsAt(add.error, '/type')} />
        <SelectField
          label="Project of the issue"
          items={(projects.data ?? []).map((p) => [p.id, `${p.identifier} ${p.name}`] as const)}
          value={otherProject}
          onChange={setOtherProject}
        />
        <SelectField
          label="Related issue"
          name="issue_id"
          items={choices}
          hint={issues.data && issues.data.total > PICK_MAX ? `the ${PICK_MAX} newest issues` : undefined}
          errors={errorsAt(add.error, '/issue_id')}
        />
      </ActionForm>
    </>
  );
}
