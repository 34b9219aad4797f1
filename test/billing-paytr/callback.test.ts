import formbody from '@fastify/formbody';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { callbackHash, parseCallback } from '../../src/modules/billing/provider/paytr/index.js';
import { CREDS } from './support.js';

function signed(fields: Record<string, string>): Record<string, string> {
  return {
    ...fields,
    hash: callbackHash(CREDS, fields.merchant_oid ?? '', fields.status ?? '', fields.total_amount ?? ''),
  };
}

const SUCCESS = signed({
  merchant_oid: 'PAY019a2b3c',
  status: 'success',
  total_amount: '29900',
  test_mode: '1',
  payment_type: 'card',
  currency: 'TL',
  payment_amount: '29900',
});

const FAILED = signed({
  merchant_oid: 'PAY019a2b3d',
  status: 'failed',
  total_amount: '29900',
  failed_reason_code: '0',
  failed_reason_msg: 'Kart limiti yetersiz',
  test_mode: '0',
  payment_type: 'card',
});

describe('parseCallback', () => {
  it('reads a signed successful payment, mapping TL to TRY', () => {
    expect(parseCallback(SUCCESS, CREDS)).toEqual({
      ok: true,
      payload: {
        merchantOid: 'PAY019a2b3c',
        status: 'success',
        totalAmount: 29900,
        currency: 'TRY',
        failedReasonCode: null,
        failedReasonMsg: null,
        testMode: true,
        paymentType: 'card',
        utoken: null,
      },
    });
  });

  it('reads a signed failed payment with its reason', () => {
    expect(parseCallback(FAILED, CREDS)).toEqual({
      ok: true,
      payload: {
        merchantOid: 'PAY019a2b3d',
        status: 'failed',
        totalAmount: 29900,
        currency: null,
        failedReasonCode: '0',
        failedReasonMsg: 'Kart limiti yetersiz',
        testMode: false,
        paymentType: 'card',
        utoken: null,
      },
    });
  });

  it('reads the utoken of a notification that stored a card (outside the hash)', () => {
    const result = parseCallback({ ...SUCCESS, utoken: 'UTOKabc123', ctoken: 'CTOKxyz' }, CREDS);
    expect(result.ok && result.payload.utoken).toBe('UTOKabc123');
    const blank = parseCallback({ ...SUCCESS, utoken: '  ' }, CREDS);
    expect(blank.ok && blank.payload.utoken).toBeNull();
  });

  it('keeps other currencies as they are', () => {
    const result = parseCallback({ ...SUCCESS, currency: 'USD' }, CREDS);
    expect(result.ok && result.payload.currency).toBe('USD');
  });

  it('refuses a forged hash', () => {
    expect(parseCallback({ ...SUCCESS, hash: 'forged' }, CREDS)).toEqual({ ok: false, error: 'bad_hash' });
    expect(parseCallback({ ...SUCCESS, hash: callbackHash({ ...CREDS, merchantKey: 'other' }, 'PAY019a2b3c', 'success', '29900') }, CREDS)).toEqual({
      ok: false,
      error: 'bad_hash',
    });
  });

  it('refuses a signed notification whose signed fields were changed', () => {
    expect(parseCallback({ ...SUCCESS, total_amount: '1' }, CREDS)).toEqual({ ok: false, error: 'bad_hash' });
    expect(parseCallback({ ...FAILED, status: 'success' }, CREDS)).toEqual({ ok: false, error: 'bad_hash' });
    expect(parseCallback({ ...SUCCESS, merchant_oid: 'PAYother' }, CREDS)).toEqual({ ok: false, error: 'bad_hash' });
  });

  it('reports missing fields', () => {
    for (const name of ['merchant_oid', 'status', 'total_amount', 'hash']) {
      const body: Record<string, string> = { ...SUCCESS };
      delete body[name];
      expect(parseCallback(body, CREDS)).toEqual({ ok: false, error: 'missing_fields' });
      expect(parseCallback({ ...SUCCESS, [name]: '' }, CREDS)).toEqual({ ok: false, error: 'missing_fields' });
    }
  });

  it('refuses wrong types and garbage without throwing', () => {
    for (const body of [
      undefined,
      null,
      'merchant_oid=x',
      42,
      [SUCCESS],
      { ...SUCCESS, merchant_oid: ['a', 'b'] },
      { ...SUCCESS, total_amount: { $gt: 0 } },
      { ...SUCCESS, total_amount: '12.50' },
      { ...SUCCESS, total_amount: '-5' },
      { ...SUCCESS, total_amount: 1.5 },
      { ...SUCCESS, status: 'pending' },
      { ...SUCCESS, hash: true },
      { ...SUCCESS, merchant_oid: 'x'.repeat(5000) },
    ]) {
      expect(parseCallback(body, CREDS)).toEqual({ ok: false, error: 'missing_fields' });
    }
    const proto = Object.create({ merchant_oid: 'inherited' }) as Record<string, unknown>;
    expect(parseCallback(proto, CREDS)).toEqual({ ok: false, error: 'missing_fields' });
  });

  it('accepts JSON numbers for the numeric fields', () => {
    const body = { ...SUCCESS, total_amount: 29900, payment_amount: 29900, test_mode: 1 };
    const result = parseCallback(body, CREDS);
    expect(result.ok && result.payload).toMatchObject({ totalAmount: 29900, testMode: true });
  });

  it('works on bodies parsed by the real form and JSON parsers', async () => {
    const app = Fastify();
    await app.register(formbody);
    app.post('/cb', async (request) => parseCallback(request.body, CREDS));
    const form = await app.inject({
      method: 'POST',
      url: '/cb',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(SUCCESS).toString(),
    });
    expect(form.json()).toMatchObject({ ok: true, payload: { merchantOid: 'PAY019a2b3c', totalAmount: 29900 } });
    const json = await app.inject({ method: 'POST', url: '/cb', payload: FAILED });
    expect(json.json()).toMatchObject({ ok: true, payload: { status: 'failed', failedReasonCode: '0' } });
    const repeated = await app.inject({
      method: 'POST',
      url: '/cb',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `${new URLSearchParams(SUCCESS).toString()}&merchant_oid=PAYevil`,
    });
    expect(repeated.json()).toEqual({ ok: false, error: 'missing_fields' });
    await app.close();
  });
});
