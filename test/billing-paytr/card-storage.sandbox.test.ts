import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { loadConfig, type PaytrConfig } from '../../src/config/config.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { databaseSandboxStore } from '../../src/modules/billing/provider/provider.sandbox-store.js';
import {
  buildRecurringChargeForm,
  createPaytrClient,
  parseCallback,
  PaytrError,
  type RecurringChargeRequest,
  sandboxRoutes,
  type TokenRequest,
} from '../../src/modules/billing/provider/paytr/index.js';
import { openTestDatabase } from '../helpers/databases.js';
import { eventually, type FakeServer, type Recorded, startServer } from './support.js';

/**
 * The sandbox's card storage over real HTTP on a real (migrated) database: a card is stored by paying with
 * store_card, listed, charged (each test card's behaviour), charged once per merchant_oid, and removed.
 */
const config = loadConfig({ PAYTR_TIMEOUT_MS: '3000' });
const CARD_NUMBERS = ['4355084355084358', '4000000000000341', '4000000000000069', '4000000000000002', '4000000000003220', '4000000000009995'];
let db: DatabaseHandle;
let app: FastifyInstance;
let receiver: FakeServer;
let paytr: PaytrConfig;
let base: string;
const logLines: string[] = [];

beforeAll(async () => {
  db = await openTestDatabase({ pgliteTemplate: inject('pgliteTemplate'), postgresTemplate: inject('postgresTemplate') });
  receiver = await startServer((_req: Recorded, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('OK'));
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  app = Fastify({ logger: { level: 'trace', stream } });
  await app.register(sandboxRoutes, {
    config,
    callbackUrl: `${receiver.url}/api/webhooks/provider/callback/`,
    retryDelaysMs: [20, 20],
    store: databaseSandboxStore(db.db),
    waitCallbackDelayMs: 150,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  paytr = { ...config.paytr, apiBase: `${base}/sandbox/paytr`, iframeBase: `${base}/sandbox/paytr` };
});

afterAll(async () => {
  await app.close();
  await receiver.close();
  await db.close();
});

beforeEach(() => {
  receiver.requests.length = 0;
});

let seq = 0;
const oid = (prefix: string): string => `${prefix}${Date.now()}${++seq}`;

function order(overrides: Partial<TokenRequest> = {}): TokenRequest {
  return {
    merchantOid: oid('CHK'),
    email: 'admin@example.com',
    amount: 29900,
    currency: 'TRY',
    userIp: '127.0.0.1',
    userName: 'Ada Admin',
    userAddress: 'Workspace acme',
    userPhone: '05555555555',
    basket: [{ name: 'Pro plan (month)', amount: 29900, quantity: 1 }],
    okUrl: 'http://127.0.0.1:3000/billing/return/ok',
    failUrl: 'http://127.0.0.1:3000/billing/return/fail',
    ...overrides,
  };
}

function charge(utoken: string, ctoken: string, overrides: Partial<RecurringChargeRequest> = {}): RecurringChargeRequest {
  return {
    merchantOid: oid('REN'),
    utoken,
    ctoken,
    amount: 29900,
    currency: 'TRY',
    email: 'admin@example.com',
    userIp: '127.0.0.1',
    userName: 'Ada Admin',
    userAddress: 'Workspace acme',
    userPhone: '05555555555',
    basket: [{ name: 'Pro plan (month), renewal', amount: 29900, quantity: 1 }],
    okUrl: 'http://127.0.0.1:3000/billing/return/ok',
    failUrl: 'http://127.0.0.1:3000/billing/return/fail',
    ...overrides,
  };
}

const notificationsFor = (merchantOid: string): Record<string, string>[] =>
  receiver.requests.map((r) => Object.fromEntries(new URLSearchParams(r.body))).filter((f) => f.merchant_oid === merchantOid);

/** Checkout with store_card through get-token and the payment page's Pay form; answers the notification. */
async function payAndStore(cardNumber: string | undefined, utoken?: string | null, storeCard = true) {
  const client = createPaytrClient(paytr);
  const req = order({ storeCard, utoken });
  const { iframeUrl } = await client.getToken(req);
  const page = await fetch(iframeUrl);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('name="card_number"');
  const res = await fetch(`${iframeUrl}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: cardNumber === undefined ? '' : new URLSearchParams({ card_number: cardNumber }).toString(),
    redirect: 'manual',
  });
  await eventually(() => notificationsFor(req.merchantOid).length > 0);
  const fields = notificationsFor(req.merchantOid)[0] as Record<string, string>;
  const parsed = parseCallback(fields, paytr);
  if (!parsed.ok) throw new Error('the notification did not verify');
  return { res, payload: parsed.payload, fields, merchantOid: req.merchantOid };
}

async function countCharges(merchantOid: string): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM sandbox_charges WHERE merchant_oid = ${merchantOid}`.execute(db.db);
  return r.rows[0]?.n ?? -1;
}

describe('sandbox card storage', () => {
  let utoken = '';

  it('stores the card of a store_card payment and tells its utoken in the notification', async () => {
    const { res, payload, fields } = await payAndStore('4000 0000 0000 0341');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('http://127.0.0.1:3000/billing/return/ok');
    expect(payload.status).toBe('success');
    expect(payload.utoken).toMatch(/^[A-Za-z0-9]{16,}$/);
    expect(fields.ctoken).toMatch(/^[A-Za-z0-9]{16,}$/);
    utoken = payload.utoken as string;
    const cards = await createPaytrClient(paytr).listCards(utoken);
    expect(cards).toEqual([{ ctoken: fields.ctoken, last4: '0341', expMonth: 12, expYear: 2030, brand: 'visa', requireCvv: false }]);
  });

  it('adds a card of a later payment to the same utoken; without store_card nothing is stored', async () => {
    const second = await payAndStore(undefined, utoken);
    expect(second.payload.utoken).toBe(utoken);
    const plain = await payAndStore('4000000000000069', utoken, false);
    expect(plain.payload.status).toBe('success');
    expect(plain.payload.utoken).toBeNull();
    const cards = await createPaytrClient(paytr).listCards(utoken);
    expect(cards.map((c) => c.last4)).toEqual(['0341', '4358']);
  });

  it('declines 4000000000000002 at once and stores nothing', async () => {
    const { res, payload } = await payAndStore('4000000000000002', utoken);
    expect(res.headers.get('location')).toBe('http://127.0.0.1:3000/billing/return/fail');
    expect(payload.status).toBe('failed');
    expect(payload.utoken).toBeNull();
    expect(await createPaytrClient(paytr).listCards(utoken)).toHaveLength(2);
  });

  it('answers 400 for a card number that is not 12-19 digits, and keeps the order open', async () => {
    const { iframeUrl } = await createPaytrClient(paytr).getToken(order({ storeCard: true }));
    for (const bad of ['4355', '4355-0843-abcd-4358', '43550843550843584355']) {
      const res = await fetch(`${iframeUrl}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ card_number: bad }).toString(),
        redirect: 'manual',
      });
      expect(res.status).toBe(400);
      expect(await res.text()).not.toContain(bad);
    }
    expect((await fetch(iframeUrl)).status).toBe(200);
  });

  it('lists nothing (an empty JSON) for an unknown utoken, and refuses a bad paytr_token', async () => {
    expect(await createPaytrClient(paytr).listCards('nosuchutoken')).toEqual([]);
    const forged = createPaytrClient({ ...paytr, merchantKey: 'not-the-key' });
    await expect(forged.listCards(utoken)).rejects.toMatchObject({ kind: 'refused', reason: expect.stringMatching(/paytr_token/) });
    await expect(forged.deleteCard(utoken, 'x')).rejects.toBeInstanceOf(PaytrError);
  });
});

describe('sandbox recurring charges', () => {
  const client = () => createPaytrClient(paytr);
  const cards: Record<string, { utoken: string; ctoken: string }> = {};

  beforeAll(async () => {
    for (const number of ['4355084355084358', '4000000000000341', '4000000000000069', '4000000000003220', '4000000000009995']) {
      const { payload, fields } = await payAndStore(number);
      cards[number] = { utoken: payload.utoken as string, ctoken: fields.ctoken as string };
    }
  });

  const card = (n: string) => cards[n] as { utoken: string; ctoken: string };

  it('charges the default card: success, a success notification, one row', async () => {
    const req = charge(card('4355084355084358').utoken, card('4355084355084358').ctoken);
    expect(await client().chargeStoredCard(req)).toEqual({ status: 'success' });
    await eventually(() => notificationsFor(req.merchantOid).length > 0);
    const parsed = parseCallback(notificationsFor(req.merchantOid)[0], paytr);
    expect(parsed.ok && parsed.payload).toMatchObject({ status: 'success', totalAmount: 29900, currency: 'TRY' });
    expect(await countCharges(req.merchantOid)).toBe(1);
    // The status query knows the charge.
    await expect(client().status(req.merchantOid)).resolves.toMatchObject({ state: 'paid', paymentAmount: 29900 });
    await expect(client().refund({ merchantOid: req.merchantOid, amount: 10000, referenceNo: 'R1' })).resolves.toBeUndefined();
  });

  it('declines 4000000000000341 with insufficient_funds (try again) and 4000000000000069 with card_closed (final)', async () => {
    const soft = charge(card('4000000000000341').utoken, card('4000000000000341').ctoken);
    expect(await client().chargeStoredCard(soft)).toEqual({ status: 'failed', reason: 'insufficient_funds', tryAgain: true });
    const hard = charge(card('4000000000000069').utoken, card('4000000000000069').ctoken);
    expect(await client().chargeStoredCard(hard)).toEqual({ status: 'failed', reason: 'card_closed', tryAgain: false });
    await eventually(() => notificationsFor(soft.merchantOid).length > 0 && notificationsFor(hard.merchantOid).length > 0);
    const parsed = parseCallback(notificationsFor(hard.merchantOid)[0], paytr);
    expect(parsed.ok && parsed.payload).toMatchObject({ status: 'failed', failedReasonMsg: 'card_closed' });
    await expect(client().status(hard.merchantOid)).resolves.toMatchObject({ state: 'unknown' });
  });

  it('answers wait_callback for 4000000000003220 and delivers the outcome by the notification only', async () => {
    const req = charge(card('4000000000003220').utoken, card('4000000000003220').ctoken);
    expect(await client().chargeStoredCard(req)).toEqual({ status: 'wait_callback' });
    expect(notificationsFor(req.merchantOid)).toHaveLength(0);
    await eventually(() => notificationsFor(req.merchantOid).length > 0);
    const parsed = parseCallback(notificationsFor(req.merchantOid)[0], paytr);
    expect(parsed.ok && parsed.payload.status).toBe('success');
    const failing = charge(card('4000000000009995').utoken, card('4000000000009995').ctoken);
    expect(await client().chargeStoredCard(failing)).toEqual({ status: 'wait_callback' });
    await eventually(() => notificationsFor(failing.merchantOid).length > 0);
    const failed = parseCallback(notificationsFor(failing.merchantOid)[0], paytr);
    expect(failed.ok && failed.payload).toMatchObject({ status: 'failed', failedReasonMsg: 'insufficient_funds' });
  });

  it('charges a merchant_oid once: repeats and concurrent duplicates get the first answer and charge nothing', async () => {
    const req = charge(card('4355084355084358').utoken, card('4355084355084358').ctoken);
    const answers = await Promise.all(Array.from({ length: 5 }, () => client().chargeStoredCard(req)));
    expect(answers).toEqual(Array.from({ length: 5 }, () => ({ status: 'success' })));
    expect(await client().chargeStoredCard({ ...req, amount: 100 })).toEqual({ status: 'success' });
    expect(await countCharges(req.merchantOid)).toBe(1);
    const declined = charge(card('4000000000000341').utoken, card('4000000000000341').ctoken);
    await client().chargeStoredCard(declined);
    expect(await client().chargeStoredCard(declined)).toEqual({ status: 'failed', reason: 'insufficient_funds', tryAgain: true });
    expect(await countCharges(declined.merchantOid)).toBe(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(notificationsFor(req.merchantOid)).toHaveLength(1);
  });

  it('refuses a bad hash, a request without recurring_payment, and an unknown card, charging nothing', async () => {
    const req = charge(card('4355084355084358').utoken, card('4355084355084358').ctoken);
    const post = async (form: URLSearchParams) =>
      (
        await fetch(`${paytr.apiBase}/odeme`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() })
      ).json();
    const forged = buildRecurringChargeForm({ ...paytr, merchantKey: 'wrong' }, req);
    expect(await post(forged)).toMatchObject({ status: 'failed', msg: expect.stringMatching(/paytr_token/) });
    const tampered = buildRecurringChargeForm(paytr, req);
    tampered.set('payment_amount', '1.00');
    expect(await post(tampered)).toMatchObject({ status: 'failed', msg: expect.stringMatching(/paytr_token/) });
    const notRecurring = buildRecurringChargeForm(paytr, req);
    notRecurring.delete('recurring_payment');
    expect(await post(notRecurring)).toMatchObject({ status: 'failed', msg: expect.stringMatching(/recurring_payment/) });
    expect(await countCharges(req.merchantOid)).toBe(0);
    expect(await client().chargeStoredCard({ ...req, ctoken: 'unknownctoken' })).toMatchObject({ status: 'failed', tryAgain: false });
    expect(await countCharges(req.merchantOid)).toBe(0);
  });

  it('deletes a card: gone from the list, its charges fail as final, a second delete is refused', async () => {
    const { utoken, ctoken } = card('4355084355084358');
    await client().deleteCard(utoken, ctoken);
    expect(await client().listCards(utoken)).toEqual([]);
    expect(await client().chargeStoredCard(charge(utoken, ctoken))).toMatchObject({ status: 'failed', tryAgain: false });
    await expect(client().deleteCard(utoken, ctoken)).rejects.toMatchObject({ kind: 'refused' });
  });

  it('never keeps or logs a card number', async () => {
    for (const table of ['sandbox_cards', 'sandbox_charges', 'sandbox_orders']) {
      const rows = await sql<{ t: string }>`SELECT row_to_json(x)::text AS t FROM ${sql.table(table)} x`.execute(db.db);
      expect(rows.rows.length).toBeGreaterThan(0);
      const text = rows.rows.map((r) => r.t).join('\n');
      for (const number of CARD_NUMBERS) expect(text).not.toContain(number);
    }
    const logs = logLines.join('');
    expect(logs).toContain('sandbox: card stored');
    for (const number of CARD_NUMBERS) {
      expect(logs).not.toContain(number);
      expect(logs).not.toContain(number.replace(/(\d{4})(?=\d)/g, '$1 '));
    }
  });
});
