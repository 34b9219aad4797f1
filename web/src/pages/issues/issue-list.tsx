/**
 * The issues of a project: filters (the filter bar: words and several values each, savable as a view), sort and page
 * size in the URL (with words, by relevance unless a sort is chosen), custom values as columns, label chips; rows can
 * be selected (a checkbox each, shift-click for a range, one for the page) and changed together from the bulk bar.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Answer, api, unwrap } from '../../api.js';
import { byId, type Column, DataTable } from '../../components/data-table.js';
import { LabelChips, useLabels } from '../../components/label-chips.js';
import { SelectField } from '../../components/options.js';
import { FILTER_KEYS, FilterBar, type Filters, readFilters } from './filter-bar.js';
import { Link, navigate } from '../../router.js';
import { Badge, Empty, PageTitle, Pager, Show, useLoad } from '../../ui.js';
import { BulkBar } from './bulk-bar.js';

type Value = unknown;
type Issue = Answer<'listIssues'>['results'][number];
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
/** With words (`q`) the list is ordered by relevance unless a sort is chosen (contract 23.2). */
const RELEVANCE = 'relevance';
const defaultOrder = (q: string | null) => (q ? RELEVANCE : DEFAULT_ORDER);

function showValue(v: Value): string {
  if (v === null || v === undefined) return '—';
  if (Array.isArray(v)) return v.join(', ');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

export function IssueList({ slug, projectId, query }: { slug: string; projectId: string; query: URLSearchParams }) {
  const filters = readFilters(query);
  const filterKey = JSON.stringify(filters);
  const offset = Number(query.get('offset') ?? '0') || 0;
  const perPage = PER_PAGES.includes(Number(query.get('per_page'))) ? Number(query.get('per_page')) : 20;
  const PER_PAGE = perPage;
  const words = filters.q?.[0] ?? null;
  const orderBy = query.get('order_by') || defaultOrder(words);
  const sortKey = orderBy.replace(/^-/, '');
  const descending = orderBy.startsWith('-');
  /** The URL with `next` in place of those keys (a list: the key repeated); defaults and empty values left out. */
  const setQuery = (next: Record<string, string | number | string[]>, replace = false) => {
    const q = new URLSearchParams(query);
    for (const [k, v] of Object.entries(next)) {
      q.delete(k);
      for (const one of Array.isArray(v) ? v : [String(v)]) q.append(k, one);
    }
    const order = defaultOrder(q.get('q'));
    for (const [k, v] of [...q])
      if (
        !v ||
        (k === 'offset' && v === '0') ||
        (k === 'per_page' && v === '20') ||
        (k === 'order_by' && (v === order || (v === RELEVANCE && !q.get('q')))) // relevance means nothing without words
      )
        q.delete(k, v);
    navigate(`/w/${slug}/p/${projectId}/issues${q.size ? `?${q}` : ''}`, replace);
  };
  const setFilters = (next: Filters, replace?: boolean) => setQuery({ ...Object.fromEntries(FILTER_KEYS.map((k) => [k, next[k] ?? []])), offset: 0 }, replace);
  const page = useLoad(async () => {
    const others = Object.fromEntries(Object.entries(filters).filter(([k]) => k !== 'q'));
    const client = api();
    const path = { slug, projectId };
    const [issues, defs] = await Promise.all([
      unwrap(
        client.GET('/api/workspaces/{slug}/projects/{projectId}/issues/', {
          params: {
            path,
            query: {
              offset,
              per_page: PER_PAGE,
              order_by: orderBy,
              ...others,
              ...(words ? { q: words } : {}),
            },
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
  }, [slug, projectId, filterKey, offset, perPage, orderBy]);
  const labels = useLabels(slug, projectId);
  const states = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/states/', { params: { path: { slug, projectId } } })),
    [slug, projectId],
  );
  const stateName = new Map((states.data ?? []).map((s) => [s.id, s.name]));

  // The selection belongs to one page of one query: another page, filter or sort starts empty.
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [notice, setNotice] = useState('');
  const anchor = useRef<number | null>(null);
  const pageKey = [filterKey, offset, perPage, orderBy].join('|');
  useEffect(() => {
    setSelected(new Set());
    anchor.current = null;
  }, [pageKey]);
  const rows = page.data?.issues.results ?? [];
  const onPage = rows.filter((i) => selected.has(i.id)).length;
  /** A click on row `n`'s box; with shift, every row from the last one clicked takes the clicked box's new state. */
  const pick = (n: number, on: boolean, shift: boolean) => {
    const next = new Set(selected);
    const from = shift && anchor.current !== null ? Math.min(anchor.current, n) : n;
    const to = shift && anchor.current !== null ? Math.max(anchor.current, n) : n;
    for (let k = from; k <= to; k++) {
      const id = rows[k]?.id;
      if (id) {
        if (on) next.add(id);
        else next.delete(id);
      }
    }
    if (shift) window.getSelection()?.removeAllRanges(); // shift-click also extends the text selection
    anchor.current = n;
    setNotice('');
    setSelected(next);
  };
  const pickAll = (on: boolean) => {
    setNotice('');
    setSelected(on ? new Set(rows.map((i) => i.id)) : new Set());
    anchor.current = null;
  };
  const bulkDone = (text: string) => {
    setSelected(new Set());
    anchor.current = null;
    setNotice(text);
    void page.reload();
  };
  const sorts: [string, string][] = [
    ...(words ? [[RELEVANCE, 'Relevance'] as [string, string]] : []),
    ...CORE_SORTS,
    ...(page.data?.properties ?? []).map((p): [string, string] => [`custom.${p.id}`, p.name]),
  ];
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
      <FilterBar
        slug={slug}
        projectId={projectId}
        filters={filters}
        orderBy={orderBy === defaultOrder(words) ? null : orderBy}
        states={states.data ?? []}
        labels={labels.data ?? []}
        onChange={setFilters}
      >
        <SelectField
          label="Sort by"
          items={sorts.map(([k, label]) => [k, k.startsWith('custom.') ? `${label} (custom)` : label] as const)}
          value={sortKey}
          onChange={(v) => setQuery({ order_by: v === RELEVANCE ? v : `${descending ? '-' : ''}${v}`, offset: 0 })}
        />
        {sortKey === RELEVANCE ? null : (
          <SelectField
            label="Order"
            items={[
              ['asc', 'Ascending'],
              ['desc', 'Descending'],
            ]}
            value={descending ? 'desc' : 'asc'}
            onChange={(v) => setQuery({ order_by: `${v === 'desc' ? '-' : ''}${sortKey}`, offset: 0 })}
          />
        )}
        <SelectField label="Per page" items={PER_PAGES} value={String(perPage)} onChange={(v) => setQuery({ per_page: v, offset: 0 })} />
      </FilterBar>
      <p class="notice" role="status">
        {notice}
      </p>
      <Show state={page}>
        {({ issues, values, properties }) =>
          issues.results.length ? (
            <>
              <DataTable
                label="Issues"
                rows={issues.results}
                rowKey={byId}
                selected={(i) => selected.has(i.id)}
                columns={[
                  {
                    header: (
                      <label class="pick">
                        <input
                          type="checkbox"
                          aria-label="Select all issues on this page"
                          checked={onPage > 0 && onPage === rows.length}
                          indeterminate={onPage > 0 && onPage < rows.length}
                          onClick={(e) => pickAll(e.currentTarget.checked)}
                        />
                        #
                      </label>
                    ),
                    sort: ariaSort('sequence_id'),
                    cell: (i, n) => (
                      <label class="pick">
                        <input
                          type="checkbox"
                          aria-label={`Select ${i.name}`}
                          checked={selected.has(i.id)}
                          onClick={(e) => pick(n, e.currentTarget.checked, e.shiftKey)}
                        />
                        {i.sequence_id}
                      </label>
                    ),
                  },
                  { header: 'Name', sort: ariaSort('name'), cell: (i) => <Link to={`/w/${slug}/p/${projectId}/issues/${i.id}`}>{i.name}</Link> },
                  {
                    header: 'State',
                    cell: (i) => (
                      <>
                        {stateName.get(i.state_id) ?? i.state_group}
                        {i.blocked ? (
                          <>
                            {' '}
                            <Badge tone="bad">Blocked</Badge>
                          </>
                        ) : null}
                      </>
                    ),
                  },
                  { header: 'Priority', sort: ariaSort('priority'), cell: (i) => <span class={`prio ${i.priority}`}>{i.priority}</span> },
                  ...(labels.data?.length ? [{ header: 'Labels', cell: (i: Issue) => <LabelChips ids={i.label_ids} labels={labels.data} /> }] : []),
                  ...properties.map((p): Column<Issue> => ({
                    key: p.id,
                    header: p.name,
                    sort: ariaSort(`custom.${p.id}`),
                    cell: (_, n) => showValue(values[n]?.find((v) => v.property_id === p.id)?.value),
                  })),
                ]}
              />
              {selected.size ? (
                <BulkBar
                  slug={slug}
                  projectId={projectId}
                  ids={[...selected]}
                  states={states.data ?? []}
                  labels={labels.data ?? []}
                  onDone={bulkDone}
                  onClear={() => pickAll(false)}
                />
              ) : null}
              <Pager always offset={offset} perPage={PER_PAGE} shown={issues.results.length} total={issues.total} onPage={(o) => setQuery({ offset: o })} />
            </>
          ) : (
            <Empty>No issues match. {Object.keys(filters).length ? 'Clear the filters or create one.' : 'Create the first one.'}</Empty>
          )
        }
      </Show>
    </section>
  );
}
