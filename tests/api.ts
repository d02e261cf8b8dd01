/** A tiny REST client for tests: real HTTP against the gateway. */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export function api(baseUrl: string, token?: string) {
  const request = async <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const h: Record<string, string> = { ...headers };
    if (token) h["PRIVATE-TOKEN"] = token;
    let payload: string | undefined;
    if (body !== undefined) {
      h["content-type"] ??= "application/json";
      payload = typeof body === "string" ? body : JSON.stringify(body);
    }
    const res = await fetch(`${baseUrl}${path}`, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text } satisfies ApiResponse<T>;
  };
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => request<T>("GET", path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      request<T>("POST", path, body ?? {}, headers),
    put: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      request<T>("PUT", path, body ?? {}, headers),
    del: <T = any>(path: string, headers?: Record<string, string>) => request<T>("DELETE", path, undefined, headers),
    request,
  };
}
