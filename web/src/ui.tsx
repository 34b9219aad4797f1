/** Small shared pieces: loading data, showing API errors as the API states them, labelled fields. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, setToken } from './api.js';
import { count } from './format.js';
import { navigate } from './router.js';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<void>;
}

/** Runs `load` when `deps` change (and on `reload`); a 401 signs out. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: null, loading: true });
  const seq = useRef(0);
  const run = useCallback(async () => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await load();
      if (mine === seq.current) setState({ data, error: null, loading: false });
    } catch (error) {
      if (isUnauthenticated(error)) return;
      if (mine === seq.current) setState({ data: undefined, error, loading: false });
    }
  }, deps);
  useEffect(() => {
    void run();
  }, [run]);
  return { ...state, reload: run };
}

function isUnauthenticated(error: unknown): boolean {
  if (error instanceof ApiError && error.status === 401) {
    setToken(null);
    navigate('/sign-in', true);
    return true;
  }
  return false;
}

/**
 * A form action: `busy` while it runs, the API's error when it fails. A 401 signs out, unless `show401` (the sign-in
 * form, whose 401 is a wrong password to show, not an expired session).
 */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<void>, { show401 = false }: { show401?: boolean } = {}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await action(...args);
    } catch (e) {
      if (show401 || !isUnauthenticated(e)) setError(e);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, setError };
}

/** An error as the API states it: `detail`, then each field path and message. */
export function ProblemView({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof ApiError) {
    const p = error.problem;
    return (
      <div class="problem" role="alert">
        <strong>{p.detail || p.title}</strong>{' '}
        <span class="code">
          ({p.status} {p.code})
        </span>
        {p.errors?.length ? (
          <ul>
            {p.errors.map((e) => (
              <li key={e.path}>
                <code>{e.path || '/'}</code>: {e.message}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    );
  }
  return (
    <div class="problem" role="alert">
      <strong>{error instanceof Error ? error.message : String(error)}</strong>
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** Loading, error or the content. */
export function Show<T>({ state, children }: { state: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (state.error) return <ProblemView error={state.error} />;
  if (state.data === undefined) return <Loading />;
  return <>{children(state.data)}</>;
}

let fieldSeq = 0;
/**
 * A labelled control: every input has a label. `errors` are the API's messages for this field's path, shown under it;
 * the control gets `describedBy` (the hint and the messages) to pass as `aria-describedby`.
 */
export function Field({
  label,
  children,
  hint,
  errors,
}: {
  label: string;
  children: (id: string, describedBy?: string) => ComponentChildren;
  hint?: string;
  errors?: string[];
}) {
  const id = useRef(`f${++fieldSeq}`).current;
  const bad = errors?.length ? errors : null;
  const describedBy = [hint ? `${id}-hint` : '', bad ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={bad ? 'field invalid' : 'field'}>
      <label for={id}>{label}</label>
      {children(id, describedBy)}
      {hint ? <small id={`${id}-hint`}>{hint}</small> : null}
      {bad ? <FieldErrors id={`${id}-err`} messages={bad} /> : null}
    </div>
  );
}

/** The API's messages for one field, next to it. */
export function FieldErrors({ id, messages }: { id?: string; messages: string[] | undefined }) {
  if (!messages?.length) return null;
  return (
    <small class="field-error" id={id}>
      {messages.join('; ')}
    </small>
  );
}

/** The messages of an API validation error whose `errors[].path` is exactly `path` (a JSON pointer such as `/working_hours/0/start`). */
export function errorsAt(error: unknown, path: string): string[] | undefined {
  if (!(error instanceof ApiError) || !error.problem.errors) return undefined;
  const found = error.problem.errors.filter((e) => e.path === path).map((e) => e.message);
  return found.length ? found : undefined;
}

/** Previous / next over a paginated list (`{results, total, offset, per_page}`). */
export function Pager({
  offset,
  perPage,
  shown,
  total,
  onPage,
  label = 'Pages',
  always = false,
}: {
  offset: number;
  perPage: number;
  shown: number;
  total: number;
  onPage: (offset: number) => void;
  label?: string;
  /** Show it even when one page holds everything. */
  always?: boolean;
}) {
  if (!always && total <= perPage && offset === 0) return null;
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" aria-label="Previous page" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - perPage))}>
        Previous
      </button>
      <span aria-live="polite">
        {shown ? `${count(offset + 1)}–${count(offset + shown)}` : '0'} of {count(total)}
      </span>
      <button type="button" aria-label="Next page" disabled={offset + perPage >= total} onClick={() => onPage(offset + perPage)}>
        Next
      </button>
    </nav>
  );
}

export function Badge({ tone, children }: { tone: 'bad' | 'ok' | 'warn' | 'info'; children: ComponentChildren }) {
  return <span class={`badge ${tone}`}>{children}</span>;
}

export function PageTitle({ children, actions }: { children: ComponentChildren; actions?: ComponentChildren }) {
  useEffect(() => {
    if (typeof children === 'string') document.title = `${children} · Work items`;
  }, [children]);
  return (
    <div class="page-title">
      <h1 tabIndex={-1}>{children}</h1>
      {actions ? <div class="actions">{actions}</div> : null}
    </div>
  );
}

export function formValues(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  new FormData(form).forEach((v, k) => {
    out[k] = String(v);
  });
  return out;
}
