import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { api } from "./api.js";
import { launchBrowser, screenshot, seriousA11yViolations, type Tab } from "./browser.js";
import { type RunningSystem, startSystem } from "./harness.js";

/**
 * The fixture of the console's settings suites (tests/web-console-admin-tokens.test.ts and
 * tests/web-console-notifications-mapping.test.ts): the whole system with root's password and
 * Chromium, Maria in a Premium and a Free group, and the checks every page passes.
 */
export const ADMIN_PASSWORD = "root-password-for-tests";
export const PASSWORD = "maria-password-123";
export const POLL = { timeout: 30_000 };

/** axe (no serious or critical violation) and a screenshot, in the light and in the dark scheme. */
export async function checkPage(tab: Tab, name: string, fullPage = true) {
  expect(await seriousA11yViolations(tab.page), `accessibility of ${name}`).toEqual([]);
  await screenshot(tab.page, name, fullPage);
  await tab.page.emulateMedia({ colorScheme: "dark" });
  expect(await seriousA11yViolations(tab.page), `accessibility of ${name} (dark)`).toEqual([]);
  await screenshot(tab.page, `${name}-dark`, fullPage);
  await tab.page.emulateMedia({ colorScheme: "light" });
}

export async function signIn(page: Page, login: string, password: string) {
  await page.goto("/users/sign_in");
  await page.getByLabel("Username or primary email").fill(login);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

export const status = (page: Page, text: string | RegExp) => page.getByRole("status").filter({ hasText: text });

/** The whole system (root signs in with ADMIN_PASSWORD) and Chromium, started side by side. */
export function startConsole(): Promise<[RunningSystem, Browser]> {
  return Promise.all([startSystem({ env: { ADMIN_PASSWORD } }), launchBrowser()]);
}

/**
 * Seeds Maria (PASSWORD, a personal access token) as Maintainer of the groups ops (Premium) and
 * free (Free), each with a project `web`; returns root's client and Maria's token.
 */
export async function seedMaria(system: RunningSystem) {
  const admin = api(system.url, system.adminToken);
  const maria = await admin.post("/api/v4/users", {
    username: "maria",
    email: "maria@example.com",
    name: "Maria Maintainer",
    password: PASSWORD,
  });
  expect(maria.status, maria.text).toBe(201);
  const token = await admin.post(`/api/v4/users/${maria.body.id}/personal_access_tokens`, { name: "tests", scopes: ["api"] });
  const mariaToken: string = token.body.token;
  // ops: Premium (custom mapping); free: Free.
  for (const [path, plan] of [
    ["ops", "premium"],
    ["free", "free"],
  ]) {
    const group = await admin.post("/api/v4/groups", { name: path, path, plan });
    expect(group.status, group.text).toBe(201);
    const project = await admin.post("/api/v4/projects", { name: "Web", path: "web", namespace_id: group.body.id });
    expect(project.status, project.text).toBe(201);
    const member = await admin.post(`/api/v4/groups/${group.body.id}/members`, { user_id: maria.body.id, access_level: 40 });
    expect(member.status, member.text).toBe(201);
  }
  return { admin, mariaToken };
}
