import { queryClient } from "./query-client";

/** An answer other than 2xx: the status and the message the API gave, as the API words it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export interface ApiResponse<T> {
  data: T;
  headers: Headers;
}

export const SESSION_KEY = ["session"] as const;

/** The CSRF token of the signed-in session, as the session query holds it. */
function csrfToken(): string | undefined {
  return queryClient.getQueryData<{ csrf_token: string } | null>(SESSION_KEY)?.csrf_token;
}

/** GitLab's error bodies: `{"message": "..."}`, `{"message": {"field": ["..."]}}` or `{"error": "..."}`. */
function messageOf(body: unknown, status: number): string {
  if (body && typeof body === "object") {
    const b = body as { message?: unknown; error?: unknown };
    const m = b.message ?? b.error;
    if (typeof m === "string") return m;
    if (m && typeof m === "object") {
      return Object.entries(m as Record<string, unknown>)
        .map(([field, v]) => `${field} ${Array.isArray(v) ? v.join(", ") : String(v)}`)
        .join("; ");
    }
  }
  if (typeof body === "string" && body) return body;
  return `Request failed (${status})`;
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export interface RequestOptions {
  method?: string;
  /** A value sent as JSON, or a string sent as it is (text/plain is never used: JSON only). */
  body?: unknown;
  /** Send `body` (a string) without encoding it, e.g. a test payload that may be invalid JSON. */
  rawBody?: boolean;
  signal?: AbortSignal;
}

/**
 * One call to the public REST API, on the same origin with the session cookie. Unsafe methods
 * carry `X-CSRF-Token`. A non-2xx answer throws `ApiError` with the API's own message.
 */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { Accept: "application/json" };
  if (UNSAFE.has(method)) {
    const token = csrfToken();
    if (token) headers["X-CSRF-Token"] = token;
  }
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = options.rawBody ? String(options.body) : JSON.stringify(options.body);
  }
  const res = await fetch(path, { method, headers, body, credentials: "same-origin", signal: options.signal });
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!res.ok) throw new ApiError(res.status, messageOf(data, res.status), data);
  return { data: data as T, headers: res.headers };
}

export const api = {
  get: <T>(path: string, signal?: AbortSignal) => request<T>(path, { signal }).then((r) => r.data),
  post: <T>(path: string, body?: unknown) => request<T>(path, { method: "POST", body }).then((r) => r.data),
  put: <T>(path: string, body?: unknown) => request<T>(path, { method: "PUT", body }).then((r) => r.data),
  delete: (path: string) => request<null>(path, { method: "DELETE" }).then(() => undefined),
};

/** `/api/v4/projects/<url-encoded full path>` */
export const projectApi = (fullPath: string) => `/api/v4/projects/${encodeURIComponent(fullPath)}`;
