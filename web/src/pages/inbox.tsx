/**
 * The inbox (contract 26.2, 26.6): the caller's notifications across workspaces, filtered by workspace and kind and
 * split in tabs (unread, all, archived) — all in the URL —, each a sentence linking to its issue; read (one or all),
 * archive and unarchive, snooze (an hour, tomorrow 9:00, a chosen time).
 */
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api.js';
import { SelectField } from '../components/options.js';
import { dateTimeLong, fromLocalInput, localInput, relative, time, today } from '../format.js';
import { describe, isKind, KIND_LABELS, KINDS, type Notification, noticesChanged } from '../notices.js';
import { href, navigate } from '../router.js';
import { Empty, Field, Loading, Pager, PageTitle, ProblemView, useAction, useLoad } from '../ui.js';

const TABS = [
  ['unread', 'Unread'],
  ['all', 'All'],
  ['archived', 'Archived'],
] as const;
type Tab = (typeof TABS)[number][0];
const PER_PAGE = 20;

/** The console path of a notification: its issue, or (no issue: an invitation) its workspace. */
export function noticePath(n: Notification): string {
  const projectId = typeof n.data?.project_id === 'string' ? n.data.project_id : undefined;
  if (n.issue && projectId) return `/w/${n.workspace_slug}/p/${projectId}/issues/${n.issue.id}`;
  return `/w/${n.workspace_slug}`;
}

