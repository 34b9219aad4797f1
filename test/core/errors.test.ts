import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/http/errors.js';
import { AppError } from '../../src/kernel/errors.js';

describe('error handling', () => {
  const build = () => {
    const logs: string[] = [];
    const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => void logs.push(line) } } });
    registerErrorHandling(app);
    app.get('/boom', async () => {
      throw new Error('relation "secret_table" does not exist at password=hunter2');
    });
    app.get('/app-error', async () => {
      throw new AppError('conflict', 'Already there', undefined, { 'x-extra': '1' });
    });
    return { app, logs };
  };

  it('answers an unexpected error with a 500 problem that reveals nothing, and logs it with the request id', async () => {
    const { app, logs } = build();
    const res = await app.inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    const body = res.json();
    expect(body).toMatchObject({ status: 500, code: 'internal', title: 'Internal Server Error' });
    expect(res.body).not.toMatch(/secret_table|hunter2|at |stack/);
    expect(logs.join('')).toContain('secret_table');
    expect(logs.join('')).toContain(body.request_id);
  });

  it('answers an AppError with its status, code and headers', async () => {
    const { app } = build();
    const res = await app.inject({ method: 'GET', url: '/app-error' });
    expect(res.statusCode).toBe(409);
    expect(res.headers['x-extra']).toBe('1');
    expect(res.json()).toMatchObject({ code: 'conflict', detail: 'Already there' });
  });
});
