/**
 * The board of a project (issue 41): a column per state in the project's order, each with its count and its first 50
 * cards (urgent first; "Show 50 more" for the rest; a 2,000-issue project costs one page per column), a card showing key, title, priority and assignees. A card moves to
 * another state by drag and drop, or, without dragging (keyboard, one pointer: WCAG 2.2 2.5.7), by its "Move" menu.
 * A move is the issue's PATCH (as on the issue page: SLA and history follow), shown at once and put back with the
 * API's reason when it fails; the result is announced. The list's assignee, priority, label, words and due-date
 * filters apply through the URL.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, unwrap } from '../../api.js';
import { Assignees, issueKey, type Member, PriorityIcon, type State, StateBadge, useMembers, useProjectMeta } from '../../components/issue-bits.js';
import { count } from '../../format.js';
import { href, Link, navigate } from '../../router.js';
import { PageTitle, ProblemView, Show } from '../../ui.js';
import { type Filters, MultiSelect, PRIORITY_ITEMS, QuickFilters, quickFilters, readFilters } from './filter-bar.js';
import { filterQuery } from './issue-list.js';
import type { IssueRow as Issue } from './issue-rows.js';
import './board.css';

/** Cards a column loads at a time (the API's pages are at most 100). */
const PAGE = 50;
/** The list's filters that apply to a board (a state filter would hide columns). */
const BOARD_FILTERS = ['q', 'assignee_id', 'priority', 'label_id', 'target_date_from', 'target_date_to'];
const RANK: Record<string, number> = { urgent: 0, high: 1, medium: 2, low: 3, none: 4 };

interface Column {
  issues: Issue[];
  total: number;
  /** How far the column has paged through the API's answer. */
  offset: number;
  error?: unknown;
}
type Columns = Record<string, Column>;
interface Failure {
  text: string;
  error: unknown;
}

/** The column's order (the API's `order_by=priority`): urgent first, then the newest. */
function insert(list: Issue[], issue: Issue): Issue[] {
  const before = (a: Issue) => RANK[a.priority]! < RANK[issue.priority]! || (a.priority === issue.priority && a.sequence_id > issue.sequence_id);
  const at = list.findIndex((a) => !before(a));
  return at < 0 ? [...list, issue] : [...list.slice(0, at), issue, ...list.slice(at)];
}

/** `issue` taken out of column `from` and put into column `to` (as `as`, its new record); counts follow. */
function moved(cols: Columns, issue: Issue, from: string, to: string, as: Issue = issue): Columns {
  const a = cols[from];
  const b = cols[to];
  if (!a || !b) return cols;
  return {
    ...cols,
    [from]: { ...a, issues: a.issues.filter((i) => i.id !== issue.id), total: a.total - 1 },
    [to]: { ...b, issues: insert(b.issues, as), total: b.total + 1 },
  };
}

/** The card of `issue` in its column replaced by the API's record. */
function replaced(cols: Columns, issue: Issue): Columns {
  const col = cols[issue.state_id];
  return col ? { ...cols, [issue.state_id]: { ...col, issues: col.issues.map((i) => (i.id === issue.id ? issue : i)) } } : cols;
}

function pick(filters: Filters): Filters {
  return Object.fromEntries(Object.entries(filters).filter(([k]) => BOARD_FILTERS.includes(k)));
}

/** "Move": a menu of the other states; choosing one moves the card. Escape closes it. */
function MoveMenu({ issue, label, states, onMove }: { issue: Issue; label: string; states: State[]; onMove: (to: State) => void }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  useEffect(() => {
    if (open) menu.current?.querySelector('button')?.focus();
  }, [open]);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  return (
    <div class="move">
      <button
        ref={button}
        type="button"
        class="secondary move-button"
        aria-expanded={open}
        aria-controls={`move-${issue.id}`}
        aria-label={`Move ${label} to…`}
        onClick={() => setOpen(!open)}
      >
        Move…
      </button>
      {open ? (
        <ul
          id={`move-${issue.id}`}
          ref={menu}
          class="move-menu"
          aria-label={`Move ${label} to`}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              close();
            }
          }}
        >
          {states
            .filter((s) => s.id !== issue.state_id)
            .map((s) => (
              <li key={s.id}>
                <button
                  type="button"
                  onClick={() => {
                    setOpen(false);
                    onMove(s);
                  }}
                >
                  <StateBadge state={s} />
                </button>
              </li>
            ))}
        </ul>
      ) : null}
    </div>
  );
}