/** 9:00 tomorrow in the user's time zone. */
function tomorrowAtNine(): Date {
  const next = new Date(`${today()}T12:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return fromLocalInput(`${next.toISOString().slice(0, 10)}T09:00`);
}

export function Inbox({ query }: { query: URLSearchParams }) {
  const tab: Tab = (TABS.find(([t]) => t === query.get('tab'))?.[0] ?? 'unread') as Tab;
  const workspace = query.get('workspace') ?? '';
  const kind = query.get('kind') ?? '';
  const offset = Math.max(0, Number(query.get('offset')) || 0);
  const setQuery = (changes: Record<string, string>) => {
    const next = new URLSearchParams(query);
    for (const [k, v] of Object.entries(changes)) {
      if (v && !(k === 'tab' && v === 'unread')) next.set(k, v);
      else next.delete(k);
    }
    if (!('offset' in changes)) next.delete('offset');
    const qs = next.toString();
    navigate(`/inbox${qs ? `?${qs}` : ''}`);
  };
  const workspaces = useLoad(() => unwrap(api().GET('/api/workspaces/')), []);
  const list = useLoad(
    () =>
      unwrap(
        api().GET('/api/users/me/notifications/', {
          params: {
            query: {
              ...(tab === 'unread' ? { unread: true } : {}),
              ...(tab === 'archived' ? { archived: true } : {}),
              ...(workspace ? { workspace } : {}),
              ...(isKind(kind) ? { kind } : {}),
              offset,
              per_page: PER_PAGE,
            },
          },
        }),
      ),
    [tab, workspace, kind, offset],
  );
  const changed = async () => {
    noticesChanged();
    await list.reload();
  };
  const act = useAction(async (call: () => Promise<unknown>) => {
    await call();
    await changed();
  });
  const one = (n: Notification, what: 'archive' | 'unarchive') =>
    act.run(() =>
      unwrap(
        what === 'archive'
          ? api().POST('/api/users/me/notifications/{notificationId}/archive/', { params: { path: { notificationId: n.id } } })
          : api().POST('/api/users/me/notifications/{notificationId}/unarchive/', { params: { path: { notificationId: n.id } } }),
      ),
    );
  const snooze = (n: Notification, until: Date) =>
    act.run(() =>
      unwrap(
        api().POST('/api/users/me/notifications/{notificationId}/snooze/', {
          params: { path: { notificationId: n.id } },
          body: { until: until.toISOString() },
        }),
      ),
    );
  const read = (body: { ids: string[] } | { all: true; workspace?: string }) => unwrap(api().POST('/api/users/me/notifications/read/', { body }));
  const readAll = () => act.run(() => read({ all: true, ...(workspace ? { workspace } : {}) }));
  const page = list.data;
  const workspaceNames = new Map((workspaces.data ?? []).map((w) => [w.slug, w.name]));
  return (
    <section class="inbox">
      <PageTitle
        actions={
          tab !== 'archived' ? (
            <button type="button" class="secondary" disabled={act.busy || !page?.unread_count} onClick={() => void readAll()}>
              Mark all read
            </button>
          ) : null
        }
      >
        Inbox
      </PageTitle>
      <nav class="tabs" aria-label="Inbox tabs">
        <ul>
          {TABS.map(([t, label]) => (
            <li key={t}>
              <a
                href={href(`/inbox?${new URLSearchParams({ ...(workspace ? { workspace } : {}), ...(kind ? { kind } : {}), tab: t })}`)}
                aria-current={t === tab ? 'page' : undefined}
                onClick={(e) => {
                  e.preventDefault();
                  setQuery({ tab: t });
                }}
              >
                {label}
                {t === 'unread' && page ? ` (${page.unread_count})` : ''}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          label="Workspace"
          all="All workspaces"
          value={workspace}
          items={(workspaces.data ?? []).map((w) => [w.slug, w.name] as const)}
          onChange={(v) => setQuery({ workspace: v })}
        />
        <SelectField label="Kind" all="All kinds" value={kind} items={KINDS.map((k) => [k, KIND_LABELS[k]] as const)} onChange={(v) => setQuery({ kind: v })} />
      </form>
      <ProblemView error={act.error} />
      {list.error ? (
        <ProblemView error={list.error} />
      ) : !page ? (
        <Loading />
      ) : page.results.length === 0 ? (
        <Empty>{tab === 'unread' ? 'You are all caught up: nothing unread.' : tab === 'archived' ? 'Nothing archived.' : 'No notifications yet.'}</Empty>
      ) : (
        <>
          <ul class="notices" aria-label="Notifications">
            {page.results.map((n) => (
              <NoticeItem
                key={n.id}
                n={n}
                workspaceName={workspaceNames.get(n.workspace_slug) ?? n.workspace_slug}
                busy={act.busy}
                onRead={() => void act.run(() => read({ ids: [n.id] }))}
                onArchive={() => void one(n, n.archived_at ? 'unarchive' : 'archive')}
                onSnooze={(until) => void snooze(n, until)}
              />
            ))}
          </ul>
          <Pager
            offset={offset}
            perPage={PER_PAGE}
            shown={page.results.length}
            total={page.total}
            onPage={(o) => setQuery({ offset: o ? String(o) : '' })}
            label="Notification pages"
          />
        </>
      )}
    </section>
  );
}

function NoticeItem({
  n,
  workspaceName,
  busy,
  onRead,
  onArchive,
  onSnooze,
}: {
  n: Notification;
  workspaceName: string;
  busy: boolean;
  onRead: () => void;
  onArchive: () => void;
  onSnooze: (until: Date) => void;
}) {
  const { text, detail } = describe(n);
  const to = noticePath(n);
  const unread = !n.read_at;
  const [at, setAt] = useState(() => localInput(tomorrowAtNine()));
  return (
    <li class={unread ? 'notice-item unread' : 'notice-item'}>
      <div class="notice-text">
        {unread ? <span class="sr-only">Unread: </span> : null}
        <a
          href={href(to)}
          onClick={(e) => {
            if (e.button || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
            e.preventDefault();
            if (unread) void unwrap(api().POST('/api/users/me/notifications/read/', { body: { ids: [n.id] } })).then(noticesChanged, () => undefined);
            navigate(to);
          }}
        >
          {text}
        </a>
        {detail ? <p class="notice-detail">{detail}</p> : null}
        <small>
          <span class="notice-ws">{workspaceName}</span> ·{' '}
          <time dateTime={n.created_at} title={dateTimeLong(n.created_at)}>
            {relative(n.created_at)}
          </time>
        </small>
      </div>
      <div class="notice-actions">
        {unread ? (
          <button type="button" class="link" disabled={busy} onClick={onRead}>
            Mark read
          </button>
        ) : null}
        <button type="button" class="link" disabled={busy} onClick={onArchive}>
          {n.archived_at ? 'Unarchive' : 'Archive'}
        </button>
        {n.archived_at ? null : (
          <details class="snooze">
            <summary>Snooze</summary>
            <div class="snooze-menu">
              <button type="button" class="link" disabled={busy} onClick={() => onSnooze(new Date(Date.now() + 3_600_000))}>
                1 hour
              </button>
              <button type="button" class="link" disabled={busy} onClick={() => onSnooze(tomorrowAtNine())}>
                Tomorrow {time(tomorrowAtNine())}
              </button>
              <Field label="Until">{(id) => <input id={id} type="datetime-local" value={at} onInput={(e) => setAt(e.currentTarget.value)} />}</Field>
              <button type="button" class="secondary" disabled={busy || !at} onClick={() => onSnooze(fromLocalInput(at))}>
                Snooze until then
              </button>
            </div>
          </details>
        )}
      </div>
    </li>
  );
}
