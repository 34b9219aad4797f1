/**
 * The typed client of the work-item service: `openapi-fetch` over types generated from the service's own
 * `/openapi.json` (`npm run client:generate`). Every path, parameter, body and answer is typed; errors are the
 * service's problem+json bodies.
 */
import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };
export type WorkItemClient = Client<paths>;

/** An error as the API states it (RFC 9457 problem+json). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
  request_id?: string;
}

/** Thrown by `unwrap` for any non-2xx answer: `status`, `code`, `detail` and field `errors` as the API sent them. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly problem: Problem;

  constructor(problem: Problem) {
    const fields = problem.errors?.map((e) => `${e.path || '/'}: ${e.message}`).join('; ');
    super(`${problem.status} ${problem.code}: ${problem.detail}${fields ? ` (${fields})` : ''}`);
    this.name = 'ApiError';
    this.status = problem.status;
    this.code = problem.code;
    this.problem = problem;
  }
}

export interface CreateClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the service listens, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** A sign-in token or a personal API token; sent as `Authorization: Bearer`. */
  token?: string;
}

export function createClient({ baseUrl, token, headers, ...rest }: CreateClientOptions): WorkItemClient {
  return createFetchClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(headers as Record<string, string> | undefined) },
    ...rest,
  });
}

function asProblem(error: unknown, response: Response): Problem {
  if (error && typeof error === 'object' && 'code' in error && 'status' in error) return error as Problem;
  return {
    type: 'about:blank',
    title: response.statusText,
    status: response.status,
    code: 'unexpected_response',
    detail: typeof error === 'string' ? error : `HTTP ${response.status}`,
  };
}

/** The data of a successful call, or an `ApiError`: `const me = await unwrap(api.GET('/api/users/me/'))`. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Exclude<T, undefined>> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(asProblem(error, response));
  return data as Exclude<T, undefined>;
}

/** Where an attachment goes: the issue (and optionally one of its comments). */
export interface AttachmentTarget {
  slug: string;
  projectId: string;
  issueId: string;
  commentId?: string;
}

/**
 * Uploads a file as an attachment (contract 25.1): a `multipart/form-data` body with `comment_id` before `file`, as
 * the service reads it. `file` is a Blob or File (in Node, `new Blob([bytes])` or `await fs.openAsBlob(path)`, which
 * streams from disk); `filename` defaults to the File's name. Answers as every other call: `{data, error, response}`.
 */
export function uploadAttachment(client: WorkItemClient, target: AttachmentTarget, file: Blob, filename?: string) {
  const form = new FormData();
  if (target.commentId) form.append('comment_id', target.commentId);
  form.append('file', file, filename ?? (file as Partial<File>).name ?? 'file');
  return client.POST('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/attachments/', {
    params: { path: { slug: target.slug, projectId: target.projectId, issueId: target.issueId } },
    body: form as never,
    // FormData goes as it is: fetch writes the multipart body and its boundary.
    bodySerializer: (body: unknown) => body as FormData,
  });
}
