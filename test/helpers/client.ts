import { expect } from 'vitest';
import { createClient, type WorkItemClient } from '../../client/src/index.js';

/** The generated, typed client of `client/` against the test server, signed in as `token`. */
export const clientFor = (baseUrl: string, token?: string): WorkItemClient => createClient({ baseUrl, token });

/**
 * An openapi-fetch answer that must succeed with exactly this status: answers its typed data. Unlike `unwrap` (any
 * 2xx), it checks the status the contract names (201 for a create, 200 for a read).
 */
export function expectSuccess<T>(result: { data?: T; error?: unknown; response: Response }, status = 200): Exclude<T, undefined> {
  expect(result.response.status, JSON.stringify(result.error)).toBe(status);
  return result.data as Exclude<T, undefined>;
}

/** An openapi-fetch answer that must be an error: problem+json with this status (and code). */
export function expectFailure(
  result: { error?: unknown; response: Response },
  status: number,
  code?: string,
): { code: string; detail: string; errors?: { path: string; message: string }[] } {
  expect(result.response.status, JSON.stringify(result.error)).toBe(status);
  expect(result.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = result.error as { code: string; detail: string; status: number; type: string; title: string };
  expect(problem).toMatchObject({
    type: 'about:blank',
    status,
    code: expect.any(String),
    detail: expect.any(String),
    title: expect.any(String),
  });
  if (code) expect(problem.code).toBe(code);
  return problem;
}
