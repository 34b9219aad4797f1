import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaytrClient, formatMajor, parseMajor, PaytrError, refundHash, statusQueryHash } from '../../src/modules/billing/provider/paytr/index.js';
import { type FakeServer, paytrConfig, startServer } from '../billing-paytr/support.js';

describe('minor -> major units for return_amount', () => {
  it('writes two decimals and reads back the same integer, for every amount', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: 1_000_000 }),
          fc.maxSafeNat().map((n) => n % 10_000_000_000_000),
        ),
        (minor) => {
          const major = formatMajor(minor);
          expect(major).toMatch(/^\d+\.\d{2}$/);
          expect(parseMajor(major)).toBe(minor);
          // the digits are those of the integer: no float arithmetic can round them
          expect(BigInt(major.replace('.', ''))).toBe(BigInt(minor));
        },
      ),
    );
  });

  it('gives the documented examples', () => {
    expect(formatMajor(29900)).toBe('299.00');
    expect(formatMajor(5)).toBe('0.05');
    expect(formatMajor(10001)).toBe('100.01');
    expect(parseMajor('299')).toBe(29900);
    expect(parseMajor('299.5')).toBe(29950);
    expect(parseMajor(12.34)).toBe(1234);
  });

  it('refuses what is not an amount', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => formatMajor(bad)).toThrow(RangeError);
    for (const bad of ['-1.00', '1.234', 'abc', '', '1e5', null, undefined, {}, '1,00']) expect(parseMajor(bad)).toBeNull();
  });
});

describe('the PayTR client: odeme/iade and odeme/durum-sorgu against a local HTTP double', () => {
  let server: FakeServer;
  let answer: (path: string) => string = () => '{"status":"success"}';
  beforeAll(async () => {
    server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer(req.url));
    });
  });
  afterAll(async () => server.close());

  it('sends every field of iade, signed, with return_amount in major units', async () => {
    const config = paytrConfig({ apiBase: server.url });
    answer = () => '{"status":"success","is_test":1,"merchant_oid":"ORDER1","return_amount":"123.45"}';
    await createPaytrClient(config).refund({ merchantOid: 'ORDER1', amount: 12345, referenceNo: '0190f4a1-0000-7000-8000-000000000001' });
    const req = server.requests.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/odeme/iade');
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = Object.fromEntries(new URLSearchParams(req.body));
    expect(form).toEqual({
      merchant_id: config.merchantId,
      merchant_oid: 'ORDER1',
      return_amount: '123.45',
      reference_no: '0190f4a1000070008000000000000001',
      paytr_token: refundHash(config, 'ORDER1', '123.45'),
    });
  });

  it('turns a refused, garbled or failing refund into a PaytrError without secrets', async () => {
    const config = paytrConfig({ apiBase: server.url });
    const client = createPaytrClient(config);
    answer = () => JSON.stringify({ status: 'error', err_no: '005', err_msg: `bad ${config.merchantKey}` });
    const refused = await client.refund({ merchantOid: 'ORDER1', amount: 100, referenceNo: 'x' }).catch((e) => e);
    expect(refused).toBeInstanceOf(PaytrError);
    expect(refused).toMatchObject({ kind: 'refused' });
    expect(refused.reason).not.toContain(config.merchantKey);
    answer = () => '<html>oops</html>';
    await expect(client.refund({ merchantOid: 'ORDER1', amount: 100, referenceNo: 'x' })).rejects.toMatchObject({ kind: 'bad_response' });
    answer = () => '{"status":"maybe"}';
    await expect(client.refund({ merchantOid: 'ORDER1', amount: 100, referenceNo: 'x' })).rejects.toMatchObject({ kind: 'bad_response' });
    await expect(createPaytrClient(paytrConfig()).refund({ merchantOid: 'ORDER1', amount: 100, referenceNo: 'x' })).rejects.toMatchObject({ kind: 'network' });
    await expect(client.refund({ merchantOid: 'ORDER1', amount: 0, referenceNo: 'x' })).rejects.toMatchObject({ kind: 'invalid_request' });
  });

  it('sends every field of durum-sorgu, signed, and reads its answer in minor units', async () => {
    const config = paytrConfig({ apiBase: server.url });
    const client = createPaytrClient(config);
    answer = () => '{"status":"success","payment_amount":"299.00","payment_total":"305.50","currency":"TL","returns":[]}';
    expect(await client.status('ORDER2')).toEqual({ state: 'paid', paymentAmount: 29900, paymentTotal: 30550, currency: 'TRY' });
    const req = server.requests.at(-1)!;
    expect(req.url).toBe('/odeme/durum-sorgu');
    expect(Object.fromEntries(new URLSearchParams(req.body))).toEqual({
      merchant_id: config.merchantId,
      merchant_oid: 'ORDER2',
      paytr_token: statusQueryHash(config, 'ORDER2'),
    });
    answer = () => '{"status":"error","err_no":"003","err_msg":"not found"}';
    expect(await client.status('ORDER2')).toEqual({ state: 'unknown', errNo: '003', errMsg: 'not found' });
    answer = () => '{"status":"success","payment_amount":"a lot"}';
    await expect(client.status('ORDER2')).rejects.toMatchObject({ kind: 'bad_response' });
  });
});
