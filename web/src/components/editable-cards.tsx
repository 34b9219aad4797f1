/** A loaded list as cards, each with Edit (its form opens in the card) and Delete (asked first). */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Loaded } from '../ui.js';
import { ConfirmButton } from './confirm-button.js';
import { CardList } from './list-view.js';

export function EditableCards<T extends { id: string; name: string }>({
  state,
  empty,
  noun,
  remove,
  form,
  children,
}: {
  state: Loaded<T[]>;
  empty: ComponentChildren;
  /** In the delete question: "Delete the {noun} {name}?" */
  noun: string;
  remove: { busy: boolean; run: (item: T) => Promise<void> };
  /** The edit form of an item; `done` closes it and reloads the list. */
  form: (item: T, done: () => void) => ComponentChildren;
  children: (item: T) => ComponentChildren;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const done = () => {
    setEditing(null);
    void state.reload();
  };
  return (
    <CardList state={state} empty={empty}>
      {(item) => (
        <>
          {children(item)}
          <div class="actions">
            <button
              type="button"
              aria-expanded={editing === item.id}
              aria-label={`Edit ${item.name}`}
              onClick={() => setEditing(editing === item.id ? null : item.id)}
            >
              Edit
            </button>
            <ConfirmButton
              question={`Delete the ${noun} ${item.name}?`}
              label={`Delete ${item.name}`}
              disabled={remove.busy}
              onConfirm={() => void remove.run(item)}
            >
              Delete
            </ConfirmButton>
          </div>
          {editing === item.id ? form(item, done) : null}
        </>
      )}
    </CardList>
  );
}
