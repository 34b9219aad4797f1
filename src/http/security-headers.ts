import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { Config } from '../config/config.js';
import { paymentPageScriptHashes } from './payment-page.js';

/** The security headers of one surface, as sent: lower-case names. */
export type HeaderSet = Readonly<Record<string, string>>;

/** Which policy an answer gets (contract section 22). `card`: the card page of 19.1, whose form posts to PayTR. */
export type Surface = 'api' | 'page' | 'payment' | 'card';

/**
 * Paths of the payment pages the service serves: the sandbox's checkout page (and its Pay / Decline answers) and the
 * return pages. The card page of section 19.1 has a prefix of its own (`CARD_PAGE_PREFIX`): its forms go to PayTR.
 */
export const PAYMENT_PAGE_PREFIXES = ['/sandbox/paytr/odeme/guvenli/', '/billing/return/'];

/** The card page of section 19.1 (`/billing/card/<token>`), and its 404s. */
export const CARD_PAGE_PREFIX = '/billing/card/';

/** The provider's callback: a server-to-server POST that never answers CORS. */
const PROVIDER_CALLBACK_PREFIX = '/api/webhooks/provider/';

export const HSTS = 'max-age=63072000; includeSubDomains';

export function surfaceOf(url: string): Surface {
  if (url.startsWith('/app') && (url.length === 4 || url[4] === '/' || url[4] === '?')) return 'page';
  if (url.startsWith('/docs') && (url.length === 5 || url[5] === '/' || url[5] === '?')) return 'page';
  for (const prefix of PAYMENT_PAGE_PREFIXES) if (url.startsWith(prefix)) return 'payment';
  if (url.startsWith(CARD_PAGE_PREFIX)) return 'card';
  return 'api';
}

/**
 * Runs helmet's middleware once against a recording response and keeps the headers it set. Helmet is the policy
 * engine (directive checks, its defaults for the other headers); compiling each surface once at start-up costs
 * nothing per request, where building helmet's middleware per request (what @fastify/helmet does for route-level
 * options) measured ~3.6 µs a request against ~0.24 µs.
 */
export function compileHeaders(options: HelmetOptions): HeaderSet {
  const headers: Record<string, string> = {};
  const res = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  } as unknown as ServerResponse;
  helmet(options)({} as IncomingMessage, res, (err?: unknown) => {
    if (err) throw err;
  });
  return Object.freeze(headers);
}

type Directives = Record<string, string[]>;

function base(
  csp: Directives,
  extra: { referrer: 'no-referrer' | 'strict-origin-when-cross-origin'; frame: 'deny' | 'sameorigin' | false; hsts: boolean },
): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: csp },
    referrerPolicy: { policy: extra.referrer },
    xFrameOptions: extra.frame === false ? false : { action: extra.frame },
    strictTransportSecurity: extra.hsts ? { maxAge: 63_072_000, includeSubDomains: true, preload: false } : false,
  };
}

/**
 * The API (and anything that is not a page): nothing may load, frame or refer from it, and nothing is stored. Only
 * the headers that mean something on a JSON answer (the hot path): helmet's other defaults are for documents.
 */
export function apiHeaders(hsts: boolean): HeaderSet {
  const headers = compileHeaders({
    ...base({ 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] }, { referrer: 'no-referrer', frame: 'deny', hsts }),
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  } as HelmetOptions);
  // No-store for every API answer: authenticated ones, and sign-in / sign-up answers, which carry tokens too.
  return Object.freeze({ ...headers, 'cache-control': 'no-store' });
}

export interface PagePolicy {
  /** Where the payment page lives (PAYTR_IFRAME_BASE's origin), or `'self'` for the sandbox. */
  paymentFrameSource: string;
  /** Hashes (`'sha256-...'`) of inline scripts that cannot be moved into files. */
  scriptHashes?: string[];
  hsts: boolean;
  /** STORAGE=s3: the bucket's origin, where a download's 302 leads (the console fetches files and shows images). */
  fileSource?: string | null;
}

/** The origin presigned URLs of STORAGE=s3 point at: the endpoint's (path style), or the bucket's own host. */
export function storageSourceOf(config: Config): string | null {
  const s3 = config.storage.s3;
  if (!s3) return null;
  const endpoint = new URL(s3.endpoint ?? `https://s3.${s3.region}.amazonaws.com`);
  return s3.forcePathStyle ? endpoint.origin : `${endpoint.protocol}//${s3.bucket}.${endpoint.host}`;
}

/**
 * The console and the API reference: scripts from the service only (plus hashes of unavoidable inline scripts),
 * inline styles allowed (the contract restricts scripts), no plugins, no framing, frames only the payment page.
 */
