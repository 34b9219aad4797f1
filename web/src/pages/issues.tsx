import { useState } from 'preact/hooks';
import { api, PRIORITIES, STATE_GROUPS, unwrap, when } from '../api.js';
import { Link, navigate } from '../router.js';
import { Badge, Empty, Field, formValues, PageTitle, ProblemView, Show, useAction, useLoad } from '../ui.js';
import { IssueHistory } from './history.js';

type Value = unknown;
const PER_PAGES = [20, 50, 100];
/** `order_by` keys of the issue list (section 14); `custom.<propertyId>` adds one per property. Default `-sequence_id`. */
const CORE_SORTS: [string, string][] = [
  ['sequence_id', 'Number'],
  ['created_at', 'Created'],
  ['updated_at', 'Updated'],
  ['priority', 'Priority (urgent first)'],
  ['name', 'Name'],
];
const DEFAULT_ORDER = '-sequence_id';

function showValue(v: Value): string {
  if (v === null || v === undefined) return '—';
  if (Array.isArray(v)) return v.join(', ');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

export function IssueList({ slug, projectId, query }: { slug: string; projectId: string; query: URLSearchParams }) {
  const stateGroup = query.get('state_group') ?? '';
  const priority = query.get('priority') ?? '';
  const offset = Number(query.get('offset') ?? '0') || 0;
  const perPage = PER_PAGES.includes(Number(query.get('per_page'))) ? Number(query.get('per_page')) : 20;
  const PER_PAGE = perPage;
  const orderBy = query.get('order_by') || DEFAULT_ORDER;
  const sortKey = orderBy.replace(/^-/, '');
  const descending = orderBy.startsWith('-');
  const setQuery = (next: Record<string, string | number>) => {
    const q = new URLSearchParams({
      state_group: stateGroup,
      priority,
      order_by: orderBy,
      offset: String(offset),
      per_page: String(perPage),
      ...Object.fromEntries(Object.entries(next).map(([k, v]) => [k, String(v)])),
    });
    for (const [k, v] of [...q])
      if (!v || (k === 'offset' && v === '0') || (k === 'per_page' && v === '20') || (k === 'order_by' && v === DEFAULT_ORDER)) q.delete(k);
    navigate(`/w/${slug}/p/${projectId}/issues${q.size ? `?${q}` : ''}`);
  };
  const page = useLoad(async () => {
    const client = api();
    const path = { slug, projectId };
    const [issues, defs] = await Promise.all([
      unwrap(
        client.GET('/api/workspaces/{slug}/projects/{projectId}/issues/', {
          params: {
            path,
            query: { offset, per_page: PER_PAGE, order_by: orderBy, ...(stateGroup ? { state_group: stateGroup } : {}), ...(priority ? { priority } : {}) },
          },
        }),
      ),
      unwrap(client.GET('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', { params: { path } })),
    ]);
    // Custom values per issue on this page, only when the project has properties (one call each, in parallel).
    if (!defs.length) return { issues, values: [] as { property_id: string; value: unknown }[][], properties: [] as { id: string; name: string }[] };
    const values = await Promise.all(
      issues.results.map((i) =>
        unwrap(client.GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/custom-values/', { params: { path: { ...path, issueId: i.id } } })),
      ),
    );
    const properties = defs.map((d) => ({ id: d.id, name: d.name }));
    return { issues, values, properties };
  }, [slug, projectId, stateGroup, priority, offset, perPage, orderBy]);
  const sorts: [string, string][] = [...CORE_SORTS, ...(page.data?.properties ?? []).map((p): [string, string] => [`custom.${p.id}`, p.name])];
  if (!sorts.some(([k]) => k === sortKey)) sorts.push([sortKey, sortKey]);
  const ariaSort = (key: string) => (key === sortKey ? (descending ? 'descending' : 'ascending') : undefined);

  return (
    <section>
      <PageTitle
        actions={
          <Link class="button" to={`/w/${slug}/p/${projectId}/issues/new`}>
            New issue
          </Link>
        }
      >
        Issues
      </PageTitle>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="State group">
          {(id) => (
            <select id={id} value={stateGroup} onChange={(e) => setQuery({ state_group: e.currentTarget.value, offset: 0 })}>
              <option value="">All</option>
              {STATE_GROUPS.map((g) => (
                <option key={g} value={g}>
                  {g}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Priority">
          {(id) => (
            <select id={id} value={priority} onChange={(e) => setQuery({ priority: e.currentTarget.value, offset: 0 })}>
              <option value="">All</option>
              {PRIORITIES.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Sort by">
          {(id) => (
            <select id={id} value={sortKey} onChange={(e) => setQuery({ order_by: `${descending ? '-' : ''}${e.currentTarget.value}`, offset: 0 })}>
              {sorts.map(([k, label]) => (
                <option key={k} value={k}>
                  {k.startsWith('custom.') ? `${label} (custom)` : label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Order">
          {(id) => (
            <select
              id={id}
              value={descending ? 'desc' : 'asc'}
              onChange={(e) => setQuery({ order_by: `${e.currentTarget.value === 'desc' ? '-' : ''}${sortKey}`, offset: 0 })}
            >
              <option value="asc">Ascending</option>
              <option value="desc">Descending</option>
            </select>
          )}
        </Field>
        <Field label="Per page">
          {(id) => (
            <select id={id} value={String(perPage)} onChange={(e) => setQuery({ per_page: e.currentTarget.value, offset: 0 })}>
              {PER_PAGES.map((n) => (
                <option key={n} value={String(n)}>
                  {n}
                </option>
              ))}
            </select>
          )}
        </Field>
      </form>
      <Show state={page}>
        {({ issues, values, properties }) =>
          issues.results.length ? (
            <>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col" aria-sort={ariaSort('sequence_id')}>
                        #
                      </th>
                      <th scope="col" aria-sort={ariaSort('name')}>
                        Name
                      </th>
                      <th scope="col">State</th>
                      <th scope="col" aria-sort={ariaSort('priority')}>
                        Priority
                      </th>
                      {properties.map((p) => (
                        <th scope="col" key={p.id} aria-sort={ariaSort(`custom.${p.id}`)}>
                          {p.name}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {issues.results.map((i, n) => (
                      <tr key={i.id}>
                        <td>{i.sequence_id}</td>
                        <td>
                          <Link to={`/w/${slug}/p/${projectId}/issues/${i.id}`}>{i.name}</Link>
                        </td>
                        <td>{i.state_group}</td>
                        <td>
                          <span class={`prio ${i.priority}`}>{i.priority}</span>
                        </td>
                        {properties.map((p) => (
                          <td key={p.id}>{showValue(values[n]?.find((v) => v.property_id === p.id)?.value)}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <nav class="pager" aria-label="Pages">
                <button type="button" disabled={offset === 0} onClick={() => setQuery({ offset: Math.max(0, offset - PER_PAGE) })}>
                  Previous
                </button>
                <span>
                  {offset + 1}–{offset + issues.results.length} of {issues.total}
                </span>
                <button type="button" disabled={offset + PER_PAGE >= issues.total} onClick={() => setQuery({ offset: offset + PER_PAGE })}>
                  Next
                </button>
              </nav>
            </>
          ) : (
            <Empty>No issues match. {stateGroup || priority ? 'Clear the filters or create one.' : 'Create the first one.'}</Empty>
          )
        }
      </Show>
    </section>
  );
}

export function NewIssue({ slug, projectId }: { slug: string; projectId: string }) {
  const states = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/states/', { params: { path: { slug, projectId } } })),
    [slug, projectId],
  );
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
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(e.currentTarget);
        }}
      >
        <Field label="Title">{(id) => <input id={id} name="name" required />}</Field>
        <Field label="Description">{(id) => <textarea id={id} name="description" rows={4} />}</Field>
        <Field label="Priority">
          {(id) => (
            <select id={id} name="priority">
              {PRIORITIES.map((p) => (
                <option key={p} value={p} selected={p === 'none'}>
                  {p}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="State">
          {(id) => (
            <select id={id} name="state_id">
              <option value="">Default (Backlog)</option>
              {states.data?.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                  {s.pauses_sla ? ' (pauses SLA)' : ''}
                </option>
              ))}
            </select>
          )}
        </Field>
        <ProblemView error={create.error} />
        <button type="submit" disabled={create.busy}>
          Create issue
        </button>
      </form>
    </section>
  );
}

type Tracker = Awaited<ReturnType<typeof loadTracker>>;
async function loadTracker(slug: string, issueId: string) {
  const { data, error, response } = await api().GET('/api/workspaces/{slug}/issues/{issueId}/sla/', { params: { path: { slug, issueId } } });
  if (response.status === 404 && (error as { code?: string } | undefined)?.code === 'sla_not_applicable') return null;
  return unwrap(Promise.resolve({ data, error, response }));
}

/** Whole seconds as "2 h 05 min" (working time); negative: overdue. */
export function duration(seconds: number): string {
  const abs = Math.abs(seconds);
  const h = Math.floor(abs / 3600);
  const m = Math.floor((abs % 3600) / 60);
  const text = h ? `${h} h ${String(m).padStart(2, '0')} min` : m ? `${m} min` : `${abs % 60} s`;
  return seconds < 0 ? `${text} overdue` : `${text} left`;
}

/** The SLA tracker: due times, remaining working time, and breach, paused and at-risk badges. */
function SlaTracker({ tracker }: { tracker: Tracker }) {
  if (!tracker) return <Empty>No SLA applies to this issue (no policy, or no rule for its priority).</Empty>;
  const remaining = (seconds: number | null) => (seconds === null ? null : <span class="muted"> · {duration(seconds)} of working time</span>);
  return (
    <dl class="sla">
      <div>
        <dt>Response due</dt>
        <dd>
          {when(tracker.response_due_at)}{' '}
          {tracker.response_breached ? (
            <Badge tone="bad">response breached</Badge>
          ) : tracker.responded_at ? (
            <Badge tone="ok">responded {when(tracker.responded_at)}</Badge>
          ) : (
            <Badge tone="info">open</Badge>
          )}
          {remaining(tracker.response_remaining_seconds)}
        </dd>
      </div>
      <div>
        <dt>Resolution due</dt>
        <dd>
          {when(tracker.resolution_due_at)}{' '}
          {tracker.resolution_breached ? (
            <Badge tone="bad">resolution breached</Badge>
          ) : tracker.resolved_at ? (
            <Badge tone="ok">resolved {when(tracker.resolved_at)}</Badge>
          ) : (
            <Badge tone="info">open</Badge>
          )}
          {remaining(tracker.resolution_remaining_seconds)}
        </dd>
      </div>
      {tracker.paused ? <Badge tone="warn">paused: the clocks wait while the issue is in a pausing state</Badge> : null}{' '}
      {tracker.at_risk ? <Badge tone="warn">at risk</Badge> : null}{' '}
      <small class="muted">{tracker.calendar_id ? 'Counted in working hours of the policy calendar' : 'Counted around the clock (no calendar)'}</small>
    </dl>
  );
}

type CustomValue = { property_id: string; name: string; type: string; value: Value };
type Property = { id: string; type: string; options?: string[] | null; is_required?: boolean };

function ValueEditor({
  slug,
  issueId,
  value,
  property,
  onSaved,
}: {
  slug: string;
  issueId: string;
  value: CustomValue;
  property: Property | undefined;
  onSaved: () => void;
}) {
  const [draft, setDraft] = useState<Value>(value.value);
  const save = useAction(async (v: Value) => {
    await unwrap(
      api().PUT('/api/workspaces/{slug}/issues/{issueId}/custom-values/{propertyId}/', {
        params: { path: { slug, issueId, propertyId: value.property_id } },
        body: { value: v as never },
      }),
    );
    onSaved();
  });
  const options = property?.options ?? [];
  const label = `${value.name} (${value.type})`;
  let control;
  switch (value.type) {
    case 'checkbox':
      control = (id: string) => <input id={id} type="checkbox" checked={draft === true} onChange={(e) => setDraft(e.currentTarget.checked)} />;
      break;
    case 'number':
      control = (id: string) => (
        <input
          id={id}
          type="number"
          step="any"
          value={draft === null || draft === undefined ? '' : String(draft)}
          onInput={(e) => setDraft(e.currentTarget.value === '' ? null : Number(e.currentTarget.value))}
        />
      );
      break;
    case 'date':
      control = (id: string) => (
        <input id={id} type="date" value={typeof draft === 'string' ? draft.slice(0, 10) : ''} onInput={(e) => setDraft(e.currentTarget.value || null)} />
      );
      break;
    case 'url':
      control = (id: string) => (
        <input id={id} type="url" value={typeof draft === 'string' ? draft : ''} onInput={(e) => setDraft(e.currentTarget.value || null)} />
      );
      break;
    case 'select':
      control = (id: string) => (
        <select id={id} value={typeof draft === 'string' ? draft : ''} onChange={(e) => setDraft(e.currentTarget.value || null)}>
          <option value="">—</option>
          {options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
      break;
    case 'multi_select':
      control = (id: string) => (
        <select id={id} multiple onChange={(e) => setDraft([...e.currentTarget.selectedOptions].map((o) => o.value))}>
          {options.map((o) => (
            <option key={o} value={o} selected={Array.isArray(draft) && draft.includes(o)}>
              {o}
            </option>
          ))}
        </select>
      );
      break;
    default:
      control = (id: string) => (
        <input id={id} value={typeof draft === 'string' ? draft : ''} onInput={(e) => setDraft(e.currentTarget.value === '' ? null : e.currentTarget.value)} />
      );
  }
  return (
    <form
      class="value"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run(draft);
      }}
    >
      <Field label={label}>{control}</Field>
      <button type="submit" disabled={save.busy}>
        Save {value.name}
      </button>
      <ProblemView error={save.error} />
    </form>
  );
}

export function IssuePage({ slug, projectId, issueId }: { slug: string; projectId: string; issueId: string }) {
  const path = { slug, projectId, issueId };
  const issue = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', { params: { path } })), [issueId]);
  const tracker = useLoad(() => loadTracker(slug, issueId), [issueId]);
  const values = useLoad(async () => {
    const [vals, props] = await Promise.all([
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/custom-values/', { params: { path } })),
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', { params: { path: { slug, projectId } } })),
    ]);
    return { vals, props: props as Property[] };
  }, [issueId]);
  const comments = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/comments/', { params: { path } })), [issueId]);
  const [historyVersion, setHistoryVersion] = useState(0);
  const addComment = useAction(async (form: HTMLFormElement) => {
    await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/comments/', { params: { path }, body: { body: formValues(form).body ?? '' } }),
    );
    form.reset();
    await comments.reload();
    await tracker.reload();
    setHistoryVersion((v) => v + 1);
  });
  return (
    <section>
      <Show state={issue}>
        {(i) => (
          <>
            <PageTitle>{`#${i.sequence_id} ${i.name}`}</PageTitle>
            <p class="meta">
              <Badge tone="info">{i.state_group}</Badge> <span class={`prio ${i.priority}`}>{i.priority}</span> · created {when(i.created_at)}
            </p>
            {i.description ? <p class="description">{i.description}</p> : null}
          </>
        )}
      </Show>
      <div class="grid2">
        <div>
          <h2>SLA</h2>
          <Show state={tracker}>{(t) => <SlaTracker tracker={t} />}</Show>
          <h2>Custom values</h2>
          <Show state={values}>
            {({ vals, props }) =>
              vals.length ? (
                vals.map((v) => (
                  <ValueEditor
                    key={v.property_id}
                    slug={slug}
                    issueId={issueId}
                    value={v}
                    property={props.find((p) => p.id === v.property_id)}
                    onSaved={() => void values.reload()}
                  />
                ))
              ) : (
                <Empty>
                  This project has no custom properties. <Link to={`/w/${slug}/p/${projectId}/properties`}>Define some</Link>.
                </Empty>
              )
            }
          </Show>
        </div>
        <div>
          <h2>Comments</h2>
          <Show state={comments}>
            {(list) =>
              list.length ? (
                <ol class="comments">
                  {list.map((c) => (
                    <li key={c.id}>
                      <p>{c.body}</p>
                      <small class="muted">{when(c.created_at)}</small>
                    </li>
                  ))}
                </ol>
              ) : (
                <Empty>No comments yet.</Empty>
              )
            }
          </Show>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void addComment.run(e.currentTarget);
            }}
          >
            <Field label="Comment">{(id) => <textarea id={id} name="body" rows={3} required />}</Field>
            <ProblemView error={addComment.error} />
            <button type="submit" disabled={addComment.busy}>
              Add comment
            </button>
          </form>
        </div>
      </div>
      <h2>History</h2>
      <IssueHistory slug={slug} projectId={projectId} issueId={issueId} version={historyVersion} />
    </section>
  );
}

const TYPES = ['text', 'number', 'date', 'select', 'multi_select', 'checkbox', 'url'] as const;

export function Properties({ slug, projectId }: { slug: string; projectId: string }) {
  const list = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', { params: { path: { slug, projectId } } })),
    [projectId],
  );
  const create = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const options = (v.options ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', {
        params: { path: { slug, projectId } },
        body: {
          name: v.name ?? '',
          type: (v.type ?? 'text') as (typeof TYPES)[number],
          ...(options.length ? { options } : {}),
          is_required: v.is_required === 'on',
        },
      }),
    );
    form.reset();
    await list.reload();
  });
  return (
    <section>
      <PageTitle>Custom properties</PageTitle>
      <Show state={list}>
        {(items) =>
          items.length ? (
            <ul class="cards">
              {items.map((p) => (
                <li key={p.id}>
                  <strong>{p.name}</strong>{' '}
                  <span class="muted">
                    {p.type}
                    {p.options?.length ? `: ${p.options.join(', ')}` : ''}
                    {p.is_required ? ' · required' : ''}
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <Empty>No custom properties yet (they need a plan with custom properties: Pro or Business).</Empty>
          )
        }
      </Show>
      <h2>New property</h2>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(e.currentTarget);
        }}
      >
        <Field label="Property name">{(id) => <input id={id} name="name" required />}</Field>
        <Field label="Type">
          {(id) => (
            <select id={id} name="type">
              {TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Options" hint="select types: comma-separated">
          {(id) => <input id={id} name="options" />}
        </Field>
        <Field label="Required">{(id) => <input id={id} name="is_required" type="checkbox" />}</Field>
        <button type="submit" disabled={create.busy}>
          Add property
        </button>
      </form>
      <ProblemView error={create.error} />
    </section>
  );
}
