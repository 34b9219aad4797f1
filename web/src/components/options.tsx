import { Field } from '../ui.js';

/** The options of a select: each value shown as itself, or `[value, label]` pairs; `all` adds a first empty option. */
export function Options({
  items,
  selected,
  all,
}: {
  items: readonly (string | number | readonly [string, string])[];
  /** For an uncontrolled select: the option chosen at first. */
  selected?: string;
  /** The text of an empty first option ("All", "None (24/7)"). */
  all?: string;
}) {
  return (
    <>
      {all !== undefined ? (
        <option value="" selected={selected === undefined ? undefined : selected === ''}>
          {all}
        </option>
      ) : null}
      {items.map((item) => {
        const [value, label] = typeof item === 'object' ? item : [String(item), String(item)];
        return (
          <option key={value} value={value} selected={selected === undefined ? undefined : value === selected}>
            {label}
          </option>
        );
      })}
    </>
  );
}

/**
 * A labelled select. Controlled with `value` and `onChange` (filters that navigate), or a form's field with `name`
 * and `selected`; `errors` are the API's messages for its path.
 */
export function SelectField({
  label,
  items,
  all,
  value,
  onChange,
  name,
  selected,
  hint,
  errors,
}: {
  label: string;
  items: readonly (string | number | readonly [string, string])[];
  all?: string;
  value?: string;
  onChange?: (value: string) => void;
  name?: string;
  selected?: string;
  hint?: string;
  errors?: string[] | undefined;
}) {
  return (
    <Field label={label} hint={hint} errors={errors}>
      {(id, by) => (
        <select id={id} name={name} value={value} aria-describedby={by} onChange={onChange ? (e) => onChange(e.currentTarget.value) : undefined}>
          <Options items={items} all={all} selected={selected} />
        </select>
      )}
    </Field>
  );
}
