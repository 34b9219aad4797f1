/** Minutes as people read them ("1 h 30 min"), and the notice for a feature the workspace's plan lacks. */
import { ApiError } from '../api.js';
import { Link } from '../router.js';

export function minutesText(minutes: number | null | undefined): string {
  if (minutes === null || minutes === undefined) return '—';
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (!h) return `${m} min`;
  return m ? `${h} h ${m} min` : `${h} h`;
}

/** A number of minutes from a form field: blank is null (no value), anything else a whole number. */
export function minutesField(value: string | undefined): number | null {
  const v = (value ?? '').trim();
  return v === '' ? null : Number(v);
}

/**
 * 402 `feature_not_in_plan` said plainly, with the way out (billing); the API's own problem shows next to it. Renders
 * nothing for any other error.
 */
export function PlanNotice({ error, slug, feature }: { error: unknown; slug: string; feature: string }) {
  if (!(error instanceof ApiError) || error.status !== 402) return null;
  return (
    <p class="plan-notice" role="status">
      <strong>{feature} is not in this workspace's plan.</strong> Reading keeps working; to log time, start a trial or change the plan in{' '}
      <Link to={`/w/${slug}/billing`}>Billing</Link>.
    </p>
  );
}
