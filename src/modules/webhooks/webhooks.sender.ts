import { lookup } from 'node:dns';
import { Agent, request } from 'undici';
import { isBlockedAddress, literalAddress } from './webhooks.domain.js';

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  retryAfter: string | null;
}

export interface Sender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  close(): Promise<void>;
}

class BlockedAddressError extends Error {
  readonly code = 'BLOCKED_ADDRESS';
}

/**
 * Sends one delivery attempt. Addresses are checked where the connection is made (the DNS answer the socket actually
 * uses), so a name that resolves to a private address, now or after a rebinding, is never connected to. Redirects are
 * not followed: a 3xx is a failed attempt like any other non-2xx.
 */
export function createSender({ timeoutMs, allowPrivateTargets }: { timeoutMs: number; allowPrivateTargets: boolean }): Sender {
  const agent = new Agent({
    connect: {
      timeout: timeoutMs,
      lookup: (hostname, options, callback) => {
        lookup(hostname, { ...options, all: true }, (error, addresses) => {
          if (error) return callback(error, '', 0);
          const list = addresses as unknown as { address: string; family: number }[];
          if (!allowPrivateTargets && list.some((a) => isBlockedAddress(a.address))) {
            return callback(new BlockedAddressError(`${hostname} resolves to a blocked address`), '', 0);
          }
          if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
          return callback(null, list[0]!.address, list[0]!.family);
        });
      },
    },
    keepAliveTimeout: 4_000,
  });

  return {
    async send(url, headers, body) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const literal = literalAddress(new URL(url));
      if (literal && !allowPrivateTargets && isBlockedAddress(literal)) {
        return { statusCode: null, error: 'blocked_address', durationMs: 0, retryAfter: null };
      }
      try {
        // undici's own request API, not fetch: no WHATWG Request, Response or streams per attempt (a CPU profile of
        // the worker put fetch's machinery first). It follows no redirect; the whole attempt has the one deadline.
        const res = await request(url, { method: 'POST', headers, body, dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
        // The body is not needed: drained (up to a small limit) so the connection can be reused, else dropped.
        await res.body.dump().catch(() => undefined);
        const retryAfter = res.headers['retry-after'];
        return { statusCode: res.statusCode, error: null, durationMs: elapsed(), retryAfter: (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null };
      } catch (error) {
        return { statusCode: null, error: describe(error), durationMs: elapsed(), retryAfter: null };
      }
    },
    close: () => agent.close(),
  };
}

function describe(error: unknown): string {
  const e = error as { name?: string; code?: string; cause?: { code?: string; name?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.cause?.name === 'TimeoutError') return 'timeout';
  const code = e.cause?.code ?? e.code;
  if (code === 'UND_ERR_ABORTED') return 'timeout';
  if (code === 'BLOCKED_ADDRESS') return 'blocked_address';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns_error';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection_reset';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') return 'timeout';
  if (code && /CERT|TLS|SSL/.test(code)) return 'tls_error';
  return code ? `network_error: ${code}` : 'network_error';
}
