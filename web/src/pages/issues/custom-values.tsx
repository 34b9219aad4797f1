/**
 * The custom values of an issue in its properties sidebar (issue 41): one control per property, by its type, saved on
 * change through the custom-values endpoint (a box or a choice at once; typed text on Enter, on leaving the field or a
 * moment after the last keystroke). A refused value shows the API's problem next to its control and goes back.
 */
import { useEffect, useState } from 'preact/hooks';
import { type Answer, api, unwrap } from '../../api.js';
import { Link } from '../../router.js';
import { Show, useLoad } from '../../ui.js';
import { FieldProblem, Prop, SavingInput } from './issue-fields.js';

type CustomValue = Answer<'listCustomValues'>[number];
type Property = Answer<'listCustomProperties'>[number];

function ValueEditor({
  slug,
  issueId,
  value,
  property,
  say,
}: {
  slug: string;
  issueId: string;
  value: CustomValue;
  property: Property | undefined;
  say: (status: string) => void;
}) {
  // What the control shows: the stored value, ahead of the API while a change is saved.
  const [shown, setShown] = useState<unknown>(value.value);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => setShown(value.value), [JSON.stringify(value.value)]);
  const save = async (next: unknown): Promise<boolean> => {
    const before = shown;
    setShown(next);
    setError(null);
    say(`Saving ${value.name}…`);
    try {
      const stored = await unwrap(
        api().PUT('/api/workspaces/{slug}/issues/{issueId}/custom-values/{propertyId}/', {
          params: { path: { slug, issueId, propertyId: value.property_id } },
          body: { value: next as never },
        }),
      );
      setShown(stored.value);
      say(`${value.name} saved`);
      return true;
    } catch (e) {
      setShown(before);
      setError(e);
      say(`${value.name} not saved`);
      return false;
    }
  };
  const id = `cv-${value.property_id}`;
  const errorId = `${id}-error`;
  const by = error ? errorId : undefined;
  const options = property?.options ?? [];
  const text = typeof shown === 'string' ? shown : shown === null || shown === undefined ? '' : String(shown);
  if (value.type === 'multi_select') {
    const chosen = Array.isArray(shown) ? (shown as string[]) : [];
    return (
      <fieldset class={error ? 'prop multi invalid' : 'prop multi'} aria-describedby={by}>
        <legend>{value.name}</legend>
        <div class="checks">
          {options.map((o) => (
            <label class="check" key={o}>
              <input
                type="checkbox"
                checked={chosen.includes(o)}
                onChange={(e) => void save(e.currentTarget.checked ? [...chosen, o] : chosen.filter((c) => c !== o))}
              />
              {o}
            </label>
          ))}
        </div>
        <FieldProblem id={errorId} error={error} />
      </fieldset>
    );
  }
  let control;
  switch (value.type) {
    case 'checkbox':
      control = <input id={id} type="checkbox" checked={shown === true} aria-describedby={by} onChange={(e) => void save(e.currentTarget.checked)} />;
      break;
    case 'select':
      control = (
        <select id={id} value={text} aria-describedby={by} onChange={(e) => void save(e.currentTarget.value || null)}>
          <option value="">—</option>
          {options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
      break;
    case 'number':
      control = <SavingInput id={id} type="number" step="any" stored={text} describedBy={by} commit={(v) => save(v.trim() === '' ? null : Number(v))} />;
      break;
    case 'date':
      control = <SavingInput id={id} type="date" stored={text.slice(0, 10)} describedBy={by} commit={(v) => save(v || null)} />;
      break;
    case 'url':
      control = <SavingInput id={id} type="url" stored={text} describedBy={by} commit={(v) => save(v.trim() || null)} />;
      break;
    default:
      control = <SavingInput id={id} type="text" maxLength={10_000} stored={text} describedBy={by} commit={(v) => save(v === '' ? null : v)} />;
  }
  return (
    <Prop id={id} label={value.name} error={error}>
      {control}
    </Prop>
  );
}

export function CustomValues({ slug, projectId, issueId, say }: { slug: string; projectId: string; issueId: string; say: (status: string) => void }) {
  const values = useLoad(async () => {
    const path = { slug, projectId, issueId };
    const [vals, props] = await Promise.all([
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/custom-values/', { params: { path } })),
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', { params: { path: { slug, projectId } } })),
    ]);
    return { vals, props };
  }, [issueId]);
  return (
    <Show state={values}>
      {({ vals, props }) =>
        vals.length ? (
          <div class="custom-values">
            {vals.map((v) => (
              <ValueEditor key={v.property_id} slug={slug} issueId={issueId} value={v} property={props.find((p) => p.id === v.property_id)} say={say} />
            ))}
          </div>
        ) : (
          <p class="muted">
            No custom properties. <Link to={`/w/${slug}/p/${projectId}/properties`}>Define some</Link>
          </p>
        )
      }
    </Show>
  );
}
