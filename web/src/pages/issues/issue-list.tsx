/** The issues of a project: filters, sort and page size in the URL, custom values as columns. */
import { api, PRIORITIES, STATE_GROUPS, unwrap } from '../../api.js';
import { byId, type Column, DataTable } from '../../components/data-table.js';
import { SelectField } from '../../components/options.js';
import { Link, navigate } from '../../router.js';
import { Empty, PageTitle, Pager, Show, useLoad } from '../../ui.js';

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
        <SelectField label="State group" all="All" items={STATE_GROUPS} value={stateGroup} onChange={(v) => setQuery({ state_group: v, offset: 0 })} />
        <SelectField label="Priority" all="All" items={PRIORITIES} value={priority} onChange={(v) => setQuery({ priority: v, offset: 0 })} />
        <SelectField
          label="Sort by"
          items={sorts.map(([k, label]) => [k, k.startsWith('custom.') ? `${label} (custom)` : label] as const)}
          value={sortKey}
          onChange={(v) => setQuery({ order_by: `${descending ? '-' : ''}${v}`, offset: 0 })}
        />
        <SelectField
          label="Order"
          items={[
            ['asc', 'Ascending'],
            ['desc', 'Descending'],
          ]}
          value={descending ? 'desc' : 'asc'}
          onChange={(v) => setQuery({ order_by: `${v === 'desc' ? '-' : ''}${sortKey}`, offset: 0 })}
        />
        <SelectField label="Per page" items={PER_PAGES} value={String(perPage)} onChange={(v) => setQuery({ per_page: v, offset: 0 })} />
      </form>
      <Show state={page}>
        {({ issues, values, properties }) =>
          issues.results.length ? (
            <>
              <DataTable
                rows={issues.results}
                rowKey={byId}
                columns={[
                  { header: '#', sort: ariaSort('sequence_id'), cell: (i) => i.sequence_id },
                  { header: 'Name', sort: ariaSort('name'), cell: (i) => <Link to={`/w/${slug}/p/${projectId}/issues/${i.id}`}>{i.name}</Link> },
                  { header: 'State', cell: (i) => i.state_group },
                  { header: 'Priority', sort: ariaSort('priority'), cell: (i) => <span class={`prio ${i.priority}`}>{i.priority}</span> },
                  ...properties.map((p): Column<(typeof issues.results)[number]> => ({
                    key: p.id,
                    header: p.name,
                    sort: ariaSort(`custom.${p.id}`),
                    cell: (_, n) => showValue(values[n]?.find((v) => v.property_id === p.id)?.value),
                  })),
                ]}
              />
              <Pager always offset={offset} perPage={PER_PAGE} shown={issues.results.length} total={issues.total} onPage={(o) => setQuery({ offset: o })} />
            </>
          ) : (
            <Empty>No issues match. {stateGroup || priority ? 'Clear the filters or create one.' : 'Create the first one.'}</Empty>
          )
        }
      </Show>
    </section>
  );
}
