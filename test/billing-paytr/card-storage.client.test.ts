import { createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildTokenForm,
  cardDeleteHash,
  cardListHash,
  createPaytrClient,
  decodeDirectBasket,
  directPaymentHash,
  encodeDirectBasket,
  PaytrError,
  type RecurringChargeRequest,
  type TokenRequest,
  tokenRequestHash,
} from '../../src/modules/billing/provider/paytr/index.js';
import { CREDS, type FakeServer, paytrConfig, startServer } from './support.js';

const hmac = (message: string): string => createHmac('sha256', CREDS.merchantKey).update(message, 'utf8').digest('base64');

const CHARGE: RecurringChargeRequest = {
  merchantOid: 'REN019a2b3c4d',
  utoken: 'UTOKabcdef0123456789',
  ctoken: 'CTOKabcdef0123456789',
  amount: 29900,
  currency: 'TRY',
  email: 'admin@example.com',
  userIp: '::ffff:203.0.113.7',
  userName: 'Ada Admin',
  userAddress: 'Workspace acme',
  userPhone: '05555555555',
  basket: [{ name: 'Pro plan (month) "renewal" & more', amount: 29900, quantity: 1 }],
  okUrl: 'http://127.0.0.1:3000/billing/return/ok',
  failUrl: 'http://127.0.0.1:3000/billing/return/fail',
};

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const json =
  (body: unknown, status = 200) =>
  (_req: unknown, res: ServerResponse) =>
    void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

