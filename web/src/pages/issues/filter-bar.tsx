/**
 * The issue list's filter bar (contract 23.2, 23.5): words (`q`, the search's syntax), assignee, state (by name),
 * priority and label, several values each, kept in the URL (`?q=vpn&state_id=a&state_id=b`, a shareable link); "Clear"
 * and "Save as view" (23.3) beside them; and the quick filters ("Assigned to me", "Open", "Urgent and high", "Due this
 * week") that set the same keys, shared with the board.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, PRIORITIES, unwrap } from '../../api.js';
import { ActionForm } from '../../components/action-form.js';
import { useMembers } from '../../components/issue-bits.js';
import { codeName, today } from '../../format.js';
import { Link } from '../../router.js';
import { errorsAt, Field, formValues, useAction } from '../../ui.js';

export type Filters = Record<string, string[]>;
/** The list's filters a URL may carry; the bar shows the first five, the rest are kept (and saved) as they are. */
export const FILTER_KEYS = [
  'q',
  'assignee_id',
  'state_id',
  'priority',
  'label_id',
  'state_group',
  'created_by',
  'parent_id',
  'created_from',
  'created_to',
  'updated_from',
  'updated_to',
  'target_date_from',
  'target_date_to',
];
/** Filters a saved view does not keep (the due-date range of "Due this week"): left out when one is saved. */
const NOT_IN_VIEWS = ['target_date_from', 'target_date_to'];
/** The priorities by name, urgent first. */
export const PRIORITY_ITEMS = PRIORITIES.map((p) => [p, codeName(p)] as const);
/** How long the words field waits after the last key before the list (and the URL) follows. */
const TEXT_DEBOUNCE_MS = 300;
/** Saved views and the sidebar listen to this to list views anew. */
export const VIEWS_CHANGED = 'console:views';

export function readFilters(query: URLSearchParams): Filters {
  const out: Filters = {};
  for (const k of FILTER_KEYS) {
    const v = query.getAll(k).filter(Boolean);
    if (v.length) out[k] = v;
  }
  return out;
}

type Item = readonly [string, string];

