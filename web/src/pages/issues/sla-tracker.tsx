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

/** One target (response or resolution): when it is due, breached / met / open, and the working time left. */
function Target({
  label,
  due,
  breached,
  met,
  remaining,
}: {
  label: 'response' | 'resolution';
  due: string;
  breached: boolean;
  met: string | null;
  remaining: number | null;
}) {
  return (
    <div>
      <dt>{label === 'response' ? 'Response due' : 'Resolution due'}</dt>
      <dd>
        {when(due)}{' '}
        {breached ? (
          <Badge tone="bad">{label} breached</Badge>
        ) : met ? (
          <Badge tone="ok">
            {label === 'response' ? 'responded' : 'resolved'} {when(met)}
          </Badge>
        ) : (
          <Badge tone="info">open</Badge>
        )}
        {remaining === null ? null : <span class="muted"> · {duration(remaining)} of working time</span>}
      </dd>
    </div>
  );
}

function TrackerView({ tracker }: { tracker: Tracker }) {
  if (!tracker) return <Empty>No SLA applies to this issue (no policy, or no rule for its priority).</Empty>;
  return (
    <>
      <dl class="sla">
        <Target
          label="response"
          due={tracker.response_due_at}
          breached={tracker.response_breached}
          met={tracker.responded_at}
          remaining={tracker.response_remaining_seconds}
        />
        <Target
          label="resolution"
          due={tracker.resolution_due_at}
          breached={tracker.resolution_breached}
          met={tracker.resolved_at}
          remaining={tracker.resolution_remaining_seconds}
        />
      </dl>
      <p class="sla-notes">
        {tracker.paused ? <Badge tone="warn">paused: the clocks wait while the issue is in a pausing state</Badge> : null}{' '}
        {tracker.at_risk ? <Badge tone="warn">at risk</Badge> : null}{' '}
        <small class="muted">{tracker.calendar_id ? 'Counted in working hours of the policy calendar' : 'Counted around the clock (no calendar)'}</small>
      </p>
    </>
  );
}

/** `version` changes when the page did something that can move the clocks (a comment), to reload. */
export function SlaTracker({ slug, issueId, version }: { slug: string; issueId: string; version: number }) {
  const tracker = useLoad(() => loadTracker(slug, issueId), [issueId, version]);
  return <Show state={tracker}>{(t) => <TrackerView tracker={t} />}</Show>;
}