function Card({
  issue,
  label,
  slug,
  states,
  members,
  onMove,
  onDrag,
}: {
  issue: Issue;
  label: string;
  slug: string;
  states: State[];
  members: ReadonlyMap<string, Member> | undefined;
  onMove: (issue: Issue, to: State) => void;
  onDrag: (issue: Issue | null) => void;
}) {
  const to = `/w/${slug}/p/${issue.project_id}/issues/${issue.id}`;
  return (
    <li
      class="kcard"
      data-card={issue.id}
      draggable
      onDragStart={(e) => {
        e.dataTransfer?.setData('text/plain', issue.id);
        if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
        onDrag(issue);
      }}
      onDragEnd={() => onDrag(null)}
    >
      <div class="kcard-head">
        <span class="issue-key">{label}</span>
        <PriorityIcon priority={issue.priority} />
      </div>
      <a
        class="kcard-title"
        href={href(to)}
        draggable={false}
        onClick={(e) => {
          if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
          e.preventDefault();
          navigate(to);
        }}
      >
        {issue.name}
      </a>
      <div class="kcard-foot">
        <Assignees ids={issue.assignee_ids} members={members} />
        <MoveMenu issue={issue} label={label} states={states} onMove={(s) => onMove(issue, s)} />
      </div>
    </li>
  );
}

