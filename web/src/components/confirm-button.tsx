/** A button that asks first (the browser's confirm) and runs its action only on yes. */
import type { ComponentChildren } from 'preact';

export function ConfirmButton({
  question,
  onConfirm,
  class: cls = 'danger',
  disabled,
  label,
  children,
}: {
  question: string;
  onConfirm: () => void;
  class?: string;
  disabled?: boolean;
  /** The accessible name, when the visible text alone is ambiguous in a list ("Delete Gold"). */
  label?: string;
  children: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class={cls}
      aria-label={label}
      disabled={disabled}
      onClick={() => {
        if (confirm(question)) onConfirm();
      }}
    >
      {children}
    </button>
  );
}
