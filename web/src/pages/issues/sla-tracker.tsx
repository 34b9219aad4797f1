/** The SLA panel of an issue: due times, remaining working time, and breach, paused and at-risk badges. */
import { api, unwrap, when } from '../../api.js';
import { Badge, Empty, Show, useLoad } from '../../ui.js';

type Tracker = Awaited<ReturnType<typeof loadTracker>>;
async function loadTracker(slug: string, issueId: string) {
  const { data, error, response } = await api().GET('/api/workspaces/{slug}/issues/{issueId}/sla/', { params: { path: { slug, issueId } } });
  if (response.status === 404 && (error as { code?: string } | undefined)?.code === 'sla_not_applicable') return null;
  return unwrap(Promise.resolve({ data, error, response }));
}

/** Whole seconds as "2 h 05 min" (working time); negative: overdue. */
export function duration(seconds: number): string {
  const abs = Math.abs(seconds);
  const h = Math.floor(abs / 3600);
  const m = Math.floor((abs % 3600) / 60);
  const text = h ? `${h} h ${String(m).padStart(2, '0')} min` : m ? `${m} min` : `${abs % 60} s`;
  return seconds < 0 ? `${text} overdue` : `${text} left`;
}

function TrackerView({ tracker }: { tracker: Tracker }) {
  if (!tracker) return <Empty>No SLA applies to this issue (no policy, or no rule for its priority).</Empty>;
  const remaining = (seconds: number | null) => (seconds === null ? null : <span class="muted"> · {duration(seconds)} of working time</span>);
  return (
    <dl class="sla">
      <div>
        <dt>Response due</dt>
        <dd>
          {when(tracker.response_due_at)}{' '}
          {tracker.response_breached ? (
            <Badge tone="bad">response breached</Badge>
          ) : tracker.responded_at ? (
            <Badge tone="ok">responded {when(tracker.responded_at)}</Badge>
          ) : (
            <Badge tone="info">open</Badge>
          )}
          {remaining(tracker.response_remaining_seconds)}
        </dd>
      </div>
      <div>
        <dt>Resolution due</dt>
        <dd>
          {when(tracker.resolution_due_at)}{' '}
          {tracker.resolution_breached ? (
            <Badge tone="bad">resolution breached</Badge>
          ) : tracker.resolved_at ? (
            <Badge tone="ok">resolved {when(tracker.resolved_at)}</Badge>
          ) : (
            <Badge tone="info">open</Badge>
          )}
          {remaining(tracker.resolution_remaining_seconds)}
        </dd>
      </div>
      {tracker.paused ? <Badge tone="warn">paused: the clocks wait while the issue is in a pausing state</Badge> : null}{' '}
      {tracker.at_risk ? <Badge tone="warn">at risk</Badge> : null}{' '}
      <small class="muted">{tracker.calendar_id ? 'Counted in working hours of the policy calendar' : 'Counted around the clock (no calendar)'}</small>
    </dl>
  );
}

/** `version` changes when the page did something that can move the clocks (a comment), to reload. */
export function SlaTracker({ slug, issueId, version }: { slug: string; issueId: string; version: number }) {
  const tracker = useLoad(() => loadTracker(slug, issueId), [issueId, version]);
  return <Show state={tracker}>{(t) => <TrackerView tracker={t} />}</Show>;
}
