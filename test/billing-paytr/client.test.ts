import { afterEach, describe, expect, it } from 'vitest';
import { createPaytrClient, PaytrError, type TokenHashFields, type TokenRequest, tokenRequestHash } from '../../src/modules/billing/provider/paytr/index.js';
import { CREDS, type FakeServer, paytrConfig, startServer } from './support.js';

const REQUEST: TokenRequest = {
  merchantOid: 'PAY019a2b3c4d5e',
  email: 'admin@example.com',
  amount: 23920,
  currency: 'TRY',
  userIp: '203.0.113.7',
  userName: 'Ada Admin',
  userAddress: 'Workspace acme',
  userPhone: '05555555555',
  basket: [{ name: 'Pro plan (month)', amount: 23920, quantity: 1 }],
  okUrl: 'http://127.0.0.1:3000/billing/return/ok',
  failUrl: 'http://127.0.0.1:3000/billing/return/fail',
};

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function json(body: unknown, status = 200) {
  return (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
}

async function expectPaytrError(promise: Promise<unknown>, kind: string, reason: RegExp): Promise<PaytrError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a PaytrError');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PaytrError);
  const pe = error as PaytrError;
  expect(pe.kind).toBe(kind);
  expect(pe.reason).toMatch(reason);
  for (const secret of [CREDS.merchantKey, CREDS.merchantSalt]) {
    expect(pe.reason).not.toContain(secret);
    expect(pe.message).not.toContain(secret);
  }
  return pe;
}

