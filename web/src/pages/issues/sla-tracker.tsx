/**
 * The SLA block of an issue: for each target its due time (absolute, and relative to now; the full date on hover), and
 * where it stands in working time ("2 hr 10 min left", "breached 3 hr ago", "responded 5 min ago"); paused and at-risk
 * badges. Working time is the policy calendar's when it has one, else all time.
 */
import { api, unwrap } from '../../api.js';
import { dateTime, dateTimeLong, duration, relative } from '../../format.js';
import { Badge, Empty, Show, useLoad } from '../../ui.js';

type Tracker = Awaited<ReturnType<typeof loadTracker>>;
async function loadTracker(slug: string, issueId: string) {
  const { data, error, response } = await api().GET('/api/workspaces/{slug}/issues/{issueId}/sla/', { params: { path: { slug, issueId } } });
  if (response.status === 404 && (error as { code?: string } | undefined)?.code === 'sla_not_applicable') return null;
  return unwrap(Promise.resolve({ data, error, response }));
}

function At({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={dateTimeLong(iso)}>
      {dateTime(iso)}
    </time>
  );
}

/** Where one target stands: met (when), breached (how long ago, in working time), or open (working time left). */
function Standing({ label, breached, met, remaining }: { label: 'response' | 'resolution'; breached: boolean; met: string | null; remaining: number | null }) {
  const done = label === 'response' ? 'Responded' : 'Resolved';
  if (met)
    return (
      <>
        <Badge tone={breached ? 'bad' : 'ok'}>{breached ? `${done} late` : done}</Badge>{' '}
        <time dateTime={met} title={dateTimeLong(met)}>
          {relative(met)}
        </time>
      </>
    );
  if (breached)
    return (
      <>
        <Badge tone="bad">Breached</Badge> {remaining !== null && remaining < 0 ? `breached ${duration(-remaining)} ago` : null}
      </>
    );
  return (
    <>
      <Badge tone="info">Open</Badge> {remaining === null ? null : remaining < 0 ? `${duration(-remaining)} overdue` : `${duration(remaining)} left`}
    </>
  );
}

function TrackerView({ tracker }: { tracker: Tracker }) {
  if (!tracker) return <Empty>No SLA applies to this issue (no policy, or no rule for its priority).</Empty>;
  const targets = [
    ['response', tracker.response_due_at, tracker.response_breached, tracker.responded_at, tracker.response_remaining_seconds],
    ['resolution', tracker.resolution_due_at, tracker.resolution_breached, tracker.resolved_at, tracker.resolution_remaining_seconds],
  ] as const;
  return (
    <>
      <dl class="sla">
        {targets.map(([label, due, breached, met, remaining]) => [
          <dt key={`${label}-t`}>{label === 'response' ? 'Response due' : 'Resolution due'}</dt>,
          <dd key={`${label}-d`}>
            <At iso={due} /> <span class="muted">({relative(due)})</span>
            <br />
            <Standing label={label} breached={breached} met={met} remaining={remaining} />
          </dd>,
        ])}
      </dl>
      <p class="sla-notes">
        {tracker.paused ? <Badge tone="warn">Paused: the clocks wait while the issue is in a pausing state</Badge> : null}{' '}
        {tracker.at_risk ? <Badge tone="warn">At risk</Badge> : null}{' '}
        <small class="muted">
          {tracker.calendar_id ? 'Times left count working hours of the policy calendar.' : 'Times left count around the clock (no calendar).'}
        </small>
      </p>
    </>
  );
}

/** `version` changes when the page did something that can move the clocks (a comment, a change of state), to reload. */
export function SlaTracker({ slug, issueId, version }: { slug: string; issueId: string; version: string }) {
  const tracker = useLoad(() => loadTracker(slug, issueId), [issueId, version]);
  return <Show state={tracker}>{(t) => <TrackerView tracker={t} />}</Show>;
}
