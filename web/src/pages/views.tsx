/**
 * Workspace-wide issue lists (contract 23.2, 23.3): "My issues", the saved views in the sidebar and a view's page (it
 * runs the view, says its filters in words, and lets whoever may rename, share or delete it). Their rows are the issue
 * list's (issue-rows.tsx), each naming its project.
 */
import { useEffect } from 'preact/hooks';
import { type Answer, api, unwrap } from '../api.js';
import { ActionForm } from '../components/action-form.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { Facts } from '../components/facts.js';
import type { State } from '../components/issue-bits.js';
import type { Label } from '../components/label-chips.js';
import { codeName, dateTime } from '../format.js';
import { Link, navigate } from '../router.js';
import { Empty, errorsAt, type Loaded, Field, formValues, PageTitle, Pager, ProblemView, Show, useAction, useLoad } from '../ui.js';
import { VIEWS_CHANGED } from './issues/filter-bar.js';
import { IssueRows, ShortcutHint } from './issues/issue-rows.js';

type Issue = Answer<'listWorkspaceIssues'>['results'][number];
type View = Answer<'getView'>;
type Page = { results: Issue[]; total: number };
const PER_PAGE = 20;

/** The names of everything a workspace's lists and views mention (members, projects, states, labels) and who I am. */
function useWorkspace(slug: string) {
  return useLoad(async () => {
    const c = api();
    const path = { slug };
    const [ws, me, members, projects] = await Promise.all([
      unwrap(c.GET('/api/workspaces/{slug}/', { params: { path } })),
      unwrap(c.GET('/api/users/me/')),
      unwrap(c.GET('/api/workspaces/{slug}/members/', { params: { path } })),
      unwrap(c.GET('/api/workspaces/{slug}/projects/', { params: { path } })),
    ]);
    const parts = await Promise.all(
      projects.map((p) => {
        const pp = { params: { path: { slug, projectId: p.id } } };
        return Promise.all([
          unwrap(c.GET('/api/workspaces/{slug}/projects/{projectId}/states/', pp)),
          unwrap(c.GET('/api/workspaces/{slug}/projects/{projectId}/labels/', pp)),
        ]);
      }),
    );
    const names = new Map<string, string>([
      ['me', 'me'],
      ['none', 'none'],
    ]);
    for (const m of members) names.set(m.user_id, m.display_name);
    for (const p of projects) names.set(p.id, p.name);
    for (const [states, labels] of parts) for (const x of [...states, ...labels]) names.set(x.id, x.name);
    return {
      role: ws.role,
      me,
      names,
      projects: new Map(projects.map((p) => [p.id, p])),
      members: new Map(members.map((m) => [m.user_id, m])),
      stateById: new Map(parts.flatMap(([states]) => states.map((st): [string, State] => [st.id, st]))),
      labels: parts.flatMap(([, labels]): Label[] => labels),
    };
  }, [slug]);
}
type Workspace = NonNullable<ReturnType<typeof useWorkspace>['data']>;

const WORDS: Record<string, string> = {
  q: 'Text',
  project_id: 'Project',
  assignee_id: 'Assignee',
  state_id: 'State',
  state_group: 'State group',
  priority: 'Priority',
  label_id: 'Label',
  created_by: 'Created by',
  parent_id: 'Parent',
  created_from: 'Created from',
  created_to: 'Created before',
  updated_from: 'Updated from',
  updated_to: 'Updated before',
};

/** A view's filters in words: `Assignee: me`, `State: Todo or In Progress`; ids no longer known say so. */
export function filterWords(filters: Record<string, string[]>, names: Map<string, string>): [string, string][] {
  return Object.entries(filters)
    .filter(([, v]) => v.length)
    .map(([k, v]) => [
      WORDS[k] ?? k,
      v
        .map((x) =>
          k === 'q'
            ? `“${x}”`
            : k === 'priority' || k === 'state_group'
              ? codeName(x)
              : k.endsWith('_from') || k.endsWith('_to')
                ? dateTime(x)
                : (names.get(x) ?? 'a deleted item'),
        )
        .join(' or '),
    ]);
}

/** Issues of any project, each naming its project; the key (`SD-12`) and the title link to the issue. */
function IssueTable({ slug, rows, ws }: { slug: string; rows: Issue[]; ws: Workspace }) {
  return (
    <>
      <ShortcutHint create={false} />
      <IssueRows
        label="Issues of the view"
        rows={rows}
        withProject
        names={{ slug, project: (id) => ws.projects.get(id), stateById: ws.stateById, members: ws.members, labels: ws.labels }}
      />
    </>
  );
}

/** One page of a list with its pager; the offset lives in the URL (`?offset=`). */
function Results({
  slug,
  ws,
  path,
  query,
  load,
  empty,
}: {
  slug: string;
  ws: Loaded<Workspace>;
  path: string;
  query: URLSearchParams;
  load: (offset: number) => Promise<Page>;
  empty: string;
}) {
  const offset = Number(query.get('offset') ?? '0') || 0;
  const page = useLoad(() => load(offset), [slug, path, offset]);
  return (
    <Show state={ws}>
      {(w) => (
        <Show state={page}>
          {(p) =>
            p.results.length ? (
              <>
                <IssueTable slug={slug} rows={p.results} ws={w} />
                <Pager offset={offset} perPage={PER_PAGE} shown={p.results.length} total={p.total} onPage={(o) => navigate(o ? `${path}?offset=${o}` : path)} />
              </>
            ) : (
              <Empty>{empty}</Empty>
            )
          }
        </Show>
      )}
    </Show>
  );
}

