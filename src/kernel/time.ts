/** Timestamps leave the service as ISO 8601 UTC with milliseconds and `Z`. */
export const iso = (at: Date): string => at.toISOString();
export const isoOrNull = (at: Date | null | undefined): string | null => (at ? at.toISOString() : null);

/** `YYYY-MM-DD` naming a day that exists (no 2026-02-30). */
export const isLocalDate = (value: string): boolean => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const at = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return at.getUTCFullYear() === Number(m[1]) && at.getUTCMonth() === Number(m[2]) - 1 && at.getUTCDate() === Number(m[3]);
};
