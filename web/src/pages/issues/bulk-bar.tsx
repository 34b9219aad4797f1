/** The bar under the issue list while rows are selected: change them together (contract 24.4), or delete them. */
import { useState } from 'preact/hooks';
import { type Answer, api, PRIORITIES, unwrap } from '../../api.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import type { Label } from '../../components/label-chips.js';
import { SelectField } from '../../components/options.js';
import { ProblemView, useAction } from '../../ui.js';
import { PRIORITY_ITEMS } from './filter-bar.js';

type State = Answer<'listStates'>[number];
type Priority = (typeof PRIORITIES)[number];
const NONE = { state_id: '', priority: '', add: '', remove: '' };

export function BulkBar({
  slug,
  projectId,
  ids,
  states,
  labels,
  onDone,
  onClear,
}: {
  slug: string;
  projectId: string;
  ids: string[];
  states: readonly State[];
  labels: readonly Label[];
  /** After a change or a deletion, with what to tell ("3 issues updated"). */
  onDone: (notice: string) => void;
  onClear: () => void;
}) {
  const [set, setSet] = useState(NONE);
  const n = ids.length;
  const issues = n === 1 ? '1 issue' : `${n} issues`;
  const path = { slug, projectId };
  const apply = useAction(async () => {
    const res = await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/bulk/', {
        params: { path },
        body: {
          issue_ids: ids,
          set: {
            ...(set.state_id ? { state_id: set.state_id } : {}),
            ...(set.priority ? { priority: set.priority as Priority } : {}),
            ...(set.add ? { add_label_ids: [set.add] } : {}),
            ...(set.remove ? { remove_label_ids: [set.remove] } : {}),
          },
        },
      }),
    );
    setSet(NONE);
    onDone(res.updated === 1 ? '1 issue updated.' : `${res.updated} issues updated.`);
  });
  const remove = useAction(async () => {
    const res = await unwrap(api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/bulk-delete/', { params: { path }, body: { issue_ids: ids } }));
    onDone(res.deleted === 1 ? '1 issue deleted.' : `${res.deleted} issues deleted.`);
  });
  const busy = apply.busy || remove.busy;
  const chosen = Boolean(set.state_id || set.priority || set.add || set.remove);
  const labelItems = labels.map((l) => [l.id, l.name] as const);
  return (
    <section class="bulk-bar" aria-label="Bulk edit">
      <p class="bulk-count" role="status">
        <strong>{n} selected</strong>
      </p>
      <form
        class="bulk-form"
        onSubmit={(e) => {
          e.preventDefault();
          void apply.run();
        }}
      >
        <SelectField
          label="Set state"
          all="Keep"
          items={states.map((s) => [s.id, s.name] as const)}
          value={set.state_id}
          onChange={(v) => setSet({ ...set, state_id: v })}
        />
        <SelectField label="Set priority" all="Keep" items={PRIORITY_ITEMS} value={set.priority} onChange={(v) => setSet({ ...set, priority: v })} />
        <SelectField label="Add label" all="None" items={labelItems} value={set.add} onChange={(v) => setSet({ ...set, add: v })} />
        <SelectField label="Remove label" all="None" items={labelItems} value={set.remove} onChange={(v) => setSet({ ...set, remove: v })} />
        <div class="bulk-buttons">
          <button type="submit" disabled={busy || !chosen}>
            Apply to {issues}
          </button>
          <ConfirmButton question={`Delete ${issues}? This cannot be undone.`} disabled={busy} onConfirm={() => void remove.run()}>
            Delete {issues}
          </ConfirmButton>
          <button type="button" class="secondary" onClick={onClear}>
            Clear selection
          </button>
        </div>
      </form>
      <ProblemView error={apply.error ?? remove.error} />
    </section>
  );
}