async function expectPaytrError(promise: Promise<unknown>, kind: string, reason: RegExp): Promise<void> {
  const error = await promise.then(
    () => new Error('expected a PaytrError'),
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
}

const formOf = (s: FakeServer, i = 0): Record<string, string> => Object.fromEntries(new URLSearchParams(s.requests[i]?.body));

describe('card storage signatures', () => {
  it('signs a Direct API payment over merchant_id, user_ip, merchant_oid, email, payment_amount, payment_type, installment_count, currency, test_mode, non_3d, salt', () => {
    const fields = {
      user_ip: '203.0.113.7',
      merchant_oid: 'REN1',
      email: 'a@example.com',
      payment_amount: '299.00',
      payment_type: 'card',
      installment_count: '0',
      currency: 'TL',
      test_mode: '1',
      non_3d: '1',
    };
    expect(directPaymentHash(CREDS, fields)).toBe(hmac(`${CREDS.merchantId}203.0.113.7REN1a@example.com299.00card0TL11${CREDS.merchantSalt}`));
    expect(directPaymentHash(CREDS, { ...fields, non_3d: '0' })).not.toBe(directPaymentHash(CREDS, fields));
  });

  it('signs capi/list over utoken + salt and capi/delete over ctoken + utoken + salt', () => {
    expect(cardListHash(CREDS, 'UT1')).toBe(hmac(`UT1${CREDS.merchantSalt}`));
    expect(cardDeleteHash(CREDS, 'CT1', 'UT1')).toBe(hmac(`CT1UT1${CREDS.merchantSalt}`));
  });

  it('encodes the Direct API basket as HTML-entity JSON and reads it back', () => {
    const encoded = encodeDirectBasket([{ name: 'Pro "x" & <y>', amount: 29900, quantity: 1 }]);
    expect(encoded).toBe('[[&quot;Pro \\&quot;x\\&quot; &amp; &lt;y&gt;&quot;,&quot;299.00&quot;,1]]');
    expect(decodeDirectBasket(encoded)).toEqual([['Pro "x" & <y>', '299.00', 1]]);
    expect(decodeDirectBasket('[["Pro","299.00",1]]')).toEqual([['Pro', '299.00', 1]]);
    expect(decodeDirectBasket('not json')).toBeNull();
  });
});

describe('PayTR client: get-token with card storage', () => {
  const REQ: TokenRequest = {
    merchantOid: 'PAY1',
    email: 'a@example.com',
    amount: 29900,
    currency: 'TRY',
    userIp: '127.0.0.1',
    userName: 'A',
    userAddress: 'acme',
    userPhone: '0555',
    basket: [{ name: 'Pro', amount: 29900, quantity: 1 }],
    okUrl: 'http://127.0.0.1/ok',
    failUrl: 'http://127.0.0.1/fail',
  };

  it('sends store_card=1 and the utoken outside the hash, and nothing of them when not asked', () => {
    const plain = Object.fromEntries(buildTokenForm(paytrConfig(), REQ));
    expect(plain).not.toHaveProperty('store_card');
    expect(plain).not.toHaveProperty('utoken');
    const storing = Object.fromEntries(buildTokenForm(paytrConfig(), { ...REQ, storeCard: true, utoken: 'UTOK1' }));
    expect(storing).toMatchObject({ store_card: '1', utoken: 'UTOK1', paytr_token: plain.paytr_token });
    expect(storing.paytr_token).toBe(tokenRequestHash(CREDS, storing as never));
    expect(Object.fromEntries(buildTokenForm(paytrConfig(), { ...REQ, storeCard: true, utoken: null }))).not.toHaveProperty('utoken');
  });
});

describe('PayTR client: recurring charge of a stored card', () => {
  it('form-posts the Direct API fields to /odeme with a paytr_token that verifies', async () => {
    server = await startServer(json({ status: 'success' }));
    await expect(createPaytrClient(paytrConfig({ apiBase: server.url })).chargeStoredCard(CHARGE)).resolves.toEqual({ status: 'success' });
    const req = server.requests[0];
    expect(req?.url).toBe('/odeme');
    expect(req?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = formOf(server);
    expect(form).toMatchObject({
      merchant_id: CREDS.merchantId,
      user_ip: '203.0.113.7',
      merchant_oid: CHARGE.merchantOid,
      email: CHARGE.email,
      payment_amount: '299.00',
      payment_type: 'card',
      installment_count: '0',
      currency: 'TL',
      test_mode: '1',
      non_3d: '1',
      recurring_payment: '1',
      utoken: CHARGE.utoken,
      ctoken: CHARGE.ctoken,
      merchant_ok_url: CHARGE.okUrl,
      merchant_fail_url: CHARGE.failUrl,
    });
    expect(decodeDirectBasket(form.user_basket as string)).toEqual([['Pro plan (month) "renewal" & more', '299.00', 1]]);
    expect(form.paytr_token).toBe(hmac(`${CREDS.merchantId}203.0.113.7${CHARGE.merchantOid}${CHARGE.email}299.00card0TL11${CREDS.merchantSalt}`));
    expect(req?.body).not.toContain(CREDS.merchantKey);
    expect(req?.body).not.toContain(CREDS.merchantSalt);
    expect(form).not.toHaveProperty('card_number');
    expect(form).not.toHaveProperty('cvv');
  });

  it('reads wait_callback, and failed with msg and try_again (absent means it may be retried)', async () => {
    const answers: unknown[] = [
      { status: 'wait_callback' },
      { status: 'failed', msg: 'insufficient_funds', try_again: true },
      { status: 'failed', msg: 'card_closed', try_again: false },
      { status: 'failed', msg: 'card_closed', try_again: '0' },
      { status: 'failed', msg: 'Bakiye yetersiz' },
      { status: 'failed', msg: `bad ${CREDS.merchantSalt} salt` },
    ];
    server = await startServer((_r, res, i) => json(answers[i])(_r, res));
    const client = createPaytrClient(paytrConfig({ apiBase: server.url }));
    const results = [];
    for (let i = 0; i < answers.length; i++) results.push(await client.chargeStoredCard({ ...CHARGE, merchantOid: `REN${i}` }));
    expect(results).toEqual([
      { status: 'wait_callback' },
      { status: 'failed', reason: 'insufficient_funds', tryAgain: true },
      { status: 'failed', reason: 'card_closed', tryAgain: false },
      { status: 'failed', reason: 'card_closed', tryAgain: false },
      { status: 'failed', reason: 'Bakiye yetersiz', tryAgain: true },
      { status: 'failed', reason: 'bad [redacted] salt', tryAgain: true },
    ]);
  });

  it('throws PaytrError when the outcome is unknown: timeout, HTTP error, not JSON, unknown status, unreachable', async () => {
    server = await startServer(() => undefined);
    await expectPaytrError(createPaytrClient(paytrConfig({ apiBase: server.url, timeoutMs: 150 })).chargeStoredCard(CHARGE), 'timeout', /150 ms/);
    await server.close();
    server = await startServer(json({ status: 'success' }, 502));
    await expectPaytrError(createPaytrClient(paytrConfig({ apiBase: server.url })).chargeStoredCard(CHARGE), 'http_status', /HTTP 502/);
    await server.close();
    server = await startServer((_r, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>3D form</html>'));
    await expectPaytrError(createPaytrClient(paytrConfig({ apiBase: server.url })).chargeStoredCard(CHARGE), 'bad_response', /not JSON/);
    await server.close();
    server = await startServer(json({ status: 'pending' }));
    await expectPaytrError(createPaytrClient(paytrConfig({ apiBase: server.url })).chargeStoredCard(CHARGE), 'bad_response', /unknown status/);
    const url = server.url;
    await server.close();
    server = undefined;
    await expectPaytrError(createPaytrClient(paytrConfig({ apiBase: url })).chargeStoredCard(CHARGE), 'network', /could not reach/);
  });

  it('refuses a malformed charge before calling the provider', async () => {
    server = await startServer(json({ status: 'success' }));
    const client = createPaytrClient(paytrConfig({ apiBase: server.url }));
    await expectPaytrError(client.chargeStoredCard({ ...CHARGE, amount: 0 }), 'invalid_request', /amount/);
    await expectPaytrError(client.chargeStoredCard({ ...CHARGE, ctoken: '' }), 'invalid_request', /ctoken/);
    await expectPaytrError(client.chargeStoredCard({ ...CHARGE, merchantOid: 'a-b' }), 'invalid_request', /merchant_oid/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('PayTR client: capi/list and capi/delete', () => {
  it('lists cards, normalising the year to four digits and the scheme to a lower-case brand', async () => {
    server = await startServer(
      json([
        { ctoken: 'C1', last_4: '4358', month: '12', year: '30', schema: 'VISA', c_bank: 'X', require_cvv: '0' },
        { ctoken: 'C2', last_4: '5403', month: '3', year: '2031', schema: 'MASTERCARD', require_cvv: '1' },
        { ctoken: 'C3', last_4: '0796', month: 7, year: 29 },
      ]),
    );
    const cards = await createPaytrClient(paytrConfig({ apiBase: server.url })).listCards('UT1');
    expect(cards).toEqual([
      { ctoken: 'C1', last4: '4358', expMonth: 12, expYear: 2030, brand: 'visa', requireCvv: false },
      { ctoken: 'C2', last4: '5403', expMonth: 3, expYear: 2031, brand: 'mastercard', requireCvv: true },
      { ctoken: 'C3', last4: '0796', expMonth: 7, expYear: 2029, brand: 'unknown', requireCvv: false },
    ]);
    expect(server.requests[0]?.url).toBe('/odeme/capi/list');
    expect(formOf(server)).toEqual({ merchant_id: CREDS.merchantId, utoken: 'UT1', paytr_token: hmac(`UT1${CREDS.merchantSalt}`) });
  });

  it('reads an empty JSON as no cards, and an error as a PaytrError', async () => {
    const answers: unknown[] = [{}, [], { status: 'error', err_msg: 'Gecersiz istek' }, [{ ctoken: 'C1' }], { cards: [] }];
    server = await startServer((_r, res, i) => json(answers[i])(_r, res));
    const client = createPaytrClient(paytrConfig({ apiBase: server.url }));
    await expect(client.listCards('UT1')).resolves.toEqual([]);
    await expect(client.listCards('UT1')).resolves.toEqual([]);
    await expectPaytrError(client.listCards('UT1'), 'refused', /Gecersiz istek/);
    await expectPaytrError(client.listCards('UT1'), 'bad_response', /card/);
    await expectPaytrError(client.listCards('UT1'), 'bad_response', /unexpected/);
  });

  it('deletes a card with ctoken, utoken and their paytr_token; an error is a PaytrError', async () => {
    const answers: unknown[] = [{ status: 'success' }, { status: 'error', err_msg: 'kart bulunamadi' }];
    server = await startServer((_r, res, i) => json(answers[i])(_r, res));
    const client = createPaytrClient(paytrConfig({ apiBase: server.url }));
    await expect(client.deleteCard('UT1', 'CT1')).resolves.toBeUndefined();
    expect(server.requests[0]?.url).toBe('/odeme/capi/delete');
    expect(formOf(server)).toEqual({ merchant_id: CREDS.merchantId, ctoken: 'CT1', utoken: 'UT1', paytr_token: hmac(`CT1UT1${CREDS.merchantSalt}`) });
    await expectPaytrError(client.deleteCard('UT1', 'CT1'), 'refused', /kart bulunamadi/);
  });
});
