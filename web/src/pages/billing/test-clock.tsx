/**
 * The sandbox's test clock (contract 19.7): the workspace's billing time and "Advance", which runs every billing duty
 * due meanwhile (renewals, retries, grace ends). The API answers 404 unless the provider is the sandbox: then nothing
 * shows.
 */
import { api, ApiError, unwrap } from '../../api.js';
import { ActionForm } from '../../components/action-form.js';
import { Card, Facts } from '../../components/facts.js';
import { dateTime, duration } from '../../format.js';
import { errorsAt, Field, formValues, ProblemView, useAction, useLoad } from '../../ui.js';

const HOUR = 3_600_000;

/** A `datetime-local` value (the browser's local time, to the minute). */
function localInput(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * `periodEnd`: the subscription's current period end, so that the suggested time is just past it (the renewal runs);
 * without one, a day ahead. `onAdvanced` reloads what the duties may have changed.
 */
export function TestClock({ slug, periodEnd, version, onAdvanced }: { slug: string; periodEnd: string | null; version: number; onAdvanced: () => void }) {
  const path = { slug };
  const clock = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/billing/test-clock/', { params: { path } })), [slug, version]);
  const advance = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const to = new Date(v.to ?? '');
    if (Number.isNaN(to.getTime())) throw new Error('Pick the date and time to advance to.');
    await unwrap(api().POST('/api/workspaces/{slug}/billing/test-clock/advance/', { params: { path }, body: { to: to.toISOString() } }));
    onAdvanced();
  });
  if (clock.error instanceof ApiError && clock.error.status === 404) return null;
  if (clock.error) return <ProblemView error={clock.error} />;
  const c = clock.data;
  if (!c) return null;
  const now = new Date(c.now);
  const end = periodEnd ? new Date(periodEnd) : null;
  const suggested = end && end > now ? new Date(end.getTime() + HOUR) : new Date(now.getTime() + 24 * HOUR);
  return (
    <section aria-labelledby="test-clock-title">
      <h2 id="test-clock-title">Test clock (sandbox)</h2>
      <Card>
        <p class="muted">Moves this workspace's billing time forward and runs what falls due meanwhile: renewals, retries, grace ends. Never back.</p>
        <Facts
          live
          items={[
            ['Billing time', dateTime(c.now)],
            ['Ahead of real time', c.offset_seconds > 0 ? duration(c.offset_seconds) : 'not ahead'],
          ]}
        />
        <ActionForm key={`${c.now}|${periodEnd ?? ''}`} class="inline" action={advance} submit="Advance" busyLabel="Advancing…" problem="outside">
          <Field label="Advance to" errors={errorsAt(advance.error, '/to')}>
            {(id, by) => <input id={id} name="to" type="datetime-local" required defaultValue={localInput(suggested)} aria-describedby={by} />}
          </Field>
        </ActionForm>
      </Card>
    </section>
  );
}
