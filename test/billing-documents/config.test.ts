import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('configuration of billing documents', () => {
  it('defaults to 20 % KDV and a seller with only a name', () => {
    const c = loadConfig({});
    expect(c.billingTaxRateBp).toBe(2000);
    expect(c.billingSeller).toEqual({ name: 'Work Item Service', taxId: null, taxOffice: null, address: null });
  });

  it('reads the rate and the seller', () => {
    const c = loadConfig({
      BILLING_TAX_RATE_BP: '1000',
      BILLING_SELLER_NAME: ' Örnek A.Ş. ',
      BILLING_SELLER_TAX_ID: '4540536920',
      BILLING_SELLER_TAX_OFFICE: 'Beşiktaş',
      BILLING_SELLER_ADDRESS: 'İstanbul',
    });
    expect(c.billingTaxRateBp).toBe(1000);
    expect(c.billingSeller).toEqual({ name: 'Örnek A.Ş.', taxId: '4540536920', taxOffice: 'Beşiktaş', address: 'İstanbul' });
  });

  it('stops start-up on a bad value, naming the variable', () => {
    for (const [env, name] of [
      [{ BILLING_TAX_RATE_BP: '-1' }, /BILLING_TAX_RATE_BP/],
      [{ BILLING_TAX_RATE_BP: '10001' }, /BILLING_TAX_RATE_BP/],
      [{ BILLING_TAX_RATE_BP: '20%' }, /BILLING_TAX_RATE_BP/],
      [{ BILLING_SELLER_TAX_ID: '12345' }, /BILLING_SELLER_TAX_ID/],
      [{ BILLING_SELLER_NAME: 'x'.repeat(256) }, /BILLING_SELLER_NAME/],
    ] as const) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(name);
    }
  });
});