export function pageHeaders(policy: PagePolicy): HeaderSet {
  return compileHeaders(
    base(
      {
        'default-src': ["'self'"],
        'script-src': ["'self'", ...(policy.scriptHashes ?? []).map((h) => `'${h}'`)],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:', ...(policy.fileSource ? [policy.fileSource] : [])],
        'font-src': ["'self'", 'data:'],
        'connect-src': ["'self'", ...(policy.fileSource ? [policy.fileSource] : [])],
        'object-src': ["'none'"],
        'base-uri': ["'self'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
        'frame-src': [policy.paymentFrameSource],
      },
      { referrer: 'strict-origin-when-cross-origin', frame: 'deny', hsts: policy.hsts },
    ),
  );
}

export interface PaymentPagePolicy {
  /** SRI hashes (`sha384-...`) of the page's scripts: the only scripts it may run. */
  scriptHashes: string[];
  /** Where its forms may post: the provider's origin (PayTR's), or `'self'` for the sandbox's own pages. */
  formAction: string[];
  /** Origins besides the service's own that may frame it (PAYMENT_PAGE_FRAME_ANCESTORS). */
  frameAncestors: string[];
  hsts: boolean;
}

/**
 * A page that hosts (or imitates) a card form (PCI DSS v4.0 6.4.3): only the listed scripts, by hash; forms only to
 * the provider; framed only by the service and the listed origins; never cached. Reusable for the card page of 19.1.
 * `X-Frame-Options` cannot name other origins, so it is `SAMEORIGIN` only when no other origin may frame the page.
 */
export function paymentPageHeaders(policy: PaymentPagePolicy): HeaderSet {
  const headers = compileHeaders(
    base(
      {
        'default-src': ["'none'"],
        'script-src': policy.scriptHashes.length > 0 ? policy.scriptHashes.map((h) => `'${h}'`) : ["'none'"],
        'style-src': ["'unsafe-inline'"],
        'img-src': ["'self'", 'data:'],
        'object-src': ["'none'"],
        'base-uri': ["'none'"],
        'form-action': policy.formAction,
        'frame-ancestors': ["'self'", ...policy.frameAncestors],
      },
      { referrer: 'strict-origin-when-cross-origin', frame: policy.frameAncestors.length === 0 ? 'sameorigin' : false, hsts: policy.hsts },
    ),
  );
  return Object.freeze({ ...headers, 'cache-control': 'no-store' });
}

/** `'self'` when `url` is on the service's own origin, else its origin. */
function sourceOf(url: string, publicBaseUrl: string): string {
  const origin = new URL(url).origin;
  return origin === new URL(publicBaseUrl).origin ? "'self'" : origin;
}

/** The payment-page policy of this configuration (the sandbox's pages; the card page passes PayTR's origin). */
export function paymentPagePolicyOf(config: Config, formAction: string[] = [sourceOf(config.paytr.iframeBase, config.publicBaseUrl)]): PaymentPagePolicy {
  return {
    scriptHashes: paymentPageScriptHashes(),
    formAction,
    frameAncestors: config.paymentPageFrameAncestors,
    hsts: config.publicBaseUrl.startsWith('https://'),
  };
}

/**
 * The card page's policy (19.1): the same as the other payment pages but for `form-action`, which is PayTR's Direct
 * API origin (PAYTR_API_BASE's, where the card form posts), and nothing else: not even the service's own origin.
 */
export function cardPagePolicyOf(config: Config): PaymentPagePolicy {
  return paymentPagePolicyOf(config, [sourceOf(config.paytr.apiBase, config.publicBaseUrl)]);
}

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;

/** `sha256-...` of each inline script of an HTML page (the browser hashes the text between the tags). */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(INLINE_SCRIPT)) {
    const attributes = match[1] ?? '';
    const body = match[2] ?? '';
    if (/\bsrc\s*=/i.test(attributes) || body === '') continue;
    hashes.push(`sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}`);
  }
  return hashes;
}

/**
 * TRUST_PROXY as Fastify's `trustProxy`. Fastify 5.12 trusts nothing for a bare hop count (it cannot tell a proxy
 * from a direct client), so a hop count is given as proxy-addr's own rule: the first `n` hops (the peer, then
 * `X-Forwarded-For` from the right) are proxies. Only for a service that cannot be reached but through its proxies.
 */
export function trustProxyOption(trust: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust;
  return trust;
}

/**
 * Security headers per surface (contract section 22), set once for every answer, including errors and 404s: the
 * API, the pages (console and API reference), the payment pages. HSTS on every answer when PUBLIC_BASE_URL is https.
 * CORS for the origins in CORS_ORIGINS only, on the API only, never on the provider callback.
 */
