/** The issue's history (section 11.3): what moved its SLA clocks, oldest first, in words. */
import { useState } from 'preact/hooks';
import { type Answer, api, unwrap, when } from '../../api.js';
import { type Label, LabelChip } from '../../components/label-chips.js';
import { minutesText } from '../../components/minutes.js';
import { Link } from '../../router.js';
import { Badge, Empty, Pager, Show, useLoad } from '../../ui.js';
import { issueKey } from './hierarchy.js';

type Entry = Answer<'getIssueHistory'>['results'][number];
type StateRef = { state_id: string; group: string; pauses_sla: boolean };
interface Names {
  users: Map<string, string>;
  states: Map<string, string>;
  policies: Map<string, string>;
  labels: Map<string, Label>;
  identifier: string | undefined;
  slug: string;
  projectId: string;
}
const PER_PAGE = 20;

const isStateRef = (v: unknown): v is StateRef => typeof v === 'object' && v !== null && 'state_id' in v;

function stateName(ref: StateRef, names: Names) {
  return (
    <>
      <strong>{names.states.get(ref.state_id) ?? 'a deleted state'}</strong> <span class="muted">({ref.group})</span>
    </>
  );
}

function policyName(id: unknown, names: Names): string {
  return typeof id === 'string' && id ? (names.policies.get(id) ?? 'a deleted policy') : 'the workspace default';
}

/** Another issue of the project (a parent), by its key and name; one that was deleted says so. */
function IssueRef({ id, names }: { id: string; names: Names }) {
  const { slug, projectId } = names;
  const issue = useLoad(
    () =>
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', { params: { path: { slug, projectId, issueId: id } } })).catch(
        () => null,
      ),
    [id],
  );
  const i = issue.data;
  if (i === undefined) return <>…</>;
  if (!i) return <>a deleted issue</>;
  return <Link to={`/w/${slug}/p/${projectId}/issues/${i.id}`}>{`${issueKey(names.identifier, i)} ${i.name}`}</Link>;
}

/** "the label Bug" / "the labels Bug, Feature", as chips. */
function labelList(ids: string[], names: Names) {
  return (
    <>
      {ids.length === 1 ? 'the label' : 'the labels'}{' '}
      {ids.map((id, n) => {
        const l = names.labels.get(id);
        return (
          <span key={id}>
            {n ? ' ' : null}
            {l ? <LabelChip label={l} /> : <span class="muted">a deleted label</span>}
          </span>
        );
      })}
    </>
  );
}

const idArray = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

const PLAN_LABELS: Record<string, string> = { start_date: 'start', target_date: 'target', estimate_minutes: 'original', remaining_minutes: 'remaining' };

/** "start none → 2026-12-01, target ..." for the fields of a planning entry that changed. */
function planText(from: unknown, to: unknown, keys: string[], show: (v: unknown) => string): string {
  const f = (from ?? {}) as Record<string, unknown>;
  const t = (to ?? {}) as Record<string, unknown>;
  const changed = keys.filter((k) => f[k] !== t[k]);
  return (changed.length ? changed : keys).map((k) => `${PLAN_LABELS[k] ?? k} ${show(f[k] ?? null)} → ${show(t[k] ?? null)}`).join(', ');
}

