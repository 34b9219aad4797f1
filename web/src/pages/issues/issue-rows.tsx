/**
 * The rows every issue list shows (the project's list, "My issues", a saved view): key (`SD-98`), title, the project in
 * workspace-wide lists, state by name in its colour, priority, assignees' initials, due date (overdue said in words)
 * and labels. `j`/`k` move the current row (its title link takes the focus, the row is `aria-current`), `Enter`
 * opens it (and `useKey('c', …)` creates an issue where the list has a project); no shortcut fires while typing.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Answer } from '../../api.js';
import { Assignees, issueKey, type Member, PriorityIcon, type State, StateBadge } from '../../components/issue-bits.js';
import { type Label, LabelChips } from '../../components/label-chips.js';
import { date, today } from '../../format.js';
import { Link } from '../../router.js';
import { Badge } from '../../ui.js';
import './issue-rows.css';

export type IssueRow = Answer<'listIssues'>['results'][number];

/** What the rows need to name things: the projects' identifiers (and names), states, members and labels. */
export interface RowNames {
  slug: string;
  /** The project's identifier ("SD") and name, by project id. */
  project: (projectId: string) => { identifier: string; name: string } | undefined;
  stateById: ReadonlyMap<string, State>;
  members: ReadonlyMap<string, Member> | undefined;
  labels: readonly Label[];
}

/** A column of the caller's own (custom values), after the common ones. */
export interface ExtraColumn {
  key: string;
  header: ComponentChildren;
  sort?: 'ascending' | 'descending' | undefined;
  cell: (issue: IssueRow, index: number) => ComponentChildren;
}

const CLOSED = new Set(['completed', 'cancelled']);

/** The target date; past it and still open: "Overdue" in words beside the date, in the warning style. */
export function DueDate({ issue }: { issue: Pick<IssueRow, 'target_date' | 'state_group'> }) {
  if (!issue.target_date) return <span class="muted">—</span>;
  const overdue = issue.target_date < today() && !CLOSED.has(issue.state_group);
  return overdue ? (
    <span class="due overdue">
      <strong>Overdue</strong> {date(issue.target_date)}
    </span>
  ) : (
    <span class="due">{date(issue.target_date)}</span>
  );
}

/** True while the user types: a shortcut key then belongs to the field. */
export function typing(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  if (!t) return false;
  if (t instanceof HTMLInputElement) return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(t.type);
  return t.isContentEditable || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT';
}

/** A single-key shortcut of a page (`c`: new issue), never while typing or with a modifier. */
export function useKey(key: string, action: () => void) {
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      if (e.key !== key || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e)) return;
      e.preventDefault();
      action();
    };
    document.addEventListener('keydown', on);
    return () => document.removeEventListener('keydown', on);
  }, [key, action]);
}

/**
 * `j` / `k`: the next / previous row becomes current and its title link takes the focus. The current row is also kept
 * in a ref that the key listener reads: keys pressed faster than the page re-renders (and re-registers a listener) each
 * move from the row the one before reached, never from a stale one.
 */
function useRowKeys(count: number, body: { current: HTMLTableSectionElement | null }) {
  const [current, setCurrentState] = useState<number | null>(null);
  const latest = useRef<number | null>(null);
  const setCurrent = (n: number | null) => {
    latest.current = n;
    setCurrentState(n);
  };
  useEffect(() => setCurrent(null), [count]);
  useEffect(() => {
    const focusRow = (n: number) => {
      setCurrent(n);
      body.current?.querySelectorAll<HTMLAnchorElement>('a.issue-title')[n]?.focus();
    };
    const on = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e)) return;
      const at = latest.current;
      if (e.key === 'j' && count) {
        e.preventDefault();
        focusRow(at === null ? 0 : Math.min(count - 1, at + 1));
      } else if (e.key === 'k' && count) {
        e.preventDefault();
        focusRow(at === null ? 0 : Math.max(0, at - 1));
      }
    };
    document.addEventListener('keydown', on);
    return () => document.removeEventListener('keydown', on);
  }, [count]);
  return { current, setCurrent };
}