/** `YYYY-MM-DD` plus `days` (calendar arithmetic, no zone). */
function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Monday and Sunday of the current week in the user's zone. */
function thisWeek(): [string, string] {
  const day = today();
  const monday = addDays(day, -((new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7));
  return [monday, addDays(monday, 6)];
}

interface Quick {
  label: string;
  filters: Filters;
}

/** The quick filters: each sets some of the list's keys (the states of "Open" by id, so the bar shows their names). */
export function quickFilters(states: readonly { id: string; group: string }[], only?: readonly string[]): Quick[] {
  const [monday, sunday] = thisWeek();
  const all: Quick[] = [
    { label: 'Assigned to me', filters: { assignee_id: ['me'] } },
    { label: 'Open', filters: { state_id: states.filter((s) => s.group !== 'completed' && s.group !== 'cancelled').map((s) => s.id) } },
    { label: 'Urgent and high', filters: { priority: ['urgent', 'high'] } },
    { label: 'Due this week', filters: { target_date_from: [monday], target_date_to: [sunday] } },
  ];
  return all.filter((q) => !only || only.includes(q.label));
}

const same = (a: readonly string[] = [], b: readonly string[] = []) => a.length === b.length && a.every((v) => b.includes(v));

/** Toggle buttons above a list or the board: pressed while the URL holds exactly the quick filter's values. */
export function QuickFilters({ quick, filters, onChange }: { quick: Quick[]; filters: Filters; onChange: (next: Filters) => void }) {
  return (
    <div class="quick-filters" role="group" aria-label="Quick filters">
      {quick.map((q) => {
        const on = Object.entries(q.filters).every(([k, v]) => v.length > 0 && same(filters[k], v));
        return (
          <button
            key={q.label}
            type="button"
            aria-pressed={on}
            onClick={() => onChange({ ...filters, ...Object.fromEntries(Object.entries(q.filters).map(([k, v]) => [k, on ? [] : v])) })}
          >
            {q.label}
          </button>
        );
      })}
    </div>
  );
}

/**
 * A labelled multiple select whose first option, "All", stands for no filter. Ctrl/⌘-click or Shift+arrows pick
 * several; picking "All" again clears the others.
 */
export function MultiSelect({ label, items, values, onChange }: { label: string; items: readonly Item[]; values: string[]; onChange: (v: string[]) => void }) {
  const all = [...items, ...values.filter((v) => !items.some(([id]) => id === v)).map((v): Item => [v, 'unknown (deleted)'])];
  return (
    <Field label={label}>
      {(id, by) => (
        <select
          id={id}
          multiple
          size={Math.min(all.length + 1, 5)}
          aria-describedby={by}
          onChange={(e) => {
            const picked = [...e.currentTarget.selectedOptions].map((o) => o.value);
            onChange(picked.includes('') && values.length ? [] : picked.filter(Boolean));
          }}
        >
          <option value="" selected={!values.length}>
            All
          </option>
          {all.map(([v, text]) => (
            <option key={v} value={v} selected={values.includes(v)}>
              {text}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/**
 * The words filter: the list follows a moment after one stops typing, or at once on Enter. The URL keeps the words;
 * refining them replaces the history entry rather than adding one per key.
 */
function TextFilter({ value, onChange }: { value: string; onChange: (q: string, replace: boolean) => void }) {
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  // The URL changed from elsewhere (Clear filters, back, a link): show its words (keeping a space just typed).
  useEffect(() => setText((t) => (t.trim() === value.trim() ? t : value)), [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const commit = (next: string) => {
    clearTimeout(timer.current);
    if (next.trim() === value.trim()) return;
    onChange(next.trim(), value.trim() !== '' && next.trim() !== '');
  };
  return (
    <Field label="Text" hint='In titles, descriptions, comments; "a phrase", -word'>
      {(id, by) => (
        <input
          id={id}
          type="search"
          name="q"
          maxLength={200}
          value={text}
          aria-describedby={by}
          onInput={(e) => {
            const next = e.currentTarget.value;
            setText(next);
            clearTimeout(timer.current);
            timer.current = setTimeout(() => commit(next), TEXT_DEBOUNCE_MS);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              commit(e.currentTarget.value);
            }
          }}
        />
      )}
    </Field>
  );
}

export function FilterBar({
  slug,
  projectId,
  filters,
  orderBy,
  states,
  labels,
  onChange,
  children,
}: {
  slug: string;
  projectId: string;
  filters: Filters;
  /** The list's sort when it is not the default: saved with the view. */
  orderBy: string | null;
  states: readonly { id: string; name: string }[];
  labels: readonly { id: string; name: string }[];
  /** `replace`: the change refines the last one (the words being typed), so it replaces the history entry. */
  onChange: (next: Filters, replace?: boolean) => void;
  /** Sort and page size, in the same row. */
  children: ComponentChildren;
}) {
  const members = useMembers(slug);
  const [saving, setSaving] = useState(false);
  const nameInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (saving) nameInput.current?.focus();
  }, [saving]);
  const [saved, setSaved] = useState<{ id: string; name: string } | null>(null);
  const kept = Object.fromEntries(Object.entries(filters).filter(([k]) => !NOT_IN_VIEWS.includes(k)));
  const dropped = Object.keys(filters).some((k) => NOT_IN_VIEWS.includes(k));
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const view = await unwrap(
      api().POST('/api/workspaces/{slug}/views/', {
        params: { path: { slug } },
        body: { name: v.name ?? '', project_id: projectId, shared: v.shared === 'on', filters: kept, order_by: orderBy },
      }),
    );
    setSaving(false);
    setSaved(view);
    window.dispatchEvent(new Event(VIEWS_CHANGED));
  });
  const set = (key: string) => (values: string[]) => {
    setSaved(null);
    onChange({ ...filters, [key]: values });
  };
  const any = Object.keys(filters).length > 0;
  const people: Item[] = [['me', 'Me'], ['none', 'No assignee'], ...[...(members.data?.values() ?? [])].map((m): Item => [m.user_id, m.display_name])];
  return (
    <>
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <TextFilter
          value={filters.q?.[0] ?? ''}
          onChange={(q, replace) => {
            setSaved(null);
            onChange({ ...filters, q: q ? [q] : [] }, replace);
          }}
        />
        <MultiSelect label="Assignee" items={people} values={filters.assignee_id ?? []} onChange={set('assignee_id')} />
        <MultiSelect label="State" items={states.map((s): Item => [s.id, s.name])} values={filters.state_id ?? []} onChange={set('state_id')} />
        <MultiSelect label="Priority" items={PRIORITY_ITEMS} values={filters.priority ?? []} onChange={set('priority')} />
        <MultiSelect label="Label" items={labels.map((l): Item => [l.id, l.name])} values={filters.label_id ?? []} onChange={set('label_id')} />
        {children}
        <div class="filter-actions">
          <button type="button" class="secondary" disabled={!any} onClick={() => onChange({})}>
            Clear filters
          </button>
          <button type="button" class="secondary" aria-expanded={saving} onClick={() => setSaving(!saving)}>
            Save as view
          </button>
        </div>
      </form>
      <p class="muted hint">Ctrl/⌘-click (or Shift with the arrow keys) picks several values of one filter.</p>
      {saving ? (
        <ActionForm class="inline save-view" action={save} submit="Save view" problem="outside">
          <Field label="View name" errors={errorsAt(save.error, '/name')}>
            {(id, by) => <input id={id} name="name" required maxLength={100} aria-describedby={by} ref={nameInput} />}
          </Field>
          <label class="check">
            <input type="checkbox" name="shared" /> Shared with the workspace
          </label>
          {dropped ? <p class="muted">The due-date range is not kept in a view.</p> : null}
        </ActionForm>
      ) : null}
      {saved ? (
        <p class="notice" role="status">
          View saved: <Link to={`/w/${slug}/views/${saved.id}`}>{saved.name}</Link>
        </p>
      ) : null}
    </>
  );
}
