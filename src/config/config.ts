import { join } from 'node:path';
import { isIP } from 'node:net';

/**
 * The environment, parsed once into a frozen Config. A bad value stops start-up with a message that names the
 * variable; secrets are never echoed back.
 */
/** PGlite's shared_buffers unless PGLITE_SHARED_BUFFERS says otherwise (see docs/decisions/pglite-memory.md). */
export const PGLITE_SHARED_BUFFERS_DEFAULT = '32MB';

export interface RateLimitConfig {
  /** Failed sign-ins allowed per e-mail and per client address within `signInWindowMs`. */
  signInFailures: number;
  signInWindowMs: number;
  /** Sign-ups allowed per client address within `signUpWindowMs`. */
  signUps: number;
  signUpWindowMs: number;
}

export interface PaytrConfig {
  merchantId: string;
  merchantKey: string;
  merchantSalt: string;
  /** Where the token request goes (`{apiBase}/odeme/api/get-token`). */
  apiBase: string;
  /** Where the payment page lives (`{iframeBase}/odeme/guvenli/{token}`). */
  iframeBase: string;
  testMode: boolean;
  timeoutMs: number;
}

export interface WebhookConfig {
  /** A delivery attempt that has not answered 2xx within this time failed. */
  timeoutMs: number;
  /** Seconds to wait before each retry; its length + 1 is the number of attempts. */
  retryScheduleS: number[];
  /** Deliveries in a row ending `failed` that disable an endpoint (`failing`). */
  disableAfter: number;
  /** Allow loopback, private, link-local ... targets (development and tests). */
  allowPrivateTargets: boolean;
  /** How often each instance looks for due deliveries (besides being woken after a commit). */
  pollMs: number;
  /** Deliveries (and their events) older than this are deleted. */
  retentionDays: number;
}

/** E-mail (contract 26.3). */
export interface MailConfig {
  /** SMTP_URL (`smtp://` or `smtps://user:pass@host:port`); null: mails are kept in the database, nothing is sent. */
  smtpUrl: string | null;
  /** MAIL_FROM: the sender of every mail; default `Work Item Service <no-reply@{PUBLIC_BASE_URL's host}>`. */
  from: string;
  /** MAIL_RETRY_SCHEDULE: seconds before each retry of a mail; its length + 1 is the number of attempts. */
  retryScheduleS: number[];
  /** MAIL_POLL_MS: how often each instance looks for due mail and due notification batches. */
  pollMs: number;
  /** MAIL_TIMEOUT_MS: an SMTP connection or command that has not answered within this time failed (retried). */
  timeoutMs: number;
  /** MAIL_BATCH_WINDOW_S: instant notification mails to one user within this window are one mail (default 120). */
  batchWindowS: number;
  /** MAIL_RETENTION_DAYS: sent and failed mails older than this are deleted (pending ones never). */
  retentionDays: number;
}

