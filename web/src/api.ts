/** The console's one door to the service: the typed client of client/ (same origin) and the sign-in token. */
import { ApiError, createClient, unwrap, type WorkItemClient } from '../../client/src/index.js';

export { ApiError, unwrap };
export type { components, operations, paths } from '../../client/src/index.js';
import type { operations } from '../../client/src/index.js';
import { dateTime } from './format.js';

type Json<R> = R extends { content: { 'application/json': infer J } } ? J : never;
/** The JSON answer of an operation of the client, e.g. `Answer<'listWebhooks'>[number]`, `Answer<'createWebhook', 201>`. */
export type Answer<Op extends keyof operations, S extends PropertyKey = 200> = operations[Op]['responses'] extends Record<S, infer R> ? Json<R> : never;

const TOKEN_KEY = 'wis.console.token';

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

/** A client for the current token (or none, for sign-up and sign-in). */
export function api(): WorkItemClient {
  const token = getToken();
  return createClient({ baseUrl: location.origin, ...(token ? { token } : {}) });
}

/** Money in minor units as the API sends it, shown in major units. */
export function money(minor: number | null | undefined, currency: string): string {
  if (minor === null || minor === undefined) return '—';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(minor / 100);
  } catch {
    return `${(minor / 100).toFixed(2)} ${currency}`;
  }
}

/** An instant as the console shows it everywhere (`format.dateTime`); kept for the pages that call it by this name. */
export const when = dateTime;

export const STATE_GROUPS = ['backlog', 'unstarted', 'started', 'completed', 'cancelled'] as const;
export const PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const;
