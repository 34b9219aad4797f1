/**
 * The issue page's fields, each edited in place and saved on change (issue 41): the title (click, Enter or "Edit
 * title"; Enter or leaving the field saves, Escape cancels), the description (Markdown, with Save and Cancel), state by
 * name, priority, dates and estimates. Each change is one PATCH of the issue, sent in order; the answer replaces the
 * issue shown, a live region says "Saved", and a refused change shows the API's problem next to its field while the
 * field goes back to the stored value.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Answer, api, type operations, PRIORITIES, unwrap } from '../../api.js';
import { PriorityIcon, type State } from '../../components/issue-bits.js';
import { Markdown } from '../../components/markdown.js';
import { codeName, minutes } from '../../format.js';

export type Issue = Answer<'getIssue'>;
export type IssueChange = NonNullable<operations['updateIssue']['requestBody']>['content']['application/json'];
type Field = keyof IssueChange;

/** The issue as shown, how to change it, and the problem of each field whose change was refused. */
export interface IssueEditor {
  issue: Issue;
  errors: Partial<Record<Field, unknown>>;
  /** PATCHes `change` (after any change still on its way); true when stored. `what` names the field in the status. */
  save: (field: Field, change: IssueChange, what: string) => Promise<boolean>;
}

/** `say` tells the page's live region what a save did ("Saving state…", "State saved"). */
export function useIssueEditor(slug: string, projectId: string, issue: Issue, onSaved: (next: Issue) => void, say: (status: string) => void): IssueEditor {
  const [errors, setErrors] = useState<IssueEditor['errors']>({});
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const latest = useRef(onSaved);
  latest.current = onSaved;
  const save = (field: Field, change: IssueChange, what: string) => {
    say(`Saving ${what.toLowerCase()}…`);
    setErrors((e) => ({ ...e, [field]: null }));
    const run = queue.current.then(async () => {
      try {
        const next = await unwrap(
          api().PATCH('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', {
            params: { path: { slug, projectId, issueId: issue.id } },
            body: change,
          }),
        );
        say(`${what} saved`);
        latest.current(next);
        return true;
      } catch (error) {
        say(`${what} not saved`);
        setErrors((e) => ({ ...e, [field]: error }));
        return false;
      }
    });
    queue.current = run;
    return run;
  };
  return { issue, errors, save };
}

/** The problem of a refused change, next to its field: the API's detail and its messages for the fields. */
export function FieldProblem({ id, error }: { id: string; error: unknown }) {
  if (!error) return null;
  const text =
    error instanceof ApiError
      ? [error.problem.detail || error.problem.title, ...(error.problem.errors ?? []).map((e) => `${e.path.replace(/^\//, '')} ${e.message}`)]
          .filter(Boolean)
          .join(': ')
      : error instanceof Error
        ? error.message
        : String(error);
  return (
    <small class="field-error" id={id}>
      {text}
    </small>
  );
}

const describedBy = (...ids: unknown[]) => ids.filter((x): x is string => typeof x === 'string' && x !== '').join(' ') || undefined;

