/**
 * The rows of the SLA boards (issue 41): each tracker as its issue by key and name (a link), its project, its priority,
 * and each target's time relative to now in words ("Response breached 3 hr ago", "Resolution: 2 hr 10 min left of
 * working time") with the absolute instant on hover.
 */
import type { Answer } from '../../api.js';
import { Link } from '../../router.js';
import { type Column, DataTable } from '../../components/data-table.js';
import { issueKey, PriorityIcon } from '../../components/issue-bits.js';
import { codeName, dateTimeLong, duration } from '../../format.js';

export type Tracker = Answer<'listSlaBreached'>['results'][number];
export type Project = Answer<'listProjects'>[number];
type Target = 'response' | 'resolution';

const seconds = (from: string, now: Date) => (now.getTime() - new Date(from).getTime()) / 1000;

/** An instant in words relative to now ("3 hr ago"), its full date and time on hover. */
function Ago({ at, now }: { at: string; now: Date }) {
  const s = seconds(at, now);
  return (
    <time dateTime={at} title={dateTimeLong(at)}>
      {s >= 0 ? `${duration(s)} ago` : `in ${duration(s)}`}
    </time>
  );
}

/** One target of a tracker: breached (when), met (when), or the time left (working time where a calendar counts). */
function TargetLine({ t, target, now }: { t: Tracker; target: Target; now: Date }) {
  const due = target === 'response' ? t.response_due_at : t.resolution_due_at;
  const done = target === 'response' ? t.responded_at : t.resolved_at;
  const breached = target === 'response' ? t.response_breached : t.resolution_breached;
  const left = target === 'response' ? t.response_remaining_seconds : t.resolution_remaining_seconds;
  const name = codeName(target);
  if (breached)
    return (
      <span class="target breached">
        <strong>{name}</strong> breached <Ago at={due} now={now} />
      </span>
    );
  if (done)
    return (
      <span class="target met">
        {name} met <Ago at={done} now={now} />
      </span>
    );
  return (
    <span class="target left">
      {name}:{' '}
      <time dateTime={due} title={`Due ${dateTimeLong(due)}`}>
        {duration(left)} left{t.calendar_id ? ' of working time' : ''}
      </time>
      {t.paused ? ' (paused)' : ''}
    </span>
  );
}

/** The issue by key and name, linking to it. */
function IssueCell({ slug, t, project }: { slug: string; t: Tracker; project: Project | undefined }) {
  return (
    <Link class="issue-link" to={`/w/${slug}/p/${t.issue.project_id}/issues/${t.issue.id}`}>
      <span class="issue-key">{issueKey(project?.identifier, t.issue.sequence_id)}</span> {t.issue.name}
    </Link>
  );
}

/** Breached targets first (the earlier breach first), then open ones (the least time left first), then met ones. */
function targetsOf(t: Tracker): Target[] {
  const rank = (target: Target): [number, number] => {
    const r = target === 'response';
    if (r ? t.response_breached : t.resolution_breached) return [0, new Date(r ? t.response_due_at : t.resolution_due_at).getTime()];
    const left = r ? t.response_remaining_seconds : t.resolution_remaining_seconds;
    return left === null ? [2, 0] : [1, left];
  };
  return (['response', 'resolution'] as const).slice().sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return x[0] - y[0] || x[1] - y[1];
  });
}

export function TrackerTable({
  slug,
  rows,
  projects,
  now,
  label,
}: {
  slug: string;
  rows: Tracker[];
  projects: ReadonlyMap<string, Project>;
  now: Date;
  label: string;
}) {
  const columns: Column<Tracker>[] = [
    { header: 'Issue', cell: (t) => <IssueCell slug={slug} t={t} project={projects.get(t.issue.project_id)} /> },
    {
      header: 'Targets',
      cell: (t) => (
        <ul class="targets">
          {targetsOf(t).map((target) => (
            <li key={target}>
              <TargetLine t={t} target={target} now={now} />
            </li>
          ))}
        </ul>
      ),
    },
    { header: 'Priority', cell: (t) => <PriorityIcon priority={t.issue.priority} withText /> },
    { header: 'Project', cell: (t) => projects.get(t.issue.project_id)?.name ?? '—' },
  ];
  return (
    <div class="sla-table">
      <DataTable columns={columns} rows={rows} rowKey={(t) => t.id} label={label} />
    </div>
  );
}
