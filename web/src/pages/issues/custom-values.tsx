/** The custom values of an issue, each with an editor for its property's type. */
import { useState } from 'preact/hooks';
import { api, unwrap } from '../../api.js';
import { ActionForm } from '../../components/action-form.js';
import { Options } from '../../components/options.js';
import { Link } from '../../router.js';
import { Empty, Field, Show, useAction, useLoad } from '../../ui.js';

type Value = unknown;
type CustomValue = { property_id: string; name: string; type: string; value: Value };
type Property = { id: string; type: string; options?: string[] | null; is_required?: boolean };

function ValueEditor({
  slug,
  issueId,
  value,
  property,
  onSaved,
}: {
  slug: string;
  issueId: string;
  value: CustomValue;
  property: Property | undefined;
  onSaved: () => void;
}) {
  const [draft, setDraft] = useState<Value>(value.value);
  const save = useAction(async () => {
    await unwrap(
      api().PUT('/api/workspaces/{slug}/issues/{issueId}/custom-values/{propertyId}/', {
        params: { path: { slug, issueId, propertyId: value.property_id } },
        body: { value: draft as never },
      }),
    );
    onSaved();
  });
  const options = property?.options ?? [];
  const label = `${value.name} (${value.type})`;
  let control;
  switch (value.type) {
    case 'checkbox':
      control = (id: string) => <input id={id} type="checkbox" checked={draft === true} onChange={(e) => setDraft(e.currentTarget.checked)} />;
      break;
    case 'number':
      control = (id: string) => (
        <input
          id={id}
          type="number"
          step="any"
          value={draft === null || draft === undefined ? '' : String(draft)}
          onInput={(e) => setDraft(e.currentTarget.value === '' ? null : Number(e.currentTarget.value))}
        />
      );
      break;
    case 'date':
      control = (id: string) => (
        <input id={id} type="date" value={typeof draft === 'string' ? draft.slice(0, 10) : ''} onInput={(e) => setDraft(e.currentTarget.value || null)} />
      );
      break;
    case 'url':
      control = (id: string) => (
        <input id={id} type="url" value={typeof draft === 'string' ? draft : ''} onInput={(e) => setDraft(e.currentTarget.value || null)} />
      );
      break;
    case 'select':
      control = (id: string) => (
        <select id={id} value={typeof draft === 'string' ? draft : ''} onChange={(e) => setDraft(e.currentTarget.value || null)}>
          <Options all="—" items={options} />
        </select>
      );
      break;
    case 'multi_select':
      control = (id: string) => (
        <select id={id} multiple onChange={(e) => setDraft([...e.currentTarget.selectedOptions].map((o) => o.value))}>
          {options.map((o) => (
            <option key={o} value={o} selected={Array.isArray(draft) && draft.includes(o)}>
              {o}
            </option>
          ))}
        </select>
      );
      break;
    default:
      control = (id: string) => (
        <input id={id} value={typeof draft === 'string' ? draft : ''} onInput={(e) => setDraft(e.currentTarget.value === '' ? null : e.currentTarget.value)} />
      );
  }
  return (
    <ActionForm class="value" action={save} submit={`Save ${value.name}`} problem="after">
      <Field label={label}>{control}</Field>
    </ActionForm>
  );
}

export function CustomValues({ slug, projectId, issueId }: { slug: string; projectId: string; issueId: string }) {
  const values = useLoad(async () => {
    const path = { slug, projectId, issueId };
    const [vals, props] = await Promise.all([
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/custom-values/', { params: { path } })),
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', { params: { path: { slug, projectId } } })),
    ]);
    return { vals, props: props as Property[] };
  }, [issueId]);
  return (
    <Show state={values}>
      {({ vals, props }) =>
        vals.length ? (
          vals.map((v) => (
            <ValueEditor
              key={v.property_id}
              slug={slug}
              issueId={issueId}
              value={v}
              property={props.find((p) => p.id === v.property_id)}
              onSaved={() => void values.reload()}
            />
          ))
        ) : (
          <Empty>
            This project has no custom properties. <Link to={`/w/${slug}/p/${projectId}/properties`}>Define some</Link>.
          </Empty>
        )
      }
    </Show>
  );
}
