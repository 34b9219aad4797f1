/**
 * The small pieces every issue view shares (issue 41): its key (`SD-98`), its state by name in the state's colour, a
 * priority icon, the assignees' initials, and the project's identifier, states and the workspace's members, loaded
 * once per page visit and shared by every view that asks (a cache keyed by workspace and project).
 */
import { type Answer, api, unwrap } from '../api.js';
import { codeName } from '../format.js';
import { useLoad } from '../ui.js';
import './issue-bits.css';

export type Project = Answer<'getProject'>;
export type State = Answer<'listStates'>[number];
export type Member = Answer<'listMembers'>[number];

/** `SD-98`: the project's identifier and the issue's sequence number. */
export function issueKey(identifier: string | undefined, sequenceId: number): string {
  return identifier ? `${identifier}-${sequenceId}` : `#${sequenceId}`;
}

export function IssueKey({ identifier, sequenceId }: { identifier: string | undefined; sequenceId: number }) {
  return <span class="issue-key">{issueKey(identifier, sequenceId)}</span>;
}

/** A state by its name, with a dot in its colour; the group is the tooltip. */
export function StateBadge({ state, group }: { state: Pick<State, 'name' | 'color'> | undefined; group?: string }) {
  return (
    <span class="state-badge" title={group ? codeName(group) : undefined}>
      <span class="dot" style={{ background: state?.color ?? '#8a94a6' }} aria-hidden="true" />
      {state?.name ?? codeName(group)}
    </span>
  );
}

const BARS: Record<string, number> = { urgent: 4, high: 3, medium: 2, low: 1, none: 0 };
/** A priority as an icon (bars; urgent an exclamation mark) with its name for assistive technology and on hover. */
export function PriorityIcon({ priority, withText = false }: { priority: string; withText?: boolean }) {
  const name = codeName(priority);
  const bars = BARS[priority] ?? 0;
  return (
    <span class={`priority p-${priority}`} title={`Priority: ${name}`}>
      <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
        {priority === 'urgent' ? (
          <>
            <rect x="1" y="1" width="14" height="14" rx="3" />
            <rect class="mark" x="7" y="3.5" width="2" height="6" rx="1" />
            <rect class="mark" x="7" y="11" width="2" height="2" rx="1" />
          </>
        ) : (
          [1, 2, 3].map((i) => <rect key={i} class={i <= bars ? 'on' : 'off'} x={i * 4 - 2} y={13 - i * 3.5} width="3" height={i * 3.5} rx="1" />)
        )}
      </svg>
      {withText ? <span>{name}</span> : <span class="sr-only">Priority: {name}</span>}
    </span>
  );
}

/** Initials of a member: "Ada Lovelace" → "AL", "grace@x.io" → "G". */
export function initials(member: Pick<Member, 'display_name' | 'email'> | undefined): string {
  const name = (member?.display_name || member?.email || '?').trim();
  const parts = name.split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? parts[0]![0]! + parts[parts.length - 1]![0]! : name[0]!;
  return letters.toUpperCase();
}

/** The assignees as overlapping initials; their names for assistive technology and on hover. */
export function Assignees({ ids, members, max = 3 }: { ids: readonly string[]; members: ReadonlyMap<string, Member> | undefined; max?: number }) {
  if (!ids.length) return <span class="muted assignees-none">Unassigned</span>;
  const names = ids.map((id) => members?.get(id)?.display_name ?? 'a former member');
  return (
    <span class="assignees" title={names.join(', ')} role="img" aria-label={`Assignees: ${names.join(', ')}`}>
      {ids.slice(0, max).map((id) => (
        <span key={id} class="avatar" aria-hidden="true">
          {initials(members?.get(id))}
        </span>
      ))}
      {ids.length > max ? (
        <span class="avatar more" aria-hidden="true">
          +{ids.length - max}
        </span>
      ) : null}
    </span>
  );
}

interface ProjectMeta {
  project: Project;
  states: State[];
  stateById: Map<string, State>;
}
const projectCache = new Map<string, Promise<ProjectMeta>>();
const memberCache = new Map<string, Promise<Map<string, Member>>>();

/** The project and its states (in the project's order), loaded once; `fresh` drops the cached copy (after an edit). */
export function loadProjectMeta(slug: string, projectId: string, fresh = false): Promise<ProjectMeta> {
  const key = `${slug}/${projectId}`;
  let p = fresh ? undefined : projectCache.get(key);
  if (!p) {
    const path = { slug, projectId };
    p = Promise.all([
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/', { params: { path } })),
      unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/states/', { params: { path } })),
    ]).then(([project, states]) => ({ project, states, stateById: new Map(states.map((s) => [s.id, s])) }));
    p.catch(() => projectCache.delete(key));
    projectCache.set(key, p);
  }
  return p;
}

/** The workspace's members by user id, loaded once. */
export function loadMembers(slug: string, fresh = false): Promise<Map<string, Member>> {
  let p = fresh ? undefined : memberCache.get(slug);
  if (!p) {
    p = unwrap(api().GET('/api/workspaces/{slug}/members/', { params: { path: { slug } } })).then((ms) => new Map(ms.map((m) => [m.user_id, m])));
    p.catch(() => memberCache.delete(slug));
    memberCache.set(slug, p);
  }
  return p;
}

export function useProjectMeta(slug: string, projectId: string) {
  return useLoad(() => loadProjectMeta(slug, projectId), [slug, projectId]);
}

export function useMembers(slug: string) {
  return useLoad(() => loadMembers(slug), [slug]);
}
