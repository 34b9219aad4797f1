/** A form that runs one action: no page reload, the API's problem shown, the submit button off while it runs. */
import type { ComponentChildren } from 'preact';
import { ProblemView } from '../ui.js';

export interface FormAction {
  busy: boolean;
  error: unknown;
  run: (form: HTMLFormElement) => Promise<void>;
}

/**
 * `problem` places the API's error: `before` the submit button (default), `after` it, or `outside` the form (under an
 * inline form, whose fields sit in one row). `busyLabel` replaces the button's text while the action runs.
 */
export function ActionForm({
  action,
  submit,
  busyLabel,
  class: cls,
  problem = 'before',
  children,
}: {
  action: FormAction;
  submit: ComponentChildren;
  busyLabel?: string;
  class?: string;
  problem?: 'before' | 'after' | 'outside';
  children: ComponentChildren;
}) {
  const error = <ProblemView error={action.error} />;
  return (
    <>
      <form
        class={cls}
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(e.currentTarget);
        }}
      >
        {children}
        {problem === 'before' ? error : null}
        <button type="submit" disabled={action.busy}>
          {action.busy && busyLabel ? busyLabel : submit}
        </button>
        {problem === 'after' ? error : null}
      </form>
      {problem === 'outside' ? error : null}
    </>
  );
}

/** "New …" under a list: a heading and a one-row form, its error under the row. */
export function CreateForm({ title, action, submit, children }: { title: string; action: FormAction; submit: string; children: ComponentChildren }) {
  return (
    <>
      <h2>{title}</h2>
      <ActionForm class="inline" action={action} submit={submit} problem="outside">
        {children}
      </ActionForm>
    </>
  );
}