export interface Config {
  port: number;
  host: string;
  /** A postgres:// URL, or null for the embedded PGlite database in `dataDir`. */
  databaseUrl: string | null;
  /** DATABASE_POOLER: `transaction` behind PgBouncer-like transaction poolers (unnamed statements; contract 27.2). */
  databasePooler: 'none' | 'transaction';
  /** DATABASE_REPLICA_URLS: streaming replicas for the reads that tolerate one (contract 27.3); empty: none. */
  databaseReplicaUrls: string[];
  /** REPLICA_MAX_LAG_S: a replica whose replay is further behind the primary than this is skipped. */
  replicaMaxLagS: number;
  dataDir: string;
  /** PGlite's shared_buffers (PGLITE_SHARED_BUFFERS, such as `32MB`): its buffer cache, which it allocates whole. */
  pgliteSharedBuffers: string;
  publicBaseUrl: string;
  paymentProvider: 'sandbox' | 'paytr';
  paytr: PaytrConfig;
  allowSignup: boolean;
  logLevel: string;
  billingGraceDays: number;
  /** A payment still pending this long after checkout is checked with the provider (PAYMENT_RECONCILE_AFTER_S). */
  paymentReconcileAfterS: number;
  /** Days before the end of an active period that `subscription.renewal_upcoming` is sent (BILLING_RENEWAL_NOTICE_DAYS). */
  billingRenewalNoticeDays: number;
  /** BILLING_RETRY_SCHEDULE: days after the period end that a past_due subscription's card is retried (19.3). */
  billingRetryDays: number[];
  /** How often the periodic jobs (subscription lifecycle) run; 0 turns them off. */
  jobIntervalMs: number;
  /** Period of the SLA events scanner (contract 11.4). */
  slaEventsIntervalMs: number;
  sessionTtlDays: number;
  rateLimits: RateLimitConfig;
  webhooks: WebhookConfig;
  /** Requests per minute per token (contract section 15); 0 turns the per-token limit off. */
  apiRateLimit: number;
  /** Where rate-limit counters live when several instances share them; null: process memory. */
  redisUrl: string | null;
  /** Prefix of the service's Redis keys. */
  redisPrefix: string;
  /** `GET /metrics` (Prometheus text). */
  metricsEnabled: boolean;
  /**
   * Which senders' `X-Forwarded-*` headers are believed (TRUST_PROXY, Fastify's `trustProxy`): false (default, none),
   * a hop count, or addresses / CIDR ranges (and proxy-addr's names `loopback`, `linklocal`, `uniquelocal`).
   */
  trustProxy: false | number | string[];
  /** Origins allowed to call the API from a browser (CORS_ORIGINS); empty: no CORS headers at all. */
  corsOrigins: string[];
  /** Origins besides the service's own that may frame the payment pages (PAYMENT_PAGE_FRAME_ANCESTORS). */
  paymentPageFrameAncestors: string[];
  /** KDV rate of new invoices and credit notes, in basis points (BILLING_TAX_RATE_BP, 2000 = 20 %; 0..10000). */
  billingTaxRateBp: number;
  /** The seller printed on invoices and credit notes (BILLING_SELLER_NAME, _TAX_ID, _TAX_OFFICE, _ADDRESS). */
  billingSeller: { name: string; taxId: string | null; taxOffice: string | null; address: string | null };
  /** Where attachments are stored (contract 25.2). */
  storage: StorageConfig;
  /** E-mail (contract 26.3). */
  mail: MailConfig;
}

/** STORAGE and its settings (contract 25.1, 25.2). */
export interface StorageConfig {
  /** ATTACHMENT_MAX_MB × 1,048,576: the largest file one upload may store (1..5000 MB, default 100). */
  maxFileBytes: number;
  /** STORAGE_DIR, default `DATA_DIR/files`: the local folder (STORAGE=local). */
  dir: string;
  /** STORAGE=s3: the bucket and how to reach it; null with STORAGE=local. */
  s3: S3Config | null;
}

