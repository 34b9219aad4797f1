import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: null,
      dataDir: './data',
      paymentProvider: 'sandbox',
      allowSignup: true,
      billingGraceDays: 7,
    });
    expect(c.paytr.apiBase).toBe('http://127.0.0.1:3000/sandbox/paytr');
    expect(Object.isFrozen(c)).toBe(true);
  });

  it.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ PAYMENT_PROVIDER: 'stripe' }, /PAYMENT_PROVIDER/],
    [{ PAYMENT_PROVIDER: 'paytr' }, /PAYTR_MERCHANT_ID/],
    [{ ALLOW_SIGNUP: 'maybe' }, /ALLOW_SIGNUP/],
    [{ BILLING_GRACE_DAYS: '-1' }, /BILLING_GRACE_DAYS/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
  ])('stops on a bad value: %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('never echoes a secret in its messages', () => {
    try {
      loadConfig({ PAYMENT_PROVIDER: 'paytr', PAYTR_MERCHANT_ID: '1', PAYTR_MERCHANT_KEY: 'supersecret' });
    } catch (error) {
      expect(String(error)).not.toContain('supersecret');
    }
  });
});