function describe(e: Entry, names: Names) {
  switch (e.kind) {
    case 'created': {
      const to = e.to as (StateRef & { priority?: string }) | null;
      return (
        <>
          created the issue{isStateRef(to) ? <> in {stateName(to, names)}</> : null}
          {to?.priority ? (
            <>
              , priority <span class={`prio ${to.priority}`}>{to.priority}</span>
            </>
          ) : null}
          {isStateRef(to) && to.pauses_sla ? (
            <>
              {' '}
              <Badge tone="warn">SLA paused</Badge>
            </>
          ) : null}
        </>
      );
    }
    case 'state': {
      const from = isStateRef(e.from) ? e.from : null;
      const to = isStateRef(e.to) ? e.to : null;
      return (
        <>
          moved it {from ? <>from {stateName(from, names)} </> : null}
          {to ? <>to {stateName(to, names)}</> : null}
          {to?.pauses_sla && !from?.pauses_sla ? (
            <>
              {' '}
              <Badge tone="warn">SLA paused</Badge>
            </>
          ) : null}
          {from?.pauses_sla && !to?.pauses_sla ? (
            <>
              {' '}
              <Badge tone="ok">SLA resumed</Badge>
            </>
          ) : null}
        </>
      );
    }
    case 'priority':
      return (
        <>
          changed the priority from <span class={`prio ${String(e.from)}`}>{String(e.from)}</span> to <span class={`prio ${String(e.to)}`}>{String(e.to)}</span>
        </>
      );
    case 'comment':
      return <>commented (a comment by someone other than the creator counts as a response)</>;
    case 'project_policy':
      return (
        <>
          changed the project's SLA policy from <strong>{policyName(e.from, names)}</strong> to <strong>{policyName(e.to, names)}</strong>
        </>
      );
    case 'dates':
      return <>changed the dates: {planText(e.from, e.to, ['start_date', 'target_date'], (v) => String(v ?? 'none'))}</>;
    case 'estimate':
      return (
        <>changed the estimate: {planText(e.from, e.to, ['estimate_minutes', 'remaining_minutes'], (v) => (v === null ? 'none' : minutesText(Number(v))))}</>
      );
    case 'labels': {
      const from = idArray(e.from);
      const to = idArray(e.to);
      const added = to.filter((id) => !from.includes(id));
      const removed = from.filter((id) => !to.includes(id));
      return (
        <>
          {added.length ? <>added {labelList(added, names)}</> : null}
          {added.length && removed.length ? ' and ' : null}
          {removed.length ? <>removed {labelList(removed, names)}</> : null}
        </>
      );
    }
    case 'parent': {
      const from = typeof e.from === 'string' ? e.from : null;
      const to = typeof e.to === 'string' ? e.to : null;
      if (!to)
        return (
          <>
            made it a top-level issue
            {from ? (
              <>
                {' '}
                (it was a sub-issue of <IssueRef id={from} names={names} />)
              </>
            ) : null}
          </>
        );
      return (
        <>
          made it a sub-issue of <IssueRef id={to} names={names} />
          {from ? (
            <>
              {' '}
              (before: <IssueRef id={from} names={names} />)
            </>
          ) : null}
        </>
      );
    }
    default:
      return <>{String((e as { kind: string }).kind)}</>;
  }
}

/** Paged (20 a page, oldest first); `version` changes when the page adds something (a comment), to reload. */
export function IssueHistory({ slug, projectId, issueId, version }: { slug: string; projectId: string; issueId: string; version: number }) {
  const [offset, setOffset] = useState(0);
  // Names for the ids the entries carry; a list that cannot be read (a guest and members) leaves the ids unnamed.
  const names = useLoad(async (): Promise<Names> => {
    const c = api();
    const path = { slug, projectId };
    const [members, states, policies, labels, project] = await Promise.all([
      unwrap(c.GET('/api/workspaces/{slug}/members/', { params: { path: { slug } } })).catch(() => []),
      unwrap(c.GET('/api/workspaces/{slug}/projects/{projectId}/states/', { params: { path } })).catch(() => []),
      unwrap(c.GET('/api/workspaces/{slug}/sla-policies/', { params: { path: { slug } } })).catch(() => []),
      unwrap(c.GET('/api/workspaces/{slug}/projects/{projectId}/labels/', { params: { path } })).catch(() => []),
      unwrap(c.GET('/api/workspaces/{slug}/projects/{projectId}/', { params: { path } })).catch(() => null),
    ]);
    return {
      users: new Map(members.map((m) => [m.user_id, m.display_name || m.email])),
      states: new Map(states.map((s) => [s.id, s.name])),
      policies: new Map(policies.map((p) => [p.id, p.name])),
      labels: new Map(labels.map((l) => [l.id, l])),
      identifier: project?.identifier,
      slug,
      projectId,
    };
  }, [slug, projectId]);
  const page = useLoad(
    () =>
      unwrap(
        api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/history/', {
          params: { path: { slug, projectId, issueId }, query: { offset, per_page: PER_PAGE } },
        }),
      ),
    [issueId, offset, version],
  );
  const n = names.data ?? { users: new Map(), states: new Map(), policies: new Map(), labels: new Map(), identifier: undefined, slug, projectId };
  return (
    <Show state={page}>
      {(p) =>
        p.results.length ? (
          <>
            <ol class="history" start={p.offset + 1}>
              {p.results.map((e) => (
                <li key={e.id}>
                  <span class="who">{e.actor_id ? (n.users.get(e.actor_id) ?? 'a former member') : 'The system'}</span> {describe(e, n)}
                  <br />
                  <small class="muted">
                    <time dateTime={e.at}>{when(e.at)}</time>
                  </small>
                </li>
              ))}
            </ol>
            <Pager offset={offset} perPage={PER_PAGE} shown={p.results.length} total={p.total} onPage={setOffset} label="History pages" />
          </>
        ) : (
          <Empty>No history yet.</Empty>
        )
      }
    </Show>
  );
}