describe('PayTR client: token request', () => {
  it('returns the token and the iframe URL on success', async () => {
    server = await startServer(json({ status: 'success', token: 'abc123TOKEN' }));
    const client = createPaytrClient(paytrConfig({ apiBase: server.url }));
    const result = await client.getToken(REQUEST);
    expect(result).toEqual({ token: 'abc123TOKEN', iframeUrl: 'https://pay.example.test/odeme/guvenli/abc123TOKEN' });
  });

  it('form-posts every field to /odeme/api/get-token with a paytr_token that verifies', async () => {
    server = await startServer(json({ status: 'success', token: 't' }));
    await createPaytrClient(paytrConfig({ apiBase: server.url })).getToken({ ...REQUEST, timeoutLimitMinutes: 15 });
    const [req] = server.requests;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/odeme/api/get-token');
    expect(req?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = Object.fromEntries(new URLSearchParams(req?.body));
    expect(Object.keys(form).sort()).toEqual(
      [
        'merchant_id',
        'user_ip',
        'merchant_oid',
        'email',
        'payment_amount',
        'paytr_token',
        'user_basket',
        'debug_on',
        'no_installment',
        'max_installment',
        'user_name',
        'user_address',
        'user_phone',
        'merchant_ok_url',
        'merchant_fail_url',
        'timeout_limit',
        'currency',
        'test_mode',
      ].sort(),
    );
    expect(form).toMatchObject({
      merchant_id: CREDS.merchantId,
      user_ip: '203.0.113.7',
      merchant_oid: 'PAY019a2b3c4d5e',
      email: 'admin@example.com',
      payment_amount: '23920',
      currency: 'TL',
      test_mode: '1',
      debug_on: '1',
      no_installment: '1',
      max_installment: '0',
      user_name: 'Ada Admin',
      user_address: 'Workspace acme',
      user_phone: '05555555555',
      merchant_ok_url: REQUEST.okUrl,
      merchant_fail_url: REQUEST.failUrl,
      timeout_limit: '15',
    });
    expect(JSON.parse(Buffer.from(form.user_basket as string, 'base64').toString('utf8'))).toEqual([['Pro plan (month)', '239.20', 1]]);
    const expected = tokenRequestHash(CREDS, {
      user_ip: form.user_ip as string,
      merchant_oid: form.merchant_oid as string,
      email: form.email as string,
      payment_amount: form.payment_amount as string,
      user_basket: form.user_basket as string,
      no_installment: form.no_installment as string,
      max_installment: form.max_installment as string,
      currency: form.currency as string,
      test_mode: form.test_mode as string,
    });
    expect(form.paytr_token).toBe(expected);
    // The credentials themselves never travel.
    expect(req?.body).not.toContain(CREDS.merchantKey);
    expect(req?.body).not.toContain(CREDS.merchantSalt);
  });

  it('sends other currencies unchanged, test_mode 0 in live mode and the default timeout_limit of 30', async () => {
    server = await startServer(json({ status: 'success', token: 't' }));
    await createPaytrClient(paytrConfig({ apiBase: server.url, testMode: false })).getToken({ ...REQUEST, currency: 'USD' });
    const form = Object.fromEntries(new URLSearchParams(server.requests[0]?.body));
    expect(form).toMatchObject({ currency: 'USD', test_mode: '0', debug_on: '0', timeout_limit: '30' });
  });

  it('fits the display-only customer fields to PayTR limits and sends an IPv4-mapped address as plain IPv4', async () => {
    server = await startServer(json({ status: 'success', token: 't' }));
    await createPaytrClient(paytrConfig({ apiBase: server.url })).getToken({
      ...REQUEST,
      userIp: '::ffff:198.51.100.4',
      userName: `${'ğ'.repeat(59)}😀😀`,
      userAddress: '   ',
      userPhone: '+90 (555) 555 55 55 ext 1234',
    });
    const form = Object.fromEntries(new URLSearchParams(server.requests[0]?.body));
    expect(form.user_ip).toBe('198.51.100.4');
    expect(form.user_name).toBe(`${'ğ'.repeat(59)}😀`);
    expect(form.user_address).toBe('-');
    expect(form.user_phone).toBe('+90 (555) 555 55 55');
    // The hash covers what was sent.
    expect(form.paytr_token).toBe(tokenRequestHash(CREDS, form as unknown as TokenHashFields));
  });

  it("throws PaytrError with PayTR's reason when the status is failed", async () => {
    server = await startServer(json({ status: 'failed', reason: 'paytr_token gonderilen degerlerle uyusmuyor' }));
    const client = createPaytrClient(paytrConfig({ apiBase: server.url }));
    await expectPaytrError(client.getToken(REQUEST), 'refused', /^paytr_token gonderilen degerlerle uyusmuyor$/);
  });

  it('never echoes a credential that appears in a refusal reason', async () => {
    server = await startServer(json({ status: 'failed', reason: `bad key ${CREDS.merchantKey} salt ${CREDS.merchantSalt}` }));
    const client = createPaytrClient(paytrConfig({ apiBase: server.url }));
    await expectPaytrError(client.getToken(REQUEST), 'refused', /bad key \[redacted\] salt \[redacted\]/);
  });

  it('times out when the provider never answers', async () => {
    server = await startServer(() => undefined);
    const client = createPaytrClient(paytrConfig({ apiBase: server.url, timeoutMs: 150 }));
    const started = Date.now();
    await expectPaytrError(client.getToken(REQUEST), 'timeout', /no answer within 150 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('throws when the provider answers HTTP 500', async () => {
    server = await startServer(json({ status: 'success', token: 'x' }, 500));
    await expectPaytrError(createPaytrClient(paytrConfig({ apiBase: server.url })).getToken(REQUEST), 'http_status', /HTTP 500/);
  });

  it('throws when the body is not JSON', async () => {
    server = await startServer((_r, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>'));
    await expectPaytrError(createPaytrClient(paytrConfig({ apiBase: server.url })).getToken(REQUEST), 'bad_response', /not JSON/);
  });

  it('throws when the JSON is not the expected answer', async () => {
    for (const body of [[1, 2], 'success', { status: 'weird' }, { status: 'success' }, { status: 'success', token: '' }]) {
      server = await startServer(json(body));
      await expectPaytrError(createPaytrClient(paytrConfig({ apiBase: server.url })).getToken(REQUEST), 'bad_response', /./);
      await server.close();
      server = undefined;
    }
  });

  it('throws when the provider cannot be reached', async () => {
    server = await startServer(json({}));
    const url = server.url;
    await server.close();
    server = undefined;
    await expectPaytrError(createPaytrClient(paytrConfig({ apiBase: url })).getToken(REQUEST), 'network', /could not reach/);
  });

  it('refuses a request it cannot sign correctly before calling the provider', async () => {
    server = await startServer(json({ status: 'success', token: 't' }));
    const client = createPaytrClient(paytrConfig({ apiBase: server.url }));
    await expectPaytrError(client.getToken({ ...REQUEST, amount: 12.5 }), 'invalid_request', /amount/);
    await expectPaytrError(client.getToken({ ...REQUEST, merchantOid: 'has-dash' }), 'invalid_request', /merchant_oid/);
    await expectPaytrError(client.getToken({ ...REQUEST, basket: [] }), 'invalid_request', /basket/);
    expect(server.requests).toHaveLength(0);
  });

  it('uses an injected fetch', async () => {
    const calls: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      calls.push(String(input));
      return new Response(JSON.stringify({ status: 'success', token: 'injected' }));
    };
    const client = createPaytrClient(paytrConfig({ apiBase: 'https://paytr.invalid' }), { fetch: fakeFetch });
    expect((await client.getToken(REQUEST)).token).toBe('injected');
    expect(calls).toEqual(['https://paytr.invalid/odeme/api/get-token']);
  });
});