/** The visible hint of the list's shortcuts. */
export function ShortcutHint({ create }: { create: boolean }) {
  return (
    <p class="muted hint shortcuts">
      Keyboard: <kbd>j</kbd> / <kbd>k</kbd> next / previous issue, <kbd>Enter</kbd> opens it
      {create ? (
        <>
          , <kbd>c</kbd> new issue
        </>
      ) : null}
      .
    </p>
  );
}

export function IssueRows({
  rows,
  names,
  label,
  withProject = false,
  lead,
  extra = [],
  sort = {},
  selected,
}: {
  rows: IssueRow[];
  names: RowNames;
  /** The name of the table's scrolling region. */
  label: string;
  /** Workspace-wide lists name each issue's project. */
  withProject?: boolean;
  /** The first column's header and cell around the key (the project list: a selection checkbox). */
  lead?: { header: ComponentChildren; cell: (issue: IssueRow, index: number, key: string) => ComponentChildren };
  extra?: ExtraColumn[];
  /** `aria-sort` per sortable column: key, name, priority, due. */
  sort?: Partial<Record<'key' | 'name' | 'priority' | 'due', 'ascending' | 'descending' | undefined>>;
  selected?: (issue: IssueRow) => boolean;
}) {
  const body = useRef<HTMLTableSectionElement>(null);
  const { current, setCurrent } = useRowKeys(rows.length, body);
  const labelled = names.labels.length > 0;
  const path = (i: IssueRow) => `/w/${names.slug}/p/${i.project_id}/issues/${i.id}`;
  return (
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>
      <table class="issue-rows">
        <thead>
          <tr>
            <th scope="col" aria-sort={sort.key}>
              {lead ? lead.header : 'Key'}
            </th>
            <th scope="col" aria-sort={sort.name}>
              Title
            </th>
            {withProject ? <th scope="col">Project</th> : null}
            <th scope="col">State</th>
            <th scope="col" aria-sort={sort.priority}>
              Priority
            </th>
            <th scope="col">Assignees</th>
            <th scope="col" aria-sort={sort.due}>
              Due
            </th>
            {labelled ? <th scope="col">Labels</th> : null}
            {extra.map((c) => (
              <th scope="col" key={c.key} aria-sort={c.sort}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody
          ref={body}
          onFocusIn={(e) => {
            const row = (e.target as HTMLElement).closest('tr');
            if (row?.parentElement === body.current) setCurrent([...body.current!.rows].indexOf(row as HTMLTableRowElement));
          }}
        >
          {rows.map((i, n) => {
            const project = names.project(i.project_id);
            const key = issueKey(project?.identifier, i.sequence_id);
            const classes = [selected?.(i) ? 'selected' : '', current === n ? 'current' : ''].filter(Boolean).join(' ');
            return (
              <tr key={i.id} class={classes || undefined} aria-current={current === n ? 'true' : undefined}>
                <td>{lead ? lead.cell(i, n, key) : <Link to={path(i)}>{key}</Link>}</td>
                <td>
                  <Link class="issue-title" to={path(i)}>
                    {i.name}
                  </Link>
                </td>
                {withProject ? <td>{project?.name ?? '—'}</td> : null}
                <td>
                  <StateBadge state={names.stateById.get(i.state_id)} group={i.state_group} />
                  {i.blocked ? (
                    <>
                      {' '}
                      <Badge tone="bad">Blocked</Badge>
                    </>
                  ) : null}
                </td>
                <td>
                  <PriorityIcon priority={i.priority} withText />
                </td>
                <td>
                  <Assignees ids={i.assignee_ids} members={names.members} />
                </td>
                <td>
                  <DueDate issue={i} />
                </td>
                {labelled ? (
                  <td>
                    <LabelChips ids={i.label_ids} labels={names.labels} />
                  </td>
                ) : null}
                {extra.map((c) => (
                  <td key={c.key}>{c.cell(i, n)}</td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
