/** SMTP_URL and MAIL_FROM (contract 26.3): a bad value stops start-up with a message naming the variable, no secret. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('mail configuration', () => {
  it('reads SMTP_URL and MAIL_FROM, with defaults', () => {
    const plain = loadConfig({});
    expect(plain.mail).toMatchObject({
      smtpUrl: null,
      from: 'Work Item Service <no-reply@localhost>',
      batchWindowS: 120,
      retryScheduleS: [10, 60, 300, 1800, 7200, 21600, 86400],
    });
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://wis.example.com' }).mail.from).toBe('Work Item Service <no-reply@wis.example.com>');
    const set = loadConfig({ SMTP_URL: 'smtps://user:p%40ss@mail.example.com:465', MAIL_FROM: 'Acme <ops@acme.test>', MAIL_RETRY_SCHEDULE: '5,10' });
    expect(set.mail).toMatchObject({ smtpUrl: 'smtps://user:p%40ss@mail.example.com:465', from: 'Acme <ops@acme.test>', retryScheduleS: [5, 10] });
    expect(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525' }).mail.smtpUrl).toBe('smtp://127.0.0.1:2525');
  });

  it('refuses bad values without echoing the password', () => {
    for (const bad of ['http://mail.example.com', 'mail.example.com:25', 'smtp://', 'smtp://:secretpw@host:25', 'smtp://host:25/path']) {
      let error: unknown;
      try {
        loadConfig({ SMTP_URL: bad });
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/^SMTP_URL/);
      expect((error as Error).message).not.toContain('secretpw');
    }
    for (const bad of ['not an address', 'a@b\r\nBcc: x@y', 'Name <>']) expect(() => loadConfig({ MAIL_FROM: bad })).toThrow(/^MAIL_FROM/);
    expect(() => loadConfig({ MAIL_BATCH_WINDOW_S: '-1' })).toThrow(/MAIL_BATCH_WINDOW_S/);
  });
});
