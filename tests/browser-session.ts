import type { ApiResponse } from "./api.js";

/**
 * A client that behaves like the console in a browser: it keeps the `_tocsin_session` cookie the
 * gateway sets, and sends `X-CSRF-Token` on unsafe calls once it knows the token (unless told not to).
 */
export function browserSession(baseUrl: string) {
  let cookie = "";
  let csrf = "";
  const request = async <T = any>(
    method: string,
    path: string,
    body?: unknown,
    options: { csrf?: boolean; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T> & { setCookie: string | null }> => {
    const headers: Record<string, string> = { ...options.headers };
    if (cookie) headers.cookie = cookie;
    if (csrf && options.csrf !== false && !["GET", "HEAD"].includes(method)) headers["x-csrf-token"] = csrf;
    if (body !== undefined) headers["content-type"] ??= "application/json";
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const setCookie = res.headers.get("set-cookie");
    const value = setCookie?.match(/^_tocsin_session=([^;]*)/)?.[1];
    if (value !== undefined) cookie = value ? `_tocsin_session=${value}` : "";
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (res.ok && parsed && typeof parsed === "object" && "csrf_token" in parsed) csrf = String(parsed.csrf_token);
    return { status: res.status, headers: res.headers, body: parsed as T, text, setCookie };
  };
  return {
    signIn: (login: string, password: string) => request("POST", "/-/session", { login, password }),
    request,
    get: <T = any>(path: string) => request<T>("GET", path),
    post: <T = any>(path: string, body: unknown = {}, options?: { csrf?: boolean }) => request<T>("POST", path, body, options),
    put: <T = any>(path: string, body: unknown = {}, options?: { csrf?: boolean }) => request<T>("PUT", path, body, options),
    del: <T = any>(path: string, options?: { csrf?: boolean }) => request<T>("DELETE", path, undefined, options),
    /** The cookie header this browser would send ("" when signed out). */
    cookie: () => cookie,
    /** Pretend to be another browser holding the same cookie (to check a cookie after sign-out). */
    setCookie: (value: string) => {
      cookie = value;
    },
  };
}
