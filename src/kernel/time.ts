/** Timestamps leave the service as ISO 8601 UTC with milliseconds and `Z`. */
export const iso = (at: Date): string => at.toISOString();
export const isoOrNull = (at: Date | null | undefined): string | null => (at ? at.toISOString() : null);
