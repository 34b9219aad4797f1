/**
 * The issues of a project: quick filters and the filter bar (words and several values each, savable as a view), sort
 * and page size in the URL (with words, by relevance unless a sort is chosen), the shared issue rows (key, state by
 * name, priority, assignees, due date, labels) with custom values as columns and j/k/Enter/c; rows can be selected (a
 * checkbox each, shift-click for a range, one for the page) and changed together from the bulk bar.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, unwrap } from '../../api.js';
import { useMembers, useProjectMeta } from '../../components/issue-bits.js';
import { useLabels } from '../../components/label-chips.js';
import { SelectField } from '../../components/options.js';
import { date } from '../../format.js';
import { FILTER_KEYS, FilterBar, type Filters, QuickFilters, quickFilters, readFilters } from './filter-bar.js';
import { IssueRows, ShortcutHint, useKey } from './issue-rows.js';
import { Link, navigate } from '../../router.js';
import { Empty, PageTitle, Pager, Show, useLoad } from '../../ui.js';
import { BulkBar } from './bulk-bar.js';

type Value = unknown;
/** Filters the API takes once (a date), not as a list. */
const SINGLE = ['target_date_from', 'target_date_to'];

/** The list's filters as the API's query: lists, except the single-valued ones. */
export function filterQuery(filters: Filters): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(filters).map(([k, v]) => [k, SINGLE.includes(k) ? v[0]! : v]));
}
const PER_PAGES = [20, 50, 100];
/** `order_by` keys of the issue list (section 14); `custom.<propertyId>` adds one per property. Default `-sequence_id`. */
const CORE_SORTS: [string, string][] = [
  ['sequence_id', 'Number'],
  ['created_at', 'Created'],
  ['updated_at', 'Updated'],
  ['priority', 'Priority (urgent first)'],
  ['name', 'Name'],
  ['target_date', 'Due date'],
];
const DEFAULT_ORDER = '-sequence_id';
/** With words (`q`) the list is ordered by relevance unless a sort is chosen (contract 23.2). */
const RELEVANCE = 'relevance';
const defaultOrder = (q: string | null) => (q ? RELEVANCE : DEFAULT_ORDER);

function showValue(v: Value): string {
  if (v === null || v === undefined) return '—';
  if (Array.isArray(v)) return v.join(', ');
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return date(v);
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
    const others = filterQuery(Object.fromEntries(Object.entries(filters).filter(([k]) => k !== 'q')));
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
  const meta = useProjectMeta(slug, projectId);
  const members = useMembers(slug);
  const states = meta.data?.states ?? [];
  useKey(
    'c',
    useCallback(() => navigate(`/w/${slug}/p/${projectId}/issues/new`), [slug, projectId]),
  );

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
  const project = meta.data?.project;

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
      <QuickFilters quick={quickFilters(states)} filters={filters} onChange={setFilters} />
      <FilterBar
        slug={slug}
        projectId={projectId}
        filters={filters}
        orderBy={orderBy === defaultOrder(words) ? null : orderBy}
        states={states}
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
      <ShortcutHint create />
      <Show state={page}>
        {({ issues, values, properties }) =>
          issues.results.length ? (
            <>
              <IssueRows
                label="Issues"
                rows={issues.results}
                names={{
                  slug,
                  project: () => project,
                  stateById: meta.data?.stateById ?? new Map(),
                  members: members.data,
                  labels: labels.data ?? [],
                }}
                selected={(i) => selected.has(i.id)}
                sort={{ key: ariaSort('sequence_id'), name: ariaSort('name'), priority: ariaSort('priority'), due: ariaSort('target_date') }}
                lead={{
                  header: (
                    <label class="pick">
                      <input
                        type="checkbox"
                        aria-label="Select all issues on this page"
                        checked={onPage > 0 && onPage === rows.length}
                        indeterminate={onPage > 0 && onPage < rows.length}
                        onClick={(e) => pickAll(e.currentTarget.checked)}
                      />
                      Key
                    </label>
                  ),
                  cell: (i, n, key) => (
                    <label class="pick">
                      <input
                        type="checkbox"
                        aria-label={`Select ${i.name}`}
                        checked={selected.has(i.id)}
                        onClick={(e) => pick(n, e.currentTarget.checked, e.shiftKey)}
                      />
                      <span class="issue-key">{key}</span>
                    </label>
                  ),
                }}
                extra={properties.map((p) => ({
                  key: p.id,
                  header: p.name,
                  sort: ariaSort(`custom.${p.id}`),
                  cell: (_, n) => showValue(values[n]?.find((v) => v.property_id === p.id)?.value),
                }))}
              />
              {selected.size ? (
                <BulkBar
                  slug={slug}
                  projectId={projectId}
                  ids={[...selected]}
                  states={states}
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
