import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { api } from "./api.js";
import { launchBrowser, openTab, screenshot, seriousA11yViolations, type Tab } from "./browser.js";
import { type RunningSystem, startSystem } from "./harness.js";

/**
 * The fixture of the console's main journeys (tests/web-console*.test.ts: sign-in, integrations,
 * alerts): the whole system on the embedded store and, when available, on MongoDB (FerretDB) with
 * Redis; Maria, Maintainer of ops/web (Free); Chromium with one tab.
 */
const ADMIN_PASSWORD = "root-password-for-tests";
export const PASSWORD = "maria-password-123";
export const POLL = { timeout: 30_000 };

export const backends: [string, Record<string, string>][] = [["embedded", {}]];
const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
if (mongoUrl && redisUrl) backends.push(["mongodb", { MONGO_URL: mongoUrl, REDIS_URL: redisUrl }]);
else console.warn("[web-console] MongoDB or Redis unavailable: the MongoDB variant is SKIPPED");

/** Every page of a journey passes axe with no serious or critical violation, and is photographed (embedded store). */
export async function checkPage(tab: Tab, name: string, shots: boolean, fullPage = true) {
  expect(await seriousA11yViolations(tab.page), `accessibility of ${name}`).toEqual([]);
  if (shots) await screenshot(tab.page, name, fullPage);
}

export async function signIn(page: Page, login: string, password: string) {
  await page.getByLabel("Username or primary email").fill(login);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** The table row of an alert, found by its title link. */
export const alertRow = (page: Page, title: string) =>
  page.getByRole("row").filter({ has: page.getByRole("link", { name: title }) });

export interface Journey {
  system: RunningSystem;
  browser: Browser;
  tab: Tab;
  /** Screenshots are taken on the embedded store only. */
  shots: boolean;
}

/**
 * Registers the describe block's boot and teardown for one backend; the returned getter gives the
 * running journey inside the tests.
 */
export function journey(backend: string, env: Record<string, string>): () => Journey {
  let current: Journey | undefined;
  let system: RunningSystem | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [system, browser] = await Promise.all([startSystem({ env: { ADMIN_PASSWORD, ...env } }), launchBrowser()]);
    const admin = api(system.url, system.adminToken);
    const maria = await admin.post("/api/v4/users", {
      username: "maria",
      email: "maria@example.com",
      name: "Maria Maintainer",
      password: PASSWORD,
    });
    expect(maria.status, maria.text).toBe(201);
    const group = await admin.post("/api/v4/groups", { name: "Ops", path: "ops" });
    expect(group.status, group.text).toBe(201);
    const project = await admin.post("/api/v4/projects", { name: "Web", path: "web", namespace_id: group.body.id });
    expect(project.status, project.text).toBe(201);
    const member = await admin.post(`/api/v4/projects/${project.body.id}/members`, { user_id: maria.body.id, access_level: 40 });
    expect(member.status, member.text).toBe(201);
    current = { system, browser, tab: await openTab(browser, system.url), shots: backend === "embedded" };
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });
  return () => {
    if (!current) throw new Error("the journey did not start");
    return current;
  };
}

/** Opens `path` signed out, signs in as Maria on the sign-in page it leads to, and waits to be back. */
export async function signInAsMaria(page: Page, path: string) {
  await page.goto(path);
  await page.waitForURL(/\/users\/sign_in\?redirect_to=/);
  await signIn(page, "maria@example.com", PASSWORD);
  await page.waitForURL(`**${path}`);
}

/** Posts an alert to an integration's URL (on the gateway under test) with its key. */
export function poster(system: RunningSystem, url: string, payload: unknown) {
  // The URL shows EXTERNAL_URL (unset here: localhost:8080); the gateway under test is on a free port.
  const webhook = `${system.url}${new URL(url).pathname}`;
  return (token: string) =>
    fetch(webhook, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(payload),
    });
}