/** The issue's title as the page's heading; edited in place. */
export function TitleField({ editor }: { editor: IssueEditor }) {
  const { issue } = editor;
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(issue.name);
  const open = useRef(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    document.title = `${issue.name} · Work items`;
  }, [issue.name]);
  useEffect(() => {
    if (editing) input.current?.select();
  }, [editing]);
  const start = () => {
    setDraft(issue.name);
    open.current = true;
    setEditing(true);
  };
  /** `refocus`: Enter and Escape put the focus back on "Edit title"; leaving the field leaves it where it went. */
  const close = (refocus: boolean) => {
    open.current = false;
    setEditing(false);
    if (refocus) requestAnimationFrame(() => editButton.current?.focus());
  };
  const commit = (refocus: boolean) => {
    if (!open.current) return;
    const name = draft.trim();
    close(refocus);
    if (name && name !== issue.name) void editor.save('name', { name }, 'Title');
  };
  const error = editor.errors.name;
  return (
    <div class="issue-title">
      {editing ? (
        // Still the page's heading while it is edited.
        <h1 class="editing">
          <label for="issue-title-input" class="sr-only">
            Title
          </label>
          <input
            id="issue-title-input"
            ref={input}
            class="title-input"
            value={draft}
            maxLength={255}
            required
            onInput={(e) => setDraft(e.currentTarget.value)}
            onBlur={() => commit(false)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                commit(true);
              } else if (e.key === 'Escape') {
                e.preventDefault();
                close(true);
              }
            }}
          />
        </h1>
      ) : (
        <>
          <h1
            tabIndex={-1}
            class="editable"
            aria-describedby={error ? 'issue-title-error' : undefined}
            onClick={start}
            onKeyDown={(e) => {
              if (e.key === 'Enter') start();
            }}
          >
            {issue.name}
          </h1>
          <button type="button" class="link edit-title" ref={editButton} onClick={start}>
            Edit title
          </button>
        </>
      )}
      <FieldProblem id="issue-title-error" error={error} />
    </div>
  );
}

