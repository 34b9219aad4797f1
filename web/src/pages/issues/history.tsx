/**
 * The issue's history (section 11.3) in words, for the activity feed (activity.tsx): what moved its SLA clocks, its
 * plan, labels and parent; every page of it, and the names for the ids its entries carry.
 */
import { type Answer, api, unwrap } from '../../api.js';
import { issueKey, loadMembers, loadProjectMeta, PriorityIcon } from '../../components/issue-bits.js';
import { type Label, LabelChip } from '../../components/label-chips.js';
import { date, minutes } from '../../format.js';
import { Link } from '../../router.js';
import { Badge, useLoad } from '../../ui.js';

export type Entry = Answer<'getIssueHistory'>['results'][number];
type StateRef = { state_id: string; group: string; pauses_sla: boolean };
export interface Names {
  users: Map<string, string>;
  states: Map<string, string>;
  policies: Map<string, string>;
  labels: Map<string, Label>;
  identifier: string | undefined;
  slug: string;
  projectId: string;
}
const PER_PAGE = 100;
/** At most this many pages are read: the first (the creation) and the newest others. */
const MAX_PAGES = 20;

const isStateRef = (v: unknown): v is StateRef => typeof v === 'object' && v !== null && 'state_id' in v;

function stateName(ref: StateRef, names: Names) {
  return (
    <>
      <strong>{names.states.get(ref.state_id) ?? 'a deleted state'}</strong>
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
  return <Link to={`/w/${slug}/p/${projectId}/issues/${i.id}`}>{`${issueKey(names.identifier, i.sequence_id)} ${i.name}`}</Link>;
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

/** What an entry did, in words (after the actor's name). */
export function describe(e: Entry, names: Names) {
  switch (e.kind) {
    case 'created': {
      const to = e.to as (StateRef & { priority?: string }) | null;
      return (
        <>
          created the issue{isStateRef(to) ? <> in {stateName(to, names)}</> : null}
          {to?.priority ? (
            <>
              , priority <PriorityIcon priority={to.priority} withText />
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
          changed the priority from <PriorityIcon priority={String(e.from)} withText /> to <PriorityIcon priority={String(e.to)} withText />
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
      return <>changed the dates: {planText(e.from, e.to, ['start_date', 'target_date'], (v) => (v ? date(String(v)) : 'none'))}</>;
    case 'estimate':
      return <>changed the estimate: {planText(e.from, e.to, ['estimate_minutes', 'remaining_minutes'], (v) => (v === null ? 'none' : minutes(Number(v))))}</>;
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

/** Names for the ids the entries carry; a list that cannot be read (a guest and members) leaves the ids unnamed. */
export function useHistoryNames(slug: string, projectId: string) {
  return useLoad(async (): Promise<Names> => {
    const path = { slug, projectId };
    const [members, meta, policies, labels] = await Promise.all([
      loadMembers(slug).catch(() => new Map<string, { display_name: string; email: string }>()),
      loadProjectMeta(slug, projectId).catch(() => null),
      unwrap(api().GET('/api/workspaces/{slug}/sla-policies/', { params: { path: { slug } } })).catch(() => []),
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/labels/', { params: { path } })).catch(() => []),
    ]);
    return {
      users: new Map([...members].map(([id, m]) => [id, m.display_name || m.email])),
      states: new Map((meta?.states ?? []).map((s) => [s.id, s.name])),
      policies: new Map(policies.map((p) => [p.id, p.name])),
      labels: new Map(labels.map((l) => [l.id, l])),
      identifier: meta?.project.identifier,
      slug,
      projectId,
    };
  }, [slug, projectId]);
}

/** The issue's history, oldest first: the first page says how many follow; they load together. */
export async function loadHistory(slug: string, projectId: string, issueId: string): Promise<Entry[]> {
  const page = (offset: number) =>
    unwrap(
      api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/history/', {
        params: { path: { slug, projectId, issueId }, query: { offset, per_page: PER_PAGE } },
      }),
    );
  const first = await page(0);
  const pages = Math.ceil(first.total / PER_PAGE);
  const from = Math.max(1, pages - (MAX_PAGES - 1));
  const rest = await Promise.all(Array.from({ length: Math.max(0, pages - from) }, (_, n) => page((from + n) * PER_PAGE)));
  return [first, ...rest].flatMap((p) => p.results);
}
