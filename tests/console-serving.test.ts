import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/index-3f9a1c2b.js"></script></head><body></body></html>';
const HTML = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
const CONSOLE_PAGES = [
  "/",
  "/users/sign_in",
  "/admin",
  "/-/profile/notifications",
  "/-/user_settings/personal_access_tokens",
  "/my-group",
  "/my-group/sub/project",
  "/my-group/project/-/alert_management",
  "/my-group/project/-/alert_management/3/details",
  "/my-group/project/-/settings/operations",
];

function expectConsoleHeaders(headers: Headers) {
  expect(headers.get("content-security-policy")).toMatch(/^default-src 'self'(;|$)/);
  expect(headers.get("x-frame-options")).toBe("DENY");
  expect(headers.get("referrer-policy")).toBe("same-origin");
  expect(headers.get("x-content-type-options")).toBe("nosniff");
  expect(headers.get("x-powered-by")).toBeNull();
}

/** The gateway serves the built console (web/dist) beside the API, on the same origin. */
describe("console serving, end to end", () => {
  let system: RunningSystem;
  let dist: string;
  let url = "";
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { headers });

  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), "tocsin-web-dist-"));
    mkdirSync(join(dist, "assets"));
    writeFileSync(join(dist, "index.html"), INDEX);
    writeFileSync(join(dist, "assets", "index-3f9a1c2b.js"), "console.log('tocsin');\n");
    writeFileSync(join(dist, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
    system = await startSystem({ env: { CONSOLE_DIR: dist } });
    url = system.url;
  });
  afterAll(async () => {
    await system?.stop();
    rmSync(dist, { recursive: true, force: true });
  });

  it("answers every console page address that asks for HTML with index.html, never cached", async () => {
    for (const path of CONSOLE_PAGES) {
      const res = await get(path, HTML);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expectConsoleHeaders(res.headers);
      expect(await res.text()).toBe(INDEX);
    }
  });

  it("serves fingerprinted assets cached for a year, and other build files revalidated", async () => {
    const asset = await get("/assets/index-3f9a1c2b.js");
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toMatch(/javascript/);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await asset.text()).toContain("tocsin");
    const icon = await get("/favicon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("cache-control")).toBe("no-cache");
    const missing = await get("/assets/nope-12345678.js", HTML);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "404 Not Found" });
  });

  it("keeps the API, probes, metrics and sessions as they were, and 404s unknown non-HTML requests", async () => {
    const unknownApi = await get("/api/v4/nope", HTML);
    expect(unknownApi.status).toBe(404);
    expect(await unknownApi.json()).toEqual({ error: "404 Not Found" });
    const noToken = await get("/api/v4/user", HTML);
    expect(noToken.status).toBe(401);
    expect((await get("/-/health", HTML)).headers.get("content-type")).not.toMatch(/html/);
    expect((await get("/metrics", HTML)).headers.get("content-type")).toMatch(/^text\/plain/);
    expect((await get("/-/session", HTML)).status).toBe(401);
    for (const headers of [{}, { accept: "application/json" }, { accept: "*/*" }] as Record<string, string>[]) {
      const res = await get("/my-group/project", headers);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: "404 Not Found" });
    }
    const post = await fetch(`${url}/my-group/project`, { method: "POST", headers: HTML });
    expect(post.status).toBe(404);
  });

  it("puts nosniff on every response and X-Powered-By on none", async () => {
    for (const res of [
      await get("/-/health"),
      await get("/nope"),
      await api(url, system.adminToken)
        .get("/api/v4/user")
        .then(() => get("/api/v4/user")),
    ]) {
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-powered-by")).toBeNull();
    }
  });
});

describe("console serving without a build", () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem({ env: { CONSOLE_DIR: join(tmpdir(), "tocsin-no-such-dist") } });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("says the console was not built, and the API still works", async () => {
    const res = await fetch(`${system.url}/users/sign_in`, { headers: HTML });
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toMatch(/web console has not been built/);
    expect((await api(system.url, system.adminToken).get("/api/v4/user")).status).toBe(200);
  });
});
