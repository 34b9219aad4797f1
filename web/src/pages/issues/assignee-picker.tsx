/**
 * The assignees of an issue, chosen among the workspace's members (issue 41): a button that shows them and opens a
 * popover of check boxes, one per member, with a filter. Each box saves the whole set as it changes. By keyboard: Enter
 * or Space opens it (the filter takes the focus), Tab moves through the members, Space checks, Escape closes it and
 * the focus goes back to the button; leaving it (Tab past the end, a click outside) closes it too.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { initials, type Member } from '../../components/issue-bits.js';
import { FieldProblem, type IssueEditor } from './issue-fields.js';

export function AssigneePicker({ editor, members }: { editor: IssueEditor; members: ReadonlyMap<string, Member> | undefined }) {
  const stored = editor.issue.assignee_ids;
  // What the boxes show: ahead of the API while changes are saved (each change carries the whole set).
  const [ids, setIds] = useState<readonly string[]>(stored);
  const [open, setOpen] = useState(false);
  const [filter, setFilter] = useState('');
  const button = useRef<HTMLButtonElement>(null);
  const popover = useRef<HTMLDivElement>(null);
  const filterInput = useRef<HTMLInputElement>(null);
  useEffect(() => setIds(stored), [stored.join()]);
  useEffect(() => {
    if (!open) return;
    filterInput.current?.focus();
    const outside = (e: PointerEvent) => {
      const t = e.target as Node;
      if (!popover.current?.contains(t) && !button.current?.contains(t)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);
  const close = () => {
    setOpen(false);
    setFilter('');
    button.current?.focus();
  };
  const toggle = (id: string, on: boolean) => {
    const next = on ? [...ids, id] : ids.filter((x) => x !== id);
    setIds(next);
    void editor.save('assignee_ids', { assignee_ids: next }, 'Assignees').then((ok) => {
      if (!ok) setIds(editor.issue.assignee_ids);
    });
  };
  const everyone = [...(members?.values() ?? [])].sort((a, b) => (a.display_name || a.email).localeCompare(b.display_name || b.email));
  const wanted = filter.trim().toLowerCase();
  const shown = wanted ? everyone.filter((m) => `${m.display_name} ${m.email}`.toLowerCase().includes(wanted)) : everyone;
  const names = ids.map((id) => members?.get(id)?.display_name || members?.get(id)?.email || 'a former member').sort((a, b) => a.localeCompare(b));
  const error = editor.errors.assignee_ids;
  return (
    <div class={error ? 'prop invalid assignee-prop' : 'prop assignee-prop'}>
      <span class="prop-label" id="assignees-label">
        Assignees
      </span>
      <button
        type="button"
        id="assignees-button"
        class="assignee-button"
        ref={button}
        aria-expanded={open}
        aria-controls="assignees-popover"
        aria-labelledby="assignees-label assignees-button"
        aria-describedby={error ? 'assignees-error' : undefined}
        onClick={() => (open ? close() : setOpen(true))}
      >
        <span class="assignee-names">{ids.length ? names.join(', ') : 'Unassigned'}</span>
      </button>
      {open ? (
        <div
          class="popover assignee-popover"
          id="assignees-popover"
          ref={popover}
          role="group"
          aria-label="Choose assignees"
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              close();
            }
          }}
          onFocusOut={(e) => {
            const next = e.relatedTarget as Node | null;
            if (next && !popover.current?.contains(next) && next !== button.current) setOpen(false);
          }}
        >
          <label for="assignee-filter" class="sr-only">
            Find a member
          </label>
          <input
            id="assignee-filter"
            ref={filterInput}
            type="search"
            placeholder="Find a member"
            autocomplete="off"
            value={filter}
            onInput={(e) => setFilter(e.currentTarget.value)}
          />
          {members ? (
            <ul class="assignee-options">
              {shown.map((m) => (
                <li key={m.user_id}>
                  <label class="check">
                    <input type="checkbox" checked={ids.includes(m.user_id)} onChange={(e) => toggle(m.user_id, e.currentTarget.checked)} />
                    <span class="avatar" aria-hidden="true">
                      {initials(m)}
                    </span>
                    <span>{m.display_name || m.email}</span>
                  </label>
                </li>
              ))}
              {shown.length ? null : <li class="muted">No member matches.</li>}
            </ul>
          ) : (
            <p class="muted">The members cannot be listed.</p>
          )}
        </div>
      ) : null}
      <FieldProblem id="assignees-error" error={error} />
    </div>
  );
}
