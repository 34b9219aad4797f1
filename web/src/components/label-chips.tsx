/** A project's labels (contract 24.1) as chips in their colours, and loading them once per project. */
import { type Answer, api, unwrap } from '../api.js';
import { useLoad } from '../ui.js';

export type Label = Answer<'listLabels'>[number];

export function useLabels(slug: string, projectId: string) {
  return useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/labels/', { params: { path: { slug, projectId } } })), [slug, projectId]);
}

/** The label's colour as a dot and a faint tint behind its name; the text stays dark, so any colour reads. */
export function LabelChip({ label }: { label: Pick<Label, 'name' | 'color'> }) {
  return (
    <span class="chip" style={{ borderColor: label.color, background: `${label.color}1f` }}>
      <span class="dot" style={{ background: label.color }} aria-hidden="true" />
      {label.name}
    </span>
  );
}

/** The labels of an issue (`label_ids`) in the order of the project's list; ids not (yet) loaded are left out. */
export function LabelChips({ ids, labels }: { ids: readonly string[]; labels: readonly Label[] | undefined }) {
  const shown = (labels ?? []).filter((l) => ids.includes(l.id));
  if (!shown.length) return null;
  return (
    <ul class="chips" aria-label="Labels">
      {shown.map((l) => (
        <li key={l.id}>
          <LabelChip label={l} />
        </li>
      ))}
    </ul>
  );
}