/** The description, rendered from Markdown; "Edit description" opens a text area with Save and Cancel. */
export function DescriptionField({ editor }: { editor: IssueEditor }) {
  const { issue } = editor;
  const [draft, setDraft] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (draft !== null) area.current?.focus();
  }, [draft === null]);
  const cancel = () => {
    setDraft(null);
    requestAnimationFrame(() => opener.current?.focus());
  };
  const submit = async () => {
    if (draft === null) return;
    if (draft === issue.description) return cancel();
    setBusy(true);
    const ok = await editor.save('description', { description: draft }, 'Description');
    setBusy(false);
    if (ok) cancel();
  };
  const error = editor.errors.description;
  if (draft === null)
    return (
      <section class="description">
        <h2 class="sr-only">Description</h2>
        {issue.description ? <Markdown text={issue.description} /> : <p class="muted">No description.</p>}
        <button type="button" class="link" ref={opener} onClick={() => setDraft(issue.description)}>
          {issue.description ? 'Edit description' : 'Add a description'}
        </button>
      </section>
    );
  return (
    <section class="description editing">
      <h2 class="sr-only">Description</h2>
      <form
        class="description-form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <div class="field">
          <label for="issue-description">Description</label>
          <textarea
            id="issue-description"
            ref={area}
            rows={10}
            maxLength={100_000}
            value={draft}
            aria-describedby={describedBy('issue-description-hint', error && 'issue-description-error')}
            onInput={(e) => setDraft(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.preventDefault();
                cancel();
              } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                void submit();
              }
            }}
          />
          <small id="issue-description-hint">
            Markdown: **bold**, _italic_, lists, [links](https://example.com), `code`. Ctrl+Enter saves, Escape cancels.
          </small>
          <FieldProblem id="issue-description-error" error={error} />
        </div>
        <div class="buttons">
          <button type="submit" disabled={busy}>
            Save
          </button>
          <button type="button" class="secondary" onClick={cancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

/** One property of the sidebar: its label, its control, its problem. */
export function Prop({ id, label, children, hint, error }: { id: string; label: string; children: ComponentChildren; hint?: string; error?: unknown }) {
  return (
    <div class={error ? 'prop invalid' : 'prop'}>
      <label for={id}>{label}</label>
      <div class="prop-control">{children}</div>
      {hint ? <small id={`${id}-hint`}>{hint}</small> : null}
      <FieldProblem id={`${id}-error`} error={error} />
    </div>
  );
}

/** The state by name, in the project's order, with the state's colour. */
export function StateField({ editor, states }: { editor: IssueEditor; states: readonly State[] }) {
  const { issue } = editor;
  const current = states.find((s) => s.id === issue.state_id);
  const error = editor.errors.state_id;
  return (
    <Prop id="issue-state" label="State" error={error}>
      <span class="dot" style={{ background: current?.color ?? '#8a94a6' }} aria-hidden="true" />
      <select
        id="issue-state"
        value={issue.state_id}
        aria-describedby={error ? 'issue-state-error' : undefined}
        onChange={(e) => void editor.save('state_id', { state_id: e.currentTarget.value }, 'State')}
      >
        {states.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </select>
    </Prop>
  );
}

export function PriorityField({ editor }: { editor: IssueEditor }) {
  const { issue } = editor;
  const error = editor.errors.priority;
  return (
    <Prop id="issue-priority" label="Priority" error={error}>
      <PriorityIcon priority={issue.priority} />
      <select
        id="issue-priority"
        value={issue.priority}
        aria-describedby={error ? 'issue-priority-error' : undefined}
        onChange={(e) => void editor.save('priority', { priority: e.currentTarget.value as Issue['priority'] }, 'Priority')}
      >
        {PRIORITIES.map((p) => (
          <option key={p} value={p}>
            {codeName(p)}
          </option>
        ))}
      </select>
    </Prop>
  );
}

/**
 * An input that saves what is typed: on Enter, on leaving it, or a moment after the last keystroke (a date or a number
 * is typed in steps). A refused value goes back to the stored one.
 */
export function SavingInput({
  id,
  stored,
  commit,
  describedBy: by,
  type,
  ...rest
}: {
  id: string;
  stored: string;
  commit: (value: string) => Promise<boolean>;
  describedBy?: string | undefined;
  type: 'date' | 'number' | 'text' | 'url';
  maxLength?: number;
  min?: number;
  max?: number;
  step?: number | 'any';
}) {
  const [draft, setDraft] = useState(stored);
  const sent = useRef(stored);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    sent.current = stored;
    setDraft(stored);
  }, [stored]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const flush = (value: string) => {
    clearTimeout(timer.current);
    if (value === sent.current) return;
    sent.current = value;
    void commit(value).then((ok) => {
      if (!ok) {
        sent.current = stored;
        setDraft(stored);
      }
    });
  };
  return (
    <input
      id={id}
      {...rest}
      type={type as 'text'}
      value={draft}
      aria-describedby={by}
      onInput={(e) => {
        const value = e.currentTarget.value;
        setDraft(value);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => flush(value), 800);
      }}
      onBlur={(e) => flush(e.currentTarget.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') flush(e.currentTarget.value);
      }}
    />
  );
}

export function DateField({ editor, field, label }: { editor: IssueEditor; field: 'start_date' | 'target_date'; label: string }) {
  const id = `issue-${field.replace('_', '-')}`;
  const error = editor.errors[field];
  return (
    <Prop id={id} label={label} error={error}>
      <SavingInput
        id={id}
        type="date"
        stored={editor.issue[field] ?? ''}
        describedBy={error ? `${id}-error` : undefined}
        commit={(v) => editor.save(field, { [field]: v || null }, label)}
      />
    </Prop>
  );
}

/**
 * Minutes of the original or the remaining estimate. The remaining figure reads the estimate minus the time spent until
 * someone sets it; it is sent only when edited, and blank sends null (follow the estimate again).
 */
export function MinutesField({
  editor,
  field,
  label,
  hint,
}: {
  editor: IssueEditor;
  field: 'estimate_minutes' | 'remaining_minutes';
  label: string;
  hint: string;
}) {
  const id = `issue-${field.replace('_', '-')}`;
  const value = editor.issue[field];
  const error = editor.errors[field];
  return (
    <Prop id={id} label={label} error={error} hint={`${value === null ? '' : `${minutes(value)} · `}${hint}`}>
      <SavingInput
        id={id}
        type="number"
        min={0}
        max={1_000_000}
        step={1}
        stored={value === null ? '' : String(value)}
        describedBy={describedBy(`${id}-hint`, error && `${id}-error`)}
        commit={(v) => editor.save(field, { [field]: v.trim() === '' ? null : Number(v) }, label)}
      />
    </Prop>
  );
}
