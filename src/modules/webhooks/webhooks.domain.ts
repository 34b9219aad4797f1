import { randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

/** Rules of outgoing webhooks that need no I/O: secrets, target addresses, the retry schedule. */

export const MAX_ENDPOINTS_PER_WORKSPACE = 20;
export const MAX_URL_LENGTH = 2048;
/** The previous secret keeps signing this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // unspecified / "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible forms
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64 can reach IPv4 private space
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv6');
}

/** Loopback, private, link-local, multicast, unspecified or reserved: never a webhook target. */
export function isBlockedAddress(address: string): boolean {
  const kind = isIP(address);
  if (kind === 4) return BLOCKED.check(address, 'ipv4');
  if (kind !== 6) return true;
  // IPv4-mapped addresses (::ffff:10.0.0.1) are judged by the IPv4 rules: BlockList does that itself.
  return BLOCKED.check(address, 'ipv6');
}

/** Why a URL cannot be a webhook target (syntax only; addresses are checked on resolution), or null. */
export function urlProblem(value: string): string | null {
  if (value.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http or https URL';
  if (url.username || url.password) return 'must not contain user info';
  if (!url.hostname) return 'must name a host';
  return null;
}

/** The host of a URL as an IP literal (brackets of IPv6 removed), or null for a name. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
}

export type AttemptOutcome =
  | { kind: 'success'; statusCode: number }
  | { kind: 'gone'; statusCode: 410 }
  | { kind: 'failure'; statusCode: number | null; error: string; retryAfterS?: number };

export function classify(statusCode: number | null, error: string | null, retryAfterS?: number): AttemptOutcome {
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { kind: 'success', statusCode };
  if (statusCode === 410) return { kind: 'gone', statusCode: 410 };
  return { kind: 'failure', statusCode, error: error ?? `HTTP ${statusCode}`, ...(retryAfterS !== undefined ? { retryAfterS } : {}) };
}

/**
 * When the next attempt is due after attempt number `attempts` (1-based) failed, or null when that was the last.
 * A `Retry-After` longer than the schedule's wait is honoured (429 and 503 only).
 */
export function nextAttemptAt(now: Date, attempts: number, scheduleS: readonly number[], outcome: AttemptOutcome): Date | null {
  if (outcome.kind !== 'failure') return null;
  const wait = scheduleS[attempts - 1];
  if (wait === undefined) return null;
  const honoured = outcome.retryAfterS !== undefined && (outcome.statusCode === 429 || outcome.statusCode === 503) ? Math.max(wait, outcome.retryAfterS) : wait;
  return new Date(now.getTime() + honoured * 1000);
}

/** `Retry-After`: delay-seconds or an HTTP date; undefined when absent or unreadable. Capped at 7 days. */
export function parseRetryAfter(header: string | null, now: Date): number | undefined {
  if (!header) return undefined;
  const cap = 7 * 24 * 3600;
  if (/^\s*\d+\s*$/.test(header)) return Math.min(Number(header), cap);
  const at = Date.parse(header);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - now.getTime()) / 1000)), cap);
}
