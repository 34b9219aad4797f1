/** A tiny HTTP client for tests: real requests over a real socket. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is, with no JSON encoding. */
  raw?: string | URLSearchParams;
  headers?: Record<string, string>;
}

export type Api = ReturnType<typeof apiClient>;

export function apiClient(baseUrl: string) {
  async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | URLSearchParams | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.body);
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if (/json/.test(res.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, text, body: parsed as T };
  }
  return {
    baseUrl,
    request,
    get: <T = any>(path: string, o?: RequestOptions) => request<T>('GET', path, o),
    post: <T = any>(path: string, body?: unknown, o?: RequestOptions) => request<T>('POST', path, { ...o, body }),
    patch: <T = any>(path: string, body?: unknown, o?: RequestOptions) => request<T>('PATCH', path, { ...o, body }),
    put: <T = any>(path: string, body?: unknown, o?: RequestOptions) => request<T>('PUT', path, { ...o, body }),
    delete: <T = any>(path: string, o?: RequestOptions) => request<T>('DELETE', path, o),
  };
}