export function BoardView({ slug, projectId, query }: { slug: string; projectId: string; query: URLSearchParams }) {
  const meta = useProjectMeta(slug, projectId);
  const members = useMembers(slug);
  const filters = pick(readFilters(query));
  const filterKey = JSON.stringify(filters);
  const [cols, setCols] = useState<Columns>({});
  const [said, setSaid] = useState('');
  const [failure, setFailure] = useState<Failure | null>(null);
  const [over, setOver] = useState<string | null>(null);
  const dragging = useRef<Issue | null>(null);
  const states = meta.data?.states;
  const identifier = meta.data?.project.identifier;
  const path = { slug, projectId };

  const fetchColumn = (stateId: string, offset: number) =>
    unwrap(
      api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/', {
        params: { path, query: { ...filterQuery(filters), state_id: stateId, order_by: 'priority', per_page: PAGE, offset } },
      }),
    );

  // Every column's first page, asked at once and drawn together (one render of the board, not one per column).
  useEffect(() => {
    if (!states) return;
    let live = true;
    setCols({});
    void Promise.all(
      states.map((s) =>
        fetchColumn(s.id, 0).then(
          (page): [string, Column] => [s.id, { issues: page.results, total: page.total, offset: page.results.length }],
          (error: unknown): [string, Column] => [s.id, { issues: [], total: 0, offset: 0, error }],
        ),
      ),
    ).then((loaded) => live && setCols(Object.fromEntries(loaded)));
    return () => {
      live = false;
    };
  }, [states, filterKey]);

  const more = async (stateId: string) => {
    const col = cols[stateId];
    if (!col) return;
    let page: Awaited<ReturnType<typeof fetchColumn>>;
    try {
      page = await fetchColumn(stateId, col.offset);
    } catch (error) {
      setFailure({ text: `More issues of ${meta.data?.stateById.get(stateId)?.name ?? 'this column'} could not be loaded.`, error });
      return;
    }
    setCols((c) => {
      const now = c[stateId]!;
      const known = new Set(now.issues.map((i) => i.id));
      return {
        ...c,
        [stateId]: { ...now, issues: [...now.issues, ...page.results.filter((i) => !known.has(i.id))], offset: now.offset + page.results.length },
      };
    });
  };

  const move = async (issue: Issue, to: State, focus: boolean) => {
    const from = meta.data?.stateById.get(issue.state_id);
    if (!from || from.id === to.id) return;
    const label = issueKey(identifier, issue.sequence_id);
    setFailure(null);
    setCols((c) => moved(c, issue, from.id, to.id, { ...issue, state_id: to.id, state_group: to.group }));
    setSaid(`Moving ${label} to ${to.name}…`);
    if (focus) requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-card="${issue.id}"] .move-button`)?.focus());
    try {
      const updated = await unwrap(
        api().PATCH('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', {
          params: { path: { ...path, issueId: issue.id } },
          body: { state_id: to.id },
        }),
      );
      setCols((c) => replaced(c, updated));
      setSaid(`${label} moved to ${to.name}.`);
    } catch (error) {
      setCols((c) => moved(c, { ...issue, state_id: to.id }, to.id, from.id, issue));
      const text = `${label} could not be moved to ${to.name}; it is back in ${from.name}.`;
      setFailure({ text, error });
      setSaid(text);
      if (focus) requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-card="${issue.id}"] .move-button`)?.focus());
    }
  };

  const setFilters = (next: Filters) => {
    const q = new URLSearchParams();
    for (const [k, vs] of Object.entries(pick(next))) for (const v of vs) if (v) q.append(k, v);
    navigate(`/w/${slug}/p/${projectId}/board${q.size ? `?${q}` : ''}`);
  };
  const people: [string, string][] = [
    ['me', 'Me'],
    ['none', 'No assignee'],
    ...[...(members.data?.values() ?? [])].map((m): [string, string] => [m.user_id, m.display_name]),
  ];
  const loaded = Boolean(states && states.every((s) => cols[s.id]));
  const listQuery = new URLSearchParams(Object.entries(filters).flatMap(([k, vs]) => vs.map((v) => [k, v])));

  return (
    <section class="board-page">
      <PageTitle
        actions={
          <>
            <Link class="button secondary" to={`/w/${slug}/p/${projectId}/issues${listQuery.size ? `?${listQuery}` : ''}`}>
              List
            </Link>
            <Link class="button" to={`/w/${slug}/p/${projectId}/issues/new`}>
              New issue
            </Link>
          </>
        }
      >
        Board
      </PageTitle>
      <QuickFilters quick={quickFilters([]).filter((q) => q.label !== 'Open')} filters={filters} onChange={setFilters} />
      <form class="filters board-filters" aria-label="Board filters" onSubmit={(e) => e.preventDefault()}>
        <MultiSelect label="Assignee" items={people} values={filters.assignee_id ?? []} onChange={(v) => setFilters({ ...filters, assignee_id: v })} />
        <MultiSelect label="Priority" items={PRIORITY_ITEMS} values={filters.priority ?? []} onChange={(v) => setFilters({ ...filters, priority: v })} />
        <div class="filter-actions">
          <button type="button" class="secondary" disabled={!Object.keys(filters).length} onClick={() => setFilters({})}>
            Clear filters
          </button>
        </div>
      </form>
      <p class="muted hint">Drag a card to another column, or use its “Move…” button and choose a state.</p>
      <p class="sr-only" role="status" aria-live="polite">
        {said}
      </p>
      {failure ? (
        <div class="move-failure">
          <p>{failure.text}</p>
          <ProblemView error={failure.error} />
        </div>
      ) : null}
      <Show state={meta}>
        {({ states }) => (
          <div class="kanban" role="region" aria-label="Board columns" aria-busy={!loaded} tabIndex={0}>
            {states.map((s) => {
              const col = cols[s.id];
              return (
                <div
                  key={s.id}
                  class={over === s.id ? 'kcol drop-target' : 'kcol'}
                  data-state={s.id}
                  onDragOver={(e) => {
                    if (!dragging.current) return;
                    e.preventDefault();
                    if (e.dataTransfer) e.dataTransfer.dropEffect = 'move';
                    if (over !== s.id) setOver(s.id);
                  }}
                  onDragLeave={(e) => {
                    if (!(e.currentTarget as HTMLElement).contains(e.relatedTarget as Node | null)) setOver(null);
                  }}
                  onDrop={(e) => {
                    e.preventDefault();
                    setOver(null);
                    const issue = dragging.current;
                    dragging.current = null;
                    if (issue) void move(issue, s, false);
                  }}
                >
                  <h2 class="kcol-head">
                    <StateBadge state={s} group={s.group} />
                    <span class="kcol-count">
                      {col ? count(col.total) : '…'}
                      <span class="sr-only"> {col?.total === 1 ? 'issue' : 'issues'}</span>
                    </span>
                  </h2>
                  {!col ? (
                    <p class="muted">Loading…</p>
                  ) : col.error ? (
                    <ProblemView error={col.error} />
                  ) : col.issues.length ? (
                    <ul class="kcol-cards" aria-label={`${s.name}: ${col.total === 1 ? '1 issue' : `${count(col.total)} issues`}`}>
                      {col.issues.map((i) => (
                        <Card
                          key={i.id}
                          issue={i}
                          label={issueKey(identifier, i.sequence_id)}
                          slug={slug}
                          states={states}
                          members={members.data}
                          onMove={(issue, to) => void move(issue, to, true)}
                          onDrag={(issue) => (dragging.current = issue)}
                        />
                      ))}
                    </ul>
                  ) : (
                    <p class="muted kcol-empty">No issues</p>
                  )}
                  {col && col.issues.length < col.total ? (
                    <button type="button" class="secondary more" onClick={() => void more(s.id)}>
                      Show {Math.min(PAGE, col.total - col.issues.length)} more
                      <span class="sr-only"> in {s.name}</span>
                    </button>
                  ) : null}
                </div>
              );
            })}
          </div>
        )}
      </Show>
    </section>
  );
}
