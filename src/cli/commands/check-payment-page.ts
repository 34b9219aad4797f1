import { readFile } from 'node:fs/promises';
import type { Config } from '../../config/config.js';
import { sriHash } from '../../http/payment-page.js';
import { CARD_PAGE_PREFIX, cardPagePolicyOf, paymentPageHeaders, paymentPagePolicyOf } from '../../http/security-headers.js';
import { createPaytrClient } from '../../modules/billing/index.js';
import { type Command, UsageError } from '../cli.js';

/** Where the inventory of the payment page's scripts lives (PCI DSS v4.0 6.4.3). */
export const DEFAULT_INVENTORY = 'docs/payment-page.md';

export interface InventoryScript {
  /** The path (or URL) the page loads it from. */
  file: string;
  purpose: string;
  /** `sha384-<base64>`. */
  sha384: string;
}

/**
 * The inventory table of docs/payment-page.md: rows of `| \`file\` | purpose | \`sha384-...\` |`. Any other line of the
 * document is prose.
 */
export function parseInventory(markdown: string): InventoryScript[] {
  const rows: InventoryScript[] = [];
  for (const line of markdown.split('\n')) {
    const match = /^\|\s*`([^`]+)`\s*\|\s*(.*?)\s*\|\s*`(sha384-[A-Za-z0-9+/=]+)`\s*\|\s*$/.exec(line.trim());
    if (match) rows.push({ file: match[1]!, purpose: match[2]!, sha384: match[3]! });
  }
  return rows;
}

/** The security headers the check compares (lower-case names). */
const CHECKED_HEADERS = [
  'content-security-policy',
  'x-content-type-options',
  'referrer-policy',
  'x-frame-options',
  'cache-control',
  'strict-transport-security',
  'cross-origin-opener-policy',
];

interface ScriptTag {
  src: string | null;
  integrity: string | null;
  inline: string;
}

const attribute = (attributes: string, name: string): string | null => {
  const match = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(attributes);
  return match ? (match[1] ?? match[2] ?? match[3] ?? '') : null;
};

function scriptTags(html: string): ScriptTag[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)].map((m) => ({
    src: attribute(m[1] ?? '', 'src'),
    integrity: attribute(m[1] ?? '', 'integrity'),
    inline: m[2] ?? '',
  }));
}

function cspDiff(expected: string, actual: string): string {
  const parse = (csp: string) =>
    new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .filter((p) => p[0])
        .map((p) => [p[0]!.toLowerCase(), p.slice(1).join(' ')]),
    );
  const e = parse(expected);
  const a = parse(actual);
  const out: string[] = [];
  for (const [name, value] of e) if (a.get(name) !== value) out.push(`${name}: expected "${value}", got ${a.has(name) ? `"${a.get(name)}"` : 'nothing'}`);
  for (const [name, value] of a) if (!e.has(name)) out.push(`${name}: not expected, got "${value}"`);
  return out.join('; ');
}

export interface CheckOptions {
  url: string;
  inventory: InventoryScript[];
  /** The headers the page must send, as the service's configuration makes them (with the inventory's hashes). */
  expectedHeaders: Readonly<Record<string, string>>;
  /** Whether every inventory script must be on this page (the checkout page) or may be absent (a return page). */
  requireAllScripts: boolean;
  fetch?: typeof fetch;
}

/**
 * PCI DSS v4.0 11.6.1's tamper check of one live payment page: its security headers against the expected ones, and
 * each script (its SRI attribute and the bytes actually served) against the inventory. The differences, none when the
 * page is as documented.
 */
export async function checkPaymentPage(options: CheckOptions): Promise<string[]> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const differences: string[] = [];
  const res = await doFetch(options.url, { signal: AbortSignal.timeout(10_000), redirect: 'manual' });
  const html = await res.text();
  if (res.status !== 200) differences.push(`page: expected status 200, got ${res.status}`);
  for (const name of CHECKED_HEADERS) {
    const expected = options.expectedHeaders[name];
    const actual = res.headers.get(name);
    if (expected === undefined) {
      if (actual !== null) differences.push(`header ${name}: not expected, got "${actual}"`);
    } else if (actual === null) {
      differences.push(`header ${name}: missing, expected "${expected}"`);
    } else if (actual !== expected) {
      differences.push(
        name === 'content-security-policy' ? `header ${name}: ${cspDiff(expected, actual)}` : `header ${name}: expected "${expected}", got "${actual}"`,
      );
    }
  }

  const byPath = new Map(options.inventory.map((s) => [new URL(s.file, options.url).href, s]));
  const seen = new Set<string>();
  for (const tag of scriptTags(html)) {
    if (tag.src === null) {
      differences.push(`inline script not in the inventory: ${JSON.stringify(tag.inline.trim().slice(0, 80))}`);
      continue;
    }
    const href = new URL(tag.src, options.url).href;
    const listed = byPath.get(href);
    if (!listed) {
      differences.push(`script ${tag.src}: not in the inventory`);
      continue;
    }
    seen.add(href);
    if (tag.integrity !== listed.sha384) differences.push(`script ${tag.src}: integrity attribute ${tag.integrity ?? 'missing'}, inventory ${listed.sha384}`);
    const body = Buffer.from(await (await doFetch(href, { signal: AbortSignal.timeout(10_000) })).arrayBuffer());
    const served = sriHash(body);
    if (served !== listed.sha384) differences.push(`script ${tag.src}: served content hashes to ${served}, inventory ${listed.sha384}`);
  }
  if (options.requireAllScripts) {
    for (const [href, s] of byPath) if (!seen.has(href)) differences.push(`script ${s.file}: in the inventory but not on the page`);
  }
  return differences;
}

/** A fresh sandbox checkout page (a one-minute order on the sandbox provider of this configuration). */
async function sandboxPageUrl(config: Config): Promise<string> {
  const client = createPaytrClient(config.paytr);
  const { iframeUrl } = await client.getToken({
    merchantOid: `CHECK${Date.now()}`,
    email: 'check-payment-page@example.com',
    amount: 100,
    currency: 'TRY',
    userIp: '127.0.0.1',
    userName: 'Payment page check',
    userAddress: 'n/a',
    userPhone: '0000000000',
    basket: [{ name: 'Payment page check', amount: 100, quantity: 1 }],
    okUrl: `${config.publicBaseUrl}/billing/return/ok`,
    failUrl: `${config.publicBaseUrl}/billing/return/fail`,
    timeoutLimitMinutes: 1,
  });
  return iframeUrl;
}

export const checkPaymentPageCommand: Command = {
  name: 'check-payment-page',
  summary: "compare the live payment page's security headers and scripts with the inventory (exit 1 on any difference)",
  usage: '[--url URL] [--inventory FILE]',
  help: [
    'PCI DSS v4.0 11.6.1: fetches the live payment page and compares its security headers (as this configuration makes',
    `them) and the hashes of its scripts with the inventory in ${DEFAULT_INVENTORY}. Prints each difference; exit 0 when`,
    'there is none, 1 otherwise. Without --url, with the sandbox provider: a fresh sandbox checkout page and the return',
    'page. With PAYMENT_PROVIDER=paytr give the card page with --url. Runnable weekly from cron, e.g.',
    '  0 6 * * 1  cd /srv/wis && npm run --silent cli -- check-payment-page || mail -s "payment page changed" ops@example.com',
  ].join('\n'),
  options: { url: { type: 'string' }, inventory: { type: 'string' } },
  run: async (values, ctx) => {
    const config = ctx.config();
    const inventoryFile = typeof values.inventory === 'string' ? values.inventory : DEFAULT_INVENTORY;
    const inventory = parseInventory(await readFile(inventoryFile, 'utf8'));
    if (inventory.length === 0) throw new UsageError(`${inventoryFile} lists no scripts (rows of | \`file\` | purpose | \`sha384-...\` |)`);
    const scriptHashes = inventory.map((s) => s.sha384);
    // The card page of 19.1 posts its form to PayTR's API origin; the sandbox's pages and the return pages to theirs.
    const expectedHeadersOf = (url: string) =>
      paymentPageHeaders({ ...(new URL(url).pathname.startsWith(CARD_PAGE_PREFIX) ? cardPagePolicyOf(config) : paymentPagePolicyOf(config)), scriptHashes });

    const pages: { url: string; requireAllScripts: boolean }[] = [];
    if (typeof values.url === 'string' && values.url !== '') {
      try {
        new URL(values.url);
      } catch {
        throw new UsageError(`--url must be a URL, got "${values.url}"`);
      }
      pages.push({ url: values.url, requireAllScripts: true });
    } else if (config.paymentProvider === 'sandbox') {
      pages.push({ url: await sandboxPageUrl(config), requireAllScripts: true });
      pages.push({ url: `${config.publicBaseUrl}/billing/return/ok`, requireAllScripts: false });
    } else {
      throw new UsageError('--url is required with PAYMENT_PROVIDER=paytr (the URL of the card page)');
    }

    let failures = 0;
    for (const page of pages) {
      const differences = await checkPaymentPage({ ...page, inventory, expectedHeaders: expectedHeadersOf(page.url) });
      const shown = page.url.replace(/\/guvenli\/[^/?#]+/, '/guvenli/<token>').replace(/\/billing\/card\/[^/?#]+/, '/billing/card/<token>');
      if (differences.length === 0) {
        ctx.out(`ok ${shown}: headers and scripts match ${inventoryFile}`);
      } else {
        failures += differences.length;
        ctx.out(`DIFFERENT ${shown}:`);
        for (const d of differences) ctx.out(`  - ${d}`);
      }
    }
    return failures === 0 ? 0 : 1;
  },
};
