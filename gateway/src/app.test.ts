import { silentLogger, systemClock } from "@tocsin/core";
import { captureLogger, STUB_TOKENS, type StubServer, startStubServer } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";
import { createGateway, type RunningGateway } from "./service.js";

// The gateway over real HTTP and real gRPC, against small stub services (see libs/testing).
describe("gateway HTTP surface", () => {
  const log = captureLogger();
  let auth: StubServer;
  let alert: StubServer;
  let settings: StubServer;
  let gateway: RunningGateway;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gateway.url}${path}`, { headers });
  const send = (method: string, path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}${path}`, { method, body, headers: { "content-type": "application/json", ...headers } });

  beforeAll(async () => {
    [auth, alert, settings] = await Promise.all([startStubServer("auth"), startStubServer("alert"), startStubServer("settings")]);
    gateway = await createGateway(
      loadConfig({
        PORT: "0",
        AUTH_SERVICE_ADDR: auth.address,
        ALERT_SERVICE_ADDR: alert.address,
        SETTINGS_SERVICE_ADDR: settings.address,
      }),
      { logger: log.logger, clock: systemClock },
    );
  });
  afterAll(async () => {
    await gateway.stop();
    await Promise.all([auth.stop(), alert.stop(), settings.stop()]);
  });

  describe("request ids", () => {
    it("generates one when none is given", async () => {
      const res = await get("/-/health");
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    });
    it("keeps a sane incoming id and puts it on the log line", async () => {
      const res = await get("/-/health", { "X-Request-Id": "abc.DEF_123-x" });
      expect(res.headers.get("x-request-id")).toBe("abc.DEF_123-x");
      expect(log.lines().some((l) => l.requestId === "abc.DEF_123-x" && l.path === "/-/health")).toBe(true);
    });
    it("replaces an insane one", async () => {
      for (const bad of ["a b", "x".repeat(129), "<script>"]) {
        const res = await get("/-/health", { "X-Request-Id": bad });
        expect(res.headers.get("x-request-id")).not.toBe(bad);
        expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      }
    });
  });

  describe("probes and metrics", () => {
    it("answers health", async () => {
      const res = await get("/-/health");
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "ok" });
    });
    it("is ready when every service is SERVING", async () => {
      const res = await get("/-/readiness");
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: "ok",
        dependencies: { auth: "SERVING", alert: "SERVING", settings: "SERVING" },
      });
    });
    it("is not ready when a service is not serving", async () => {
      settings.server.setServing(false);
      try {
        const res = await get("/-/readiness");
        expect(res.status).toBe(503);
        expect(res.headers.get("retry-after")).toBe("5");
        expect(await res.json()).toMatchObject({
          status: "unavailable",
          dependencies: { auth: "SERVING", settings: "NOT_SERVING" },
        });
      } finally {
        settings.server.setServing(true);
      }
    });
    it("exposes Prometheus metrics labelled by route pattern", async () => {
      await get("/api/v4/projects/123456", { "PRIVATE-TOKEN": STUB_TOKENS.api });
      await get("/no/such/page/98765");
      const res = await get("/metrics");
      expect(res.headers.get("content-type")).toContain("text/plain");
      const text = await res.text();
      expect(text).toContain("process_cpu_user_seconds_total");
      expect(text).toMatch(/http_requests_total\{method="GET",route="\/api\/v4\/projects\/:id",status="501"\} \d+/);
      expect(text).toMatch(/http_requests_total\{method="GET",route="unmatched",status="404"\} \d+/);
      expect(text).toContain("http_request_duration_seconds_bucket");
      // The stub alert-service has no GetIngestStats: the backlog is unknown, not 0.
      expect(text).toMatch(/^tocsin_alert_backlog nan$/im);
      expect(text).not.toContain("123456");
      expect(text).not.toContain("98765");
    });
  });

  describe("routing and bodies", () => {
    it("answers unknown routes with GitLab's 404, with or without a token", async () => {
      for (const path of ["/nope", "/-/nope", "/api/v4/no/such/thing", "/api/v4/projects/1/nope"]) {
        for (const headers of [{ "PRIVATE-TOKEN": STUB_TOKENS.api }, {}] as Record<string, string>[]) {
          const res = await get(path, headers);
          expect(res.status).toBe(404);
          expect(await res.json()).toEqual({ error: "404 Not Found" });
        }
      }
    });
    it("still asks for a token on every known route, whatever the method", async () => {
      for (const [method, path] of [
        ["GET", "/api/v4/user"],
        ["GET", "/api/v4/projects/a%2Fb"],
        ["PUT", "/api/v4/notification_settings"],
        ["GET", "/api/v4/projects/1/alert_management/alerts/3"],
        ["POST", "/api/v4/projects/1/alert_management/http_integrations/2/test_alert"],
      ] as const) {
        const res = method === "GET" ? await get(path) : await send(method, path, "{}", {});
        expect(res.status, `${method} ${path}`).toBe(401);
      }
    });
    it("rejects invalid JSON with 400", async () => {
      const res = await send("POST", "/api/v4/users", "{not json", { "PRIVATE-TOKEN": STUB_TOKENS.api });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ message: "400 Bad request - invalid JSON body" });
    });
    it("rejects a body over 1 MiB with 413", async () => {
      const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) });
      const res = await send("POST", "/api/v4/users", big, { "PRIVATE-TOKEN": STUB_TOKENS.api });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ message: "413 Request Entity Too Large" });
    });
    it("validates parameters before calling a service", async () => {
      const res = await send("POST", "/api/v4/users", JSON.stringify({ email: "a@b.c", name: "A" }), {
        "PRIVATE-TOKEN": STUB_TOKENS.api,
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: "username is missing" });
      const plan = await send("POST", "/api/v4/groups", JSON.stringify({ name: "g", path: "g", plan: "gold" }), {
        "PRIVATE-TOKEN": STUB_TOKENS.api,
      });
      expect(plan.status).toBe(400);
      expect(await plan.json()).toEqual({ error: "plan does not have a valid value" });
      const form = await send("POST", "/api/v4/projects/1/members", "user_id=abc&access_level=30", {
        "PRIVATE-TOKEN": STUB_TOKENS.api,
        "content-type": "application/x-www-form-urlencoded",
      });
      expect(form.status).toBe(400);
      expect(await form.json()).toEqual({ error: "user_id is invalid" });
    });
  });

  describe("authentication", () => {
    it("reads the token from PRIVATE-TOKEN, Bearer or private_token", async () => {
      for (const [path, headers] of [
        ["/api/v4/user", { "PRIVATE-TOKEN": STUB_TOKENS.api }],
        ["/api/v4/user", { Authorization: `Bearer ${STUB_TOKENS.api}` }],
        [`/api/v4/user?private_token=${STUB_TOKENS.api}`, {}],
      ] as const) {
        const res = await get(path, headers);
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({
          id: 7,
          username: "alice",
          is_admin: false,
          created_at: "2026-01-02T03:04:05.678Z",
        });
      }
    });
    it("answers 401 with no or an unknown token", async () => {
      for (const headers of [{}, { "PRIVATE-TOKEN": "nope" }, { Authorization: "Basic abc" }] as Record<string, string>[]) {
        const res = await get("/api/v4/user", headers);
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ message: "401 Unauthorized" });
      }
    });
    it("answers invalid_token for expired and revoked tokens", async () => {
      const res = await get("/api/v4/user", { "PRIVATE-TOKEN": STUB_TOKENS.expired });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: "invalid_token",
        error_description: "Token is expired. You can either do re-authorization or token refresh.",
      });
      expect(res.headers.get("www-authenticate")).toBe(
        'Bearer realm="Tocsin", error="invalid_token", error_description="Token is expired. You can either do re-authorization or token refresh."',
      );
      const revoked = await get("/api/v4/user", { "PRIVATE-TOKEN": STUB_TOKENS.revoked });
      expect(revoked.status).toBe(401);
      expect(await revoked.json()).toMatchObject({ error: "invalid_token" });
    });
    it("lets read_api read but not write", async () => {
      expect((await get("/api/v4/user", { "PRIVATE-TOKEN": STUB_TOKENS.readApi })).status).toBe(200);
      const res = await send("POST", "/api/v4/user/emails", JSON.stringify({ email: "x@y.z" }), {
        "PRIVATE-TOKEN": STUB_TOKENS.readApi,
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        error: "insufficient_scope",
        error_description: "The request requires higher privileges than provided by the access token.",
        scope: "api",
      });
    });
    it("never logs a token", async () => {
      await get(`/api/v4/user?private_token=${STUB_TOKENS.api}&x=1`);
      await get("/api/v4/user", { Authorization: `Bearer ${STUB_TOKENS.readApi}` });
      await get("/api/v4/user", { "PRIVATE-TOKEN": STUB_TOKENS.expired });
      const text = log.text();
      expect(text).toContain("/api/v4/user");
      for (const token of Object.values(STUB_TOKENS)) expect(text).not.toContain(token);
    });
  });

  describe("errors end to end", () => {
    it("turns an unexpected service failure into a 500 that hides the detail and logs it", async () => {
      const res = await get("/api/v4/groups/boom", { "PRIVATE-TOKEN": STUB_TOKENS.api, "X-Request-Id": "boom-1" });
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ message: "500 Internal Server Error" });
      expect(text).not.toContain("hunter2");
      expect(log.lines().some((l) => l.requestId === "boom-1" && l.msg === "unexpected error")).toBe(true);
    });
    it("passes a service's GitLab error through", async () => {
      const res = await get("/api/v4/groups/a%2Fb", { "PRIVATE-TOKEN": STUB_TOKENS.api });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: "404 Group Not Found" });
    });
  });
});

describe("gateway with auth-service down", () => {
  it("answers 503 with Retry-After, without hanging", async () => {
    const gateway = await createGateway(loadConfig({ PORT: "0", AUTH_SERVICE_ADDR: "127.0.0.1:1" }), {
      logger: silentLogger(),
      clock: systemClock,
    });
    try {
      // Not hanging is the clients' deadline's job; a hang would fail the test timeout.
      const res = await fetch(`${gateway.url}/api/v4/user`, { headers: { "PRIVATE-TOKEN": "whatever" } });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      const ready = await fetch(`${gateway.url}/-/readiness`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ dependencies: { auth: "UNREACHABLE" } });
    } finally {
      await gateway.stop();
    }
  });
});