export interface S3Config {
  endpoint: string | null;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Development defaults of the built-in sandbox provider; real PayTR credentials must be given explicitly. */
export const SANDBOX_CREDENTIALS = {
  merchantId: '100001',
  merchantKey: 'sandbox-merchant-key',
  merchantSalt: 'sandbox-merchant-salt',
} as const;

/** BILLING_RETRY_SCHEDULE: comma-separated whole days, 1..365, strictly increasing ("1,3,5"). */
function retryDays(text: string): number[] {
  const days = text.split(',').map((d) => d.trim());
  const bad = () => new ConfigError(`BILLING_RETRY_SCHEDULE must be increasing whole days 1..365 separated by commas (such as "1,3,5"), got "${text}"`);
  const out: number[] = [];
  for (const d of days) {
    if (!/^\d{1,3}$/.test(d)) throw bad();
    const n = Number(d);
    if (n < 1 || n > 365 || (out.length > 0 && n <= out[out.length - 1]!)) throw bad();
    out.push(n);
  }
  return out;
}

function str(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** A comma-separated list of whole seconds (`5,300,1800`), each 0..7 days. */
function secondsList(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 50 || parts.some((p) => !/^\d+$/.test(p) || Number(p) > 604_800)) {
    throw new ConfigError(`${name} must be a comma-separated list of at most 50 whole seconds (each <= 604800), got "${raw}"`);
  }
  return parts.map(Number);
}

function url(name: string, value: string, protocols: string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be a URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}`);
  }
  return value.replace(/\/+$/, '');
}

/** A comma-separated list of exact origins (`https://app.example.com`, no path, no wildcard); empty by default. */
function origins(env: Env, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((part) => {
    const value = part.trim();
    let parsed: URL | undefined;
    try {
      parsed = new URL(value);
    } catch {
      parsed = undefined;
    }
    const hostOk = parsed !== undefined && /^([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/i.test(parsed.hostname);
    if (!parsed || !hostOk || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== value) {
      throw new ConfigError(`${name} must be a comma-separated list of origins such as https://app.example.com (scheme, host and port only), got "${value}"`);
    }
    return value;
  });
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An IPv4 or IPv6 address, optionally with a /prefix that fits its family. */
function addressOrCidr(value: string): boolean {
  const [address = '', prefix, extra] = value.split('/');
  if (extra !== undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** TRUST_PROXY: off (default), a hop count, or a comma-separated list of addresses and CIDR ranges. */
function trustProxy(env: Env, name: string): false | number | string[] {
  const raw = (env[name] ?? '').trim();
  if (raw === '' || ['0', 'false', 'off', 'no'].includes(raw.toLowerCase())) return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 32) throw new ConfigError(`${name} as a hop count must be between 1 and 32, got ${hops}`);
    return hops;
  }
  const entries = raw.split(',').map((p) => p.trim());
  const bad = entries.find((e) => !PROXY_NAMES.includes(e) && !addressOrCidr(e));
  if (bad !== undefined) {
    throw new ConfigError(
      `${name} must be off, a hop count, or a comma-separated list of IP addresses and CIDR ranges (or loopback, linklocal, uniquelocal); "${bad}" is none of these`,
    );
  }
  return entries;
}

/** An optional text setting: unset or blank is null; at most `max` characters. */
function optionalText(env: Env, name: string, max: number): string | null {
  const value = env[name]?.trim();
  if (!value) return null;
  if (value.length > max) throw new ConfigError(`${name} must be at most ${max} characters`);
  return value;
}

/** BILLING_SELLER_*: the seller of the documents; its tax id, when set, is 10 (VKN) or 11 (TCKN) digits. */
function billingSeller(env: Env): Config['billingSeller'] {
  const taxId = optionalText(env, 'BILLING_SELLER_TAX_ID', 32);
  if (taxId !== null && !/^\d{10,11}$/.test(taxId))
    throw new ConfigError(`BILLING_SELLER_TAX_ID must be a VKN (10 digits) or a TCKN (11 digits), got "${taxId}"`);
  return {
    name: optionalText(env, 'BILLING_SELLER_NAME', 255) ?? 'Work Item Service',
    taxId,
    taxOffice: optionalText(env, 'BILLING_SELLER_TAX_OFFICE', 255),
    address: optionalText(env, 'BILLING_SELLER_ADDRESS', 500),
  };
}

function storageConfig(env: Env): StorageConfig {
  const kind = str(env, 'STORAGE', 'local');
  if (kind !== 'local' && kind !== 's3') throw new ConfigError(`STORAGE must be "local" or "s3", got "${kind}"`);
  const maxFileBytes = int(env, 'ATTACHMENT_MAX_MB', 100, 1, 5000) * 1_048_576;
  const dir = str(env, 'STORAGE_DIR', join(str(env, 'DATA_DIR', './data'), 'files'));
  if (kind === 'local') return { maxFileBytes, dir, s3: null };
  const required = (name: string): string => {
    const value = env[name];
    if (!value) throw new ConfigError(`${name} is required when STORAGE=s3`);
    return value;
  };
  return {
    maxFileBytes,
    dir,
    s3: {
      endpoint: env.S3_ENDPOINT ? url('S3_ENDPOINT', env.S3_ENDPOINT, ['http:', 'https:']) : null,
      region: str(env, 'S3_REGION', 'us-east-1'),
      bucket: required('S3_BUCKET'),
      accessKeyId: required('S3_ACCESS_KEY_ID'),
      secretAccessKey: required('S3_SECRET_ACCESS_KEY'),
      forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', false),
    },
  };
}

/** SMTP_URL: `smtp://` or `smtps://`, a host, an optional port and `user:pass` (the password is never echoed). */
function smtpUrl(env: Env): string | null {
  const raw = env.SMTP_URL?.trim();
  if (!raw) return null;
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') || !parsed.hostname || (parsed.pathname !== '' && parsed.pathname !== '/')) {
    throw new ConfigError('SMTP_URL must be smtp://host:port or smtps://user:pass@host:port (user and password optional)');
  }
  if (parsed.password && !parsed.username) throw new ConfigError('SMTP_URL has a password without a user name');
  return raw;
}

/** MAIL_FROM: `address` or `Name <address>`; default a no-reply address at PUBLIC_BASE_URL's host. */
function mailFrom(env: Env, publicBaseUrl: string): string {
  const raw = env.MAIL_FROM?.trim();
  if (!raw) {
    const host = new URL(publicBaseUrl).hostname;
    const domain = /[a-z]/i.test(host) && !host.includes(':') && !host.startsWith('[') ? host : 'localhost';
    return `Work Item Service <no-reply@${domain}>`;
  }
  const address = /<([^<>]+)>\s*$/.exec(raw)?.[1] ?? raw;
  if (raw.length > 320 || /[\r\n]/.test(raw) || !/^[^\s@<>]+@[^\s@<>]+$/.test(address)) {
    throw new ConfigError(`MAIL_FROM must be an e-mail address or "Name <address>", got "${raw}"`);
  }
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const host = str(env, 'HOST', '127.0.0.1');
  const databaseUrl = env.DATABASE_URL ? url('DATABASE_URL', env.DATABASE_URL, ['postgres:', 'postgresql:']) : null;
  const databasePooler = str(env, 'DATABASE_POOLER', 'none');
  if (databasePooler !== 'none' && databasePooler !== 'transaction') {
    throw new ConfigError(`DATABASE_POOLER must be "none" or "transaction", got "${databasePooler}"`);
  }
  const databaseReplicaUrls = (env.DATABASE_REPLICA_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
    .map((u) => url('DATABASE_REPLICA_URLS', u, ['postgres:', 'postgresql:']));
  if (databaseReplicaUrls.length > 0 && !databaseUrl) throw new ConfigError('DATABASE_REPLICA_URLS needs DATABASE_URL (the embedded database has no replicas)');
  const publicBaseUrl = url('PUBLIC_BASE_URL', str(env, 'PUBLIC_BASE_URL', `http://${host.includes(':') ? `[${host}]` : host}:${port}`), ['http:', 'https:']);
  const paymentProvider = str(env, 'PAYMENT_PROVIDER', 'sandbox');
  if (paymentProvider !== 'sandbox' && paymentProvider !== 'paytr') {
    throw new ConfigError(`PAYMENT_PROVIDER must be "sandbox" or "paytr", got "${paymentProvider}"`);
  }
  const isSandbox = paymentProvider === 'sandbox';
  const credential = (name: string, fallback: string): string => {
    const value = env[name];
    if (value) return value;
    if (isSandbox) return fallback;
    throw new ConfigError(`${name} is required when PAYMENT_PROVIDER=paytr`);
  };
  const logLevel = str(env, 'LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const memorySize = (name: string, value: string): string => {
    const m = /^(\d+)(kB|MB|GB)$/.exec(value);
    const mb = m ? Number(m[1]) / (m[2] === 'kB' ? 1024 : m[2] === 'GB' ? 1 / 1024 : 1) : NaN;
    if (!(mb >= 1 && mb <= 4096)) throw new ConfigError(`${name} must be a size such as 32MB (1MB..4GB; units kB, MB, GB), got "${value}"`);
    return value;
  };
  const sandboxBase = `${publicBaseUrl}/sandbox/paytr`;
  const config: Config = {
    port,
    host,
    databaseUrl,
    databasePooler,
    databaseReplicaUrls,
    replicaMaxLagS: int(env, 'REPLICA_MAX_LAG_S', 5, 1, 3_600),
    dataDir: str(env, 'DATA_DIR', './data'),
    pgliteSharedBuffers: memorySize('PGLITE_SHARED_BUFFERS', str(env, 'PGLITE_SHARED_BUFFERS', PGLITE_SHARED_BUFFERS_DEFAULT)),
    publicBaseUrl,
    paymentProvider,
    paytr: {
      merchantId: credential('PAYTR_MERCHANT_ID', SANDBOX_CREDENTIALS.merchantId),
      merchantKey: credential('PAYTR_MERCHANT_KEY', SANDBOX_CREDENTIALS.merchantKey),
      merchantSalt: credential('PAYTR_MERCHANT_SALT', SANDBOX_CREDENTIALS.merchantSalt),
      apiBase: url('PAYTR_API_BASE', str(env, 'PAYTR_API_BASE', isSandbox ? sandboxBase : 'https://www.paytr.com'), ['http:', 'https:']),
      iframeBase: url('PAYTR_IFRAME_BASE', str(env, 'PAYTR_IFRAME_BASE', isSandbox ? sandboxBase : 'https://www.paytr.com'), ['http:', 'https:']),
      testMode: bool(env, 'PAYTR_TEST_MODE', isSandbox),
      timeoutMs: int(env, 'PAYTR_TIMEOUT_MS', 10_000, 100, 120_000),
    },
    allowSignup: bool(env, 'ALLOW_SIGNUP', true),
    logLevel,
    billingGraceDays: int(env, 'BILLING_GRACE_DAYS', 7, 0, 365),
    paymentReconcileAfterS: int(env, 'PAYMENT_RECONCILE_AFTER_S', 600, 1, 30 * 86_400),
    billingRenewalNoticeDays: int(env, 'BILLING_RENEWAL_NOTICE_DAYS', 7, 1, 365),
    billingRetryDays: retryDays(str(env, 'BILLING_RETRY_SCHEDULE', '1,3,5')),
    jobIntervalMs: int(env, 'JOB_INTERVAL_MS', 60_000, 0, 86_400_000),
    slaEventsIntervalMs: int(env, 'SLA_EVENTS_INTERVAL_MS', 5000, 100, 3_600_000),
    sessionTtlDays: int(env, 'SESSION_TTL_DAYS', 30, 1, 3650),
    webhooks: {
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
      retryScheduleS: secondsList(env, 'WEBHOOK_RETRY_SCHEDULE', [5, 300, 1800, 7200, 18000, 36000, 86400]),
      disableAfter: int(env, 'WEBHOOK_DISABLE_AFTER', 5, 1, 1000),
      allowPrivateTargets: bool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
      pollMs: int(env, 'WEBHOOK_POLL_MS', 1000, 100, 3_600_000),
      retentionDays: int(env, 'WEBHOOK_RETENTION_DAYS', 30, 1, 3650),
    },
    rateLimits: {
      signInFailures: int(env, 'RATE_LIMIT_SIGNIN_FAILURES', 10, 1, 1_000_000),
      signInWindowMs: int(env, 'RATE_LIMIT_SIGNIN_WINDOW_S', 900, 1, 86_400) * 1000,
      signUps: int(env, 'RATE_LIMIT_SIGNUPS', 20, 1, 1_000_000),
      signUpWindowMs: int(env, 'RATE_LIMIT_SIGNUP_WINDOW_S', 3600, 1, 86_400) * 1000,
    },
    apiRateLimit: int(env, 'API_RATE_LIMIT', 600, 0, 100_000_000),
    redisUrl: env.REDIS_URL ? url('REDIS_URL', env.REDIS_URL, ['redis:', 'rediss:']) : null,
    redisPrefix: str(env, 'REDIS_PREFIX', 'wis:rl:'),
    metricsEnabled: bool(env, 'METRICS_ENABLED', true),
    trustProxy: trustProxy(env, 'TRUST_PROXY'),
    corsOrigins: origins(env, 'CORS_ORIGINS'),
    paymentPageFrameAncestors: origins(env, 'PAYMENT_PAGE_FRAME_ANCESTORS'),
    billingTaxRateBp: int(env, 'BILLING_TAX_RATE_BP', 2000, 0, 10_000),
    billingSeller: billingSeller(env),
    storage: storageConfig(env),
    mail: {
      smtpUrl: smtpUrl(env),
      from: mailFrom(env, publicBaseUrl),
      retryScheduleS: secondsList(env, 'MAIL_RETRY_SCHEDULE', [10, 60, 300, 1800, 7200, 21600, 86400]),
      pollMs: int(env, 'MAIL_POLL_MS', 2000, 100, 3_600_000),
      timeoutMs: int(env, 'MAIL_TIMEOUT_MS', 30_000, 100, 300_000),
      batchWindowS: int(env, 'MAIL_BATCH_WINDOW_S', 120, 0, 86_400),
      retentionDays: int(env, 'MAIL_RETENTION_DAYS', 90, 1, 3650),
    },
  };
  return Object.freeze(config);
}