export async function registerSecurityHeaders(app: FastifyInstance, config: Config): Promise<void> {
  const hsts = config.publicBaseUrl.startsWith('https://');
  const paymentFrameSource = sourceOf(config.paytr.iframeBase, config.publicBaseUrl);
  const fileSource = storageSourceOf(config);
  const sets: Record<Surface, HeaderSet> = {
    api: apiHeaders(hsts),
    page: pageHeaders({ paymentFrameSource, hsts, fileSource }),
    payment: paymentPageHeaders(paymentPagePolicyOf(config)),
    card: paymentPageHeaders(cardPagePolicyOf(config)),
  };
  // Pages with an inline script (the API reference's start-up script): their CSP, by the set of hashes.
  const withHashes = new Map<string, string>();

  const cors = corsHeaderSets(config.corsOrigins, sets.api);
  // One synchronous hook on the hot path (an async hook costs a promise per request). With CORS_ORIGINS, an API answer
  // to a listed Origin takes that origin's precompiled set (the API headers plus its CORS headers) in the same call.
  app.addHook('onRequest', (request, reply, done) => {
    const surface = surfaceOf(request.url);
    if (cors !== null && surface === 'api' && corsApplies(request.url)) {
      const origin = request.headers.origin;
      void reply.headers((origin !== undefined && cors.byOrigin.get(origin)) || cors.other);
    } else {
      void reply.headers(sets[surface]);
    }
    done();
  });
  // The API reference's inline start-up script: its hash, on its own routes only (a route-level hook, so nothing
  // runs for the API).
  const hashInlineScripts = (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
    if (typeof payload === 'string' && String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
      const hashes = inlineScriptHashes(payload);
      if (hashes.length > 0) {
        const key = hashes.join(' ');
        let csp = withHashes.get(key);
        if (csp === undefined) {
          csp = pageHeaders({ paymentFrameSource, hsts, scriptHashes: hashes, fileSource })['content-security-policy'] as string;
          if (withHashes.size < 100) withHashes.set(key, csp);
        }
        void reply.header('content-security-policy', csp);
      }
    }
    done(null, payload);
  };
  app.addHook('onRoute', (route) => {
    if (surfaceOf(route.url) !== 'page' || route.url.startsWith('/app')) return;
    const existing = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [...existing, hashInlineScripts as never];
  });

  if (config.corsOrigins.length > 0) await registerPreflights(app, config.corsOrigins);
}

const CORS_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key';
// The tus headers of resumable uploads (25.4) too: a browser's tus client reads them across origins.
const CORS_EXPOSED_HEADERS =
  'X-Request-Id, Location, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, ' +
  'Tus-Resumable, Tus-Version, Tus-Extension, Tus-Max-Size, Upload-Offset, Upload-Length, Upload-Metadata, Upload-Expires, Attachment-Id';
const CORS_MAX_AGE = 600;

/** CORS answers the API only, never the provider's callback (a server-to-server POST). */
const corsApplies = (url: string): boolean => url.startsWith('/api/') && !url.startsWith(PROVIDER_CALLBACK_PREFIX);

/**
 * The API's header sets with CORS_ORIGINS: per listed origin, the API headers plus `Access-Control-Allow-Origin` (the
 * origin itself, never `*`), the exposed headers and `Vary: Origin`; for any other origin or none, the API headers
 * plus `Vary: Origin` (the answer depends on the Origin, so a cache must key on it). Null without CORS_ORIGINS.
 */
export function corsHeaderSets(origins: readonly string[], api: HeaderSet): { byOrigin: Map<string, HeaderSet>; other: HeaderSet } | null {
  if (origins.length === 0) return null;
  const other = Object.freeze({ ...api, vary: 'Origin' });
  const byOrigin = new Map<string, HeaderSet>();
  for (const origin of origins) {
    byOrigin.set(origin, Object.freeze({ ...other, 'access-control-allow-origin': origin, 'access-control-expose-headers': CORS_EXPOSED_HEADERS }));
  }
  return { byOrigin, other };
}

/**
 * Preflights (`OPTIONS`) by @fastify/cors, registered in a context of its own: its hook then runs for its `OPTIONS *`
 * route only, so the other requests pay nothing for it (with the plugin's hook on every request, CORS measured
 * +34 µs a request, 7.4 % of the GET tracker's 465 µs; see bench/security-headers.ts). A preflight from an unlisted
 * origin, or outside the API, gets no CORS header and a 404.
 */
async function registerPreflights(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  const allowed = new Set(origins);
  const none = { origin: false } as const;
  const listed = {
    origin: (origin: string | undefined, cb: (err: Error | null, allow: string | false) => void) =>
      cb(null, origin !== undefined && allowed.has(origin) ? origin : false),
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE,
  };
  await app.register(async (preflights) => {
    await preflights.register(cors, {
      hideOptionsRoute: true,
      delegator: (request, cb) => cb(null, corsApplies(request.url) ? listed : none),
    });
  });
}
