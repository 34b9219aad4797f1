/**
 * Time on an issue (contract 18.2): the running timer, logging time, and the worklogs, newest first and paged, each
 * editable and deletable by its author (or an admin). Logging, editing and the timer need the plan's time_tracking
 * (402 `feature_not_in_plan`, shown as such); reading always works.
 */
import { useEffect, useState } from 'preact/hooks';
import { type Answer, api, unwrap } from '../../api.js';
import { dateTime, minutes } from '../../format.js';
import { ActionForm } from '../../components/action-form.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { PlanNotice } from '../../components/minutes.js';
import { Empty, errorsAt, Field, formValues, Pager, ProblemView, Show, useAction, useLoad } from '../../ui.js';

type Worklog = Answer<'listWorklogs'>['results'][number];
const PER_PAGE = 10;
const FEATURE = 'Time tracking';

/** An instant as the value of a `datetime-local` input (the browser's local time), and back. */
const toLocalInput = (iso: string) => {
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (value: string | undefined) => (value ? new Date(value).toISOString() : undefined);

/** Re-renders every `ms` (the running timer's elapsed time). */
function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/** The caller's id, whether they are an admin, and the members' names (a guest, who cannot list members, sees ids). */
function useWho(slug: string) {
  return useLoad(async () => {
    const c = api();
    const [me, members] = await Promise.all([
      unwrap(c.GET('/api/users/me/')),
      unwrap(c.GET('/api/workspaces/{slug}/members/', { params: { path: { slug } } })).catch(() => []),
    ]);
    return {
      id: me.id,
      admin: members.some((m) => m.user_id === me.id && m.role === 'admin'),
      names: new Map(members.map((m) => [m.user_id, m.display_name || m.email])),
    };
  }, [slug]);
}

export function Timer({ slug, issueId, onStopped }: { slug: string; issueId: string; onStopped: () => void }) {
  const timer = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/timer/', { params: { path: { slug } } })), [slug]);
  const now = useNow(30_000);
  const start = useAction(async () => {
    const running = timer.data;
    await unwrap(api().POST('/api/workspaces/{slug}/timer/start/', { params: { path: { slug } }, body: { issue_id: issueId } }));
    await timer.reload();
    if (running) onStopped(); // the run of the other timer was logged
  });
  const stop = useAction(async () => {
    await unwrap(api().POST('/api/workspaces/{slug}/timer/stop/', { params: { path: { slug } } }));
    await timer.reload();
    onStopped();
  });
  const error = start.error ?? stop.error;
  const busy = start.busy || stop.busy;
  return (
    <div class="timer">
      <Show state={timer}>
        {(t) => {
          const elapsed = t ? Math.max(0, Math.floor((now - new Date(t.started_at).getTime()) / 60_000)) : 0;
          return (
            <>
              <p role="status" aria-live="polite">
                {!t ? (
                  'No timer running.'
                ) : t.issue_id === issueId ? (
                  <>
                    <strong>Timer running</strong> since <time dateTime={t.started_at}>{dateTime(t.started_at)}</time> ({minutes(elapsed)} so far).
                  </>
                ) : (
                  <>
                    Your timer runs on another issue since <time dateTime={t.started_at}>{dateTime(t.started_at)}</time>; starting here stops and logs it.
                  </>
                )}
              </p>
              {t?.issue_id !== issueId ? (
                <button type="button" disabled={busy} onClick={() => void start.run()}>
                  Start timer
                </button>
              ) : null}{' '}
              {t ? (
                <button type="button" disabled={busy} onClick={() => void stop.run()}>
                  Stop timer
                </button>
              ) : null}
            </>
          );
        }}
      </Show>
      <PlanNotice error={error} slug={slug} feature={FEATURE} />
      <ProblemView error={error} />
    </div>
  );
}

function EditWorklog({ w, path, onDone }: { w: Worklog; path: { slug: string; projectId: string; issueId: string }; onDone: (saved: boolean) => void }) {
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    await unwrap(
      api().PATCH('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/worklogs/{worklogId}/', {
        params: { path: { ...path, worklogId: w.id } },
        body: { duration_minutes: Number(v.duration_minutes), note: v.note ?? '', ...(v.started_at ? { started_at: fromLocalInput(v.started_at)! } : {}) },
      }),
    );
    onDone(true);
  });
  return (
    <ActionForm class="worklog-edit" action={save} submit="Save worklog" problem="after">
      <Field label="Duration (minutes)" errors={errorsAt(save.error, '/duration_minutes')}>
        {(id) => <input id={id} name="duration_minutes" type="number" min={1} max={1440} required defaultValue={String(w.duration_minutes)} />}
      </Field>
      <Field label="Started at (your time)" errors={errorsAt(save.error, '/started_at')}>
        {(id) => <input id={id} name="started_at" type="datetime-local" defaultValue={toLocalInput(w.started_at)} />}
      </Field>
      <Field label="Note" errors={errorsAt(save.error, '/note')}>
        {(id) => <input id={id} name="note" maxLength={2000} defaultValue={w.note} />}
      </Field>
      <button type="button" class="link" onClick={() => onDone(false)}>
        Cancel
      </button>
    </ActionForm>
  );
}