export function MyIssues({ slug, query }: { slug: string; query: URLSearchParams }) {
  const ws = useWorkspace(slug);
  return (
    <section>
      <PageTitle>My issues</PageTitle>
      <p class="muted">Assigned to you, not started or in progress, in every project of the workspace.</p>
      <Results
        slug={slug}
        ws={ws}
        path={`/w/${slug}/my-issues`}
        query={query}
        empty="Nothing assigned to you is open."
        load={(offset) =>
          unwrap(
            api().GET('/api/workspaces/{slug}/issues/', {
              params: { path: { slug }, query: { assignee_id: 'me', state_group: ['unstarted', 'started'], offset, per_page: PER_PAGE } },
            }),
          )
        }
      />
    </section>
  );
}

/** The sidebar's "Views": yours and the shared ones, listed anew when one is saved, renamed or deleted. */
export function ViewsNav({ slug, path }: { slug: string; path: string }) {
  const views = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/views/', { params: { path: { slug } } })), [slug]);
  useEffect(() => {
    const on = () => void views.reload();
    window.addEventListener(VIEWS_CHANGED, on);
    return () => window.removeEventListener(VIEWS_CHANGED, on);
  }, [views.reload]);
  if (!views.data?.length) return null;
  return (
    <nav aria-label="Views" class="views-nav">
      <span class="muted">Views:</span>
      <ul>
        {views.data.map((v) => (
          <li key={v.id}>
            <Link to={`/w/${slug}/views/${v.id}`} current={path === `/w/${slug}/views/${v.id}`}>
              {v.name}
            </Link>
            {v.shared ? <span class="sr-only"> (shared)</span> : null}
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function ViewPage({ slug, viewId, query }: { slug: string; viewId: string; query: URLSearchParams }) {
  const path = { slug, viewId };
  const view = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/views/{viewId}/', { params: { path } })), [slug, viewId]);
  const ws = useWorkspace(slug);
  const changed = async () => {
    await view.reload();
    window.dispatchEvent(new Event(VIEWS_CHANGED));
  };
  const rename = useAction(async (form: HTMLFormElement) => {
    await unwrap(api().PATCH('/api/workspaces/{slug}/views/{viewId}/', { params: { path }, body: { name: formValues(form).name ?? '' } }));
    await changed();
  });
  const share = useAction(async (shared: boolean) => {
    await unwrap(api().PATCH('/api/workspaces/{slug}/views/{viewId}/', { params: { path }, body: { shared } }));
    await changed();
  });
  const remove = useAction(async () => {
    await unwrap(api().DELETE('/api/workspaces/{slug}/views/{viewId}/', { params: { path } }));
    window.dispatchEvent(new Event(VIEWS_CHANGED));
    navigate(`/w/${slug}/my-issues`);
  });
  const v: View | undefined = view.data;
  const w = ws.data;
  const mayEdit = Boolean(v && w && (v.owner_id === w.me.id || (v.shared && w.role === 'admin')));
  const words = v && w ? filterWords({ ...(v.project_id ? { project_id: [v.project_id] } : {}), ...v.filters }, w.names) : [];
  return (
    <section>
      <PageTitle>{v ? v.name : 'View'}</PageTitle>
      <Show state={view}>
        {(v) => (
          <>
            <Facts
              items={[
                ['Filters', words.length ? words.map(([k, t]) => `${k}: ${t}`).join('; ') : 'none: every issue'],
                ['Visible to', v.shared ? 'everyone in the workspace' : 'only you'],
                ['Owner', w ? (v.owner_id === w.me.id ? 'you' : (w.names.get(v.owner_id) ?? 'a former member')) : '…'],
                ...(v.order_by ? [['Sorted by', v.order_by] as [string, string]] : []),
              ]}
            />
            {mayEdit ? (
              <div class="view-edit">
                <ActionForm class="inline" action={rename} submit="Rename" problem="outside">
                  <Field label="View name" errors={errorsAt(rename.error, '/name')}>
                    {(id, by) => <input id={id} name="name" required maxLength={100} defaultValue={v.name} key={v.name} aria-describedby={by} />}
                  </Field>
                </ActionForm>
                <div class="row">
                  <button type="button" class="secondary" disabled={share.busy} onClick={() => void share.run(!v.shared)}>
                    {v.shared ? 'Make private' : 'Share with the workspace'}
                  </button>
                  <ConfirmButton
                    question={`Delete the view "${v.name}"? Its issues stay as they are.`}
                    disabled={remove.busy}
                    onConfirm={() => void remove.run()}
                  >
                    Delete view
                  </ConfirmButton>
                </div>
                <ProblemView error={share.error ?? remove.error} />
              </div>
            ) : null}
            <h2>Issues</h2>
            <Results
              slug={slug}
              ws={ws}
              path={`/w/${slug}/views/${viewId}`}
              query={query}
              empty="No issues match this view."
              load={(offset) => unwrap(api().GET('/api/workspaces/{slug}/views/{viewId}/issues/', { params: { path, query: { offset, per_page: PER_PAGE } } }))}
            />
          </>
        )}
      </Show>
    </section>
  );
}
