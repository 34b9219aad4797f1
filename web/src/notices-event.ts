/**
 * The few pieces of "being told" (contract 26) the main bundle needs (the bell): a client for the paths the typed
 * client does not know yet, and the event that tells the bell to count again. The rest lives in notices.ts (a chunk).
 */
import { api } from './api.js';

/** Paths of contract 26 that the typed client does not know yet (until `npm run client:generate` sees their routes). */
type Call = (
  path: string,
  init?: { params?: { path?: Record<string, string>; query?: Record<string, unknown> }; body?: unknown },
) => Promise<{ data?: any; error?: unknown; response: Response }>;
export interface LooseClient {
  GET: Call;
  POST: Call;
  PUT: Call;
  PATCH: Call;
  DELETE: Call;
}
export const loose = (): LooseClient => api() as unknown as LooseClient;

/** Fired on window when the reader changed what is unread (the bell counts again at once). */
export const NOTICES_CHANGED = 'console:notices-changed';
export const noticesChanged = () => window.dispatchEvent(new Event(NOTICES_CHANGED));
