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
    [{ PGLITE_SHARED_BUFFERS: 'lots' }, /PGLITE_SHARED_BUFFERS/],
    [{ PGLITE_SHARED_BUFFERS: '0MB' }, /PGLITE_SHARED_BUFFERS/],
    [{ PGLITE_SHARED_BUFFERS: '32 MB' }, /PGLITE_SHARED_BUFFERS/],
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

  it('TRUST_PROXY, CORS_ORIGINS and PAYMENT_PAGE_FRAME_ANCESTORS: off and empty by default', () => {
    expect(loadConfig({})).toMatchObject({ trustProxy: false, corsOrigins: [], paymentPageFrameAncestors: [] });
    expect(loadConfig({ TRUST_PROXY: 'off' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    expect(loadConfig({ CORS_ORIGINS: 'https://portal.example.com, http://localhost:5173' }).corsOrigins).toEqual([
      'https://portal.example.com',
      'http://localhost:5173',
    ]);
    expect(loadConfig({ PAYMENT_PAGE_FRAME_ANCESTORS: 'https://shop.example.com' }).paymentPageFrameAncestors).toEqual(['https://shop.example.com']);
  });

  it.each([
    [{ TRUST_PROXY: '10.0.0.0/33' }, /TRUST_PROXY.*"10\.0\.0\.0\/33"/],
    [{ TRUST_PROXY: '10.0.0.256' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: '127.0.0.1,proxy.internal' }, /TRUST_PROXY.*"proxy\.internal"/],
    [{ TRUST_PROXY: '::1/129' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: '-1' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: '100' }, /TRUST_PROXY.*hop count/],
    [{ TRUST_PROXY: 'true' }, /TRUST_PROXY/],
    [{ CORS_ORIGINS: '*' }, /CORS_ORIGINS.*"\*"/],
    [{ CORS_ORIGINS: 'https://portal.example.com/' }, /CORS_ORIGINS/],
    [{ CORS_ORIGINS: 'https://portal.example.com/app' }, /CORS_ORIGINS/],
    [{ CORS_ORIGINS: 'portal.example.com' }, /CORS_ORIGINS/],
    [{ CORS_ORIGINS: 'ftp://portal.example.com' }, /CORS_ORIGINS/],
    [{ CORS_ORIGINS: 'https://a.example.com,,https://b.example.com' }, /CORS_ORIGINS/],
    [{ PAYMENT_PAGE_FRAME_ANCESTORS: 'https://*.example.com' }, /PAYMENT_PAGE_FRAME_ANCESTORS/],
  ])('a malformed origin, CIDR or hop count stops start-up naming the variable: %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