/** `onChanged` runs after time is logged, edited or deleted: the issue's time spent and remaining read anew. */
export function Worklogs({
  slug,
  projectId,
  issueId,
  version,
  onChanged,
}: {
  slug: string;
  projectId: string;
  issueId: string;
  version: number;
  onChanged: () => void;
}) {
  const path = { slug, projectId, issueId };
  const [offset, setOffset] = useState(0);
  const [editing, setEditing] = useState<string | null>(null);
  const who = useWho(slug);
  const list = useLoad(
    () =>
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/worklogs/', { params: { path, query: { offset, per_page: PER_PAGE } } })),
    [issueId, offset, version],
  );
  const changed = async () => {
    if (offset === 0) await list.reload();
    else setOffset(0);
    onChanged();
  };
  const log = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const startedAt = fromLocalInput(v.started_at);
    await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/worklogs/', {
        params: { path },
        body: { duration_minutes: Number(v.duration_minutes), ...(v.note ? { note: v.note } : {}), ...(startedAt ? { started_at: startedAt } : {}) },
      }),
    );
    form.reset();
    await changed();
  });
  const remove = useAction(async (id: string) => {
    await unwrap(
      api().DELETE('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/worklogs/{worklogId}/', { params: { path: { ...path, worklogId: id } } }),
    );
    await changed();
  });
  const me = who.data;
  return (
    <>
      <PlanNotice error={log.error ?? remove.error} slug={slug} feature={FEATURE} />
      <ActionForm class="log-time" action={log} submit="Log time" busyLabel="Logging…">
        <Field label="Duration (minutes)" hint="1 to 1440" errors={errorsAt(log.error, '/duration_minutes')}>
          {(id, describedBy) => <input id={id} name="duration_minutes" type="number" min={1} max={1440} required aria-describedby={describedBy} />}
        </Field>
        <Field label="Started at (your time)" hint="blank: now minus the duration" errors={errorsAt(log.error, '/started_at')}>
          {(id, describedBy) => <input id={id} name="started_at" type="datetime-local" aria-describedby={describedBy} />}
        </Field>
        <Field label="Note" errors={errorsAt(log.error, '/note')}>
          {(id) => <input id={id} name="note" maxLength={2000} />}
        </Field>
      </ActionForm>
      <ProblemView error={remove.error} />
      <Show state={list}>
        {(page) =>
          page.results.length ? (
            <>
              <ul class="worklogs">
                {page.results.map((w) => {
                  const mine = me && (me.id === w.user_id || me.admin);
                  return (
                    <li key={w.id}>
                      {editing === w.id ? (
                        <EditWorklog
                          w={w}
                          path={path}
                          onDone={(saved) => {
                            setEditing(null);
                            if (saved) void changed();
                          }}
                        />
                      ) : (
                        <>
                          <strong>{minutes(w.duration_minutes)}</strong> · {me?.names.get(w.user_id) ?? 'a member'} ·{' '}
                          <time dateTime={w.started_at}>{dateTime(w.started_at)}</time>
                          {w.note ? <p class="note">{w.note}</p> : null}
                          {mine ? (
                            <span class="actions">
                              <button type="button" class="link" aria-label={`Edit worklog of ${dateTime(w.started_at)}`} onClick={() => setEditing(w.id)}>
                                Edit
                              </button>{' '}
                              <ConfirmButton
                                class="link danger"
                                label={`Delete worklog of ${dateTime(w.started_at)}`}
                                question={`Delete ${minutes(w.duration_minutes)} logged ${dateTime(w.started_at)}?`}
                                disabled={remove.busy}
                                onConfirm={() => void remove.run(w.id)}
                              >
                                Delete
                              </ConfirmButton>
                            </span>
                          ) : null}
                        </>
                      )}
                    </li>
                  );
                })}
              </ul>
              <Pager offset={offset} perPage={PER_PAGE} shown={page.results.length} total={page.total} onPage={setOffset} label="Worklog pages" />
            </>
          ) : (
            <Empty>No time logged yet.</Empty>
          )
        }
      </Show>
    </>
  );
}
