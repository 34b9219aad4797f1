/** Minutes as people read them, a minutes field, and the notice for a feature the workspace's plan lacks. */
import { ApiError } from '../api.js';
import { minutes } from '../format.js';
import { Link } from '../router.js';

/** Minutes as people read them ("1 hr 30 min", "45 min"): `format.minutes`. */
export const minutesText = minutes;

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
