import { until } from "@tocsin/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { amAlert, amBearer, amWebhook } from "./alertmanager.fixtures.js";
import { api } from "./api.js";
import { chromiumMissing, launchBrowser, openTab, screenshot, seriousA11yViolations, type Tab, webBuilt } from "./browser.js";
import { type RunningSystem, startSystem } from "./harness.js";

/**
 * The console's silences in real Chromium (PRODUCT.md section 13): the *Silences* page under the
 * alerts page (`/<full_path>/-/alert_management/silences`), a silence created there holding a
 * Prometheus alert back (`silenced_by` on its details), *Silence alerts like this* prefilled with
 * the alert's labels, *Expire* behind a confirmation; a Developer reads without the form. Axe in
 * light and dark on each page.
 */
const ADMIN_PASSWORD = "root-password-for-tests";
const DEV_PASSWORD = "dev-password-12345";

async function checkPage(page: Page, name: string) {
  expect(await seriousA11yViolations(page), `accessibility of ${name}`).toEqual([]);
  await screenshot(page, name);
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await seriousA11yViolations(page), `accessibility of ${name} (dark)`).toEqual([]);
  await page.emulateMedia({ colorScheme: "light" });
}

async function signIn(page: Page, login: string, password: string) {
  await page.goto("/users/sign_in");
  await page.getByLabel("Username or primary email").fill(login);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

describe.skipIf(chromiumMissing || !webBuilt)("web console: silences", () => {
  let system: RunningSystem;
  let browser: Browser;
  let tab: Tab;
  let projectId: number;
  let prometheus: { url: string; token: string };

  beforeAll(async () => {
    [system, browser] = await Promise.all([startSystem({ env: { ADMIN_PASSWORD } }), launchBrowser()]);
    const admin = api(system.url, system.adminToken);
    const dev = await admin.post("/api/v4/users", {
      username: "dev",
      email: "dev@example.com",
      name: "Dev",
      password: DEV_PASSWORD,
    });
    expect(dev.status, dev.text).toBe(201);
    const group = await admin.post("/api/v4/groups", { name: "ops", path: "ops", plan: "premium" });
    const project = await admin.post("/api/v4/projects", { name: "Storage", path: "storage", namespace_id: group.body.id });
    expect(project.status, project.text).toBe(201);
    projectId = project.body.id;
    expect((await admin.post(`/api/v4/projects/${projectId}/members`, { user_id: dev.body.id, access_level: 30 })).status).toBe(
      201,
    );
    const prom = await admin.put(`/api/v4/projects/${projectId}/alert_management/prometheus_integration`, { active: true });
    expect(prom.status, prom.text).toBe(200);
    prometheus = { url: (prom.body.url as string).replace(/^https?:\/\/[^/]+/, system.url), token: prom.body.token };
    tab = await openTab(browser, system.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it("a Maintainer creates a silence from the Silences page; it is active and holds a matching alert", async () => {
    const { page } = tab;
    await signIn(page, "root", ADMIN_PASSWORD);
    await page.goto("/ops/storage/-/alert_management");
    // Silences is a tab of the alerts page: its panel is the silences page, under the same tab row.
    await page.getByRole("tab", { name: "Silences" }).click();
    await page.getByRole("heading", { name: "Silences", level: 1 }).waitFor();
    expect(page.url()).toMatch(/\/ops\/storage\/-\/alert_management\/silences$/);
    expect(await page.getByRole("tab", { name: "Silences" }).getAttribute("aria-selected")).toBe("true");
    await page.getByText("No active silences.").waitFor();
    await page.getByRole("button", { name: "New silence" }).click();
    const form = page.getByRole("form", { name: "New silence" });
    const first = form.getByRole("group", { name: "Matcher 1" });
    await first.getByLabel("Label name").fill("team");
    await first.getByLabel("Value").fill("storage");
    await form.getByRole("button", { name: "Add matcher" }).click();
    const second = form.getByRole("group", { name: "Matcher 2" });
    await second.getByLabel("Label name").fill("instance");
    await second.getByLabel("Operator").selectOption("=~");
    await second.getByLabel("Value").fill("nas-.*");
    await form.getByLabel("Duration").selectOption({ label: "4 hours" });
    await form.getByLabel("Comment").fill("disk shelf swap");
    await checkPage(page, "silences-form");
    await form.getByRole("button", { name: "Create silence" }).click();
    await page.getByRole("status").filter({ hasText: "Silence created for team=storage, instance=~nas-.*." }).waitFor();
    const row = page.getByRole("tabpanel", { name: "Active" }).getByRole("row").filter({ hasText: "team=storage" });
    await row.waitFor();
    expect(await row.getByRole("cell").nth(3).textContent()).toBe("root");
    expect(await row.getByRole("cell").nth(4).textContent()).toBe("disk shelf swap");
    expect(await page.getByRole("tab", { name: "Active" }).getAttribute("aria-selected")).toBe("true");
    await checkPage(page, "silences-active");

    // Alertmanager sends an alert the silence covers: it is stored, silenced.
    const res = await fetch(prometheus.url, {
      method: "POST",
      headers: { ...amBearer(prometheus.token), "content-type": "application/json", prefer: "wait" },
      body: JSON.stringify(amWebhook([amAlert({ alertname: "ShelfDegraded", team: "storage", instance: "nas-1:9100" })])),
    });
    expect([200, 202]).toContain(res.status);
    await res.text();
    const admin = api(system.url, system.adminToken);
    await until(async () => {
      const alert = (await admin.get(`/api/v4/projects/${projectId}/alert_management/alerts/1`)).body;
      return alert?.silenced_by?.length === 1;
    });
    // The tab row leads back to the alert list.
    await page.getByRole("tab", { name: /^Open/ }).click();
    await page.getByRole("heading", { name: "Alerts", level: 1 }).waitFor();
    expect(await page.getByRole("tab", { name: /^Open/ }).getAttribute("aria-selected")).toBe("true");
  });

  it("Silence alerts like this: the alert's details show its silence and open the form with its labels", async () => {
    const { page } = tab;
    await page.goto("/ops/storage/-/alert_management/1/details");
    await page.getByRole("heading", { name: "ShelfDegraded", level: 1 }).waitFor();
    await page.getByText("Silenced by").waitFor();
    await page.getByRole("link", { name: "1 silence" }).waitFor();
    await page.getByRole("link", { name: "Silence alerts like this" }).click();
    const form = page.getByRole("form", { name: "New silence" });
    await form.waitFor();
    const rows = form.getByRole("group");
    const values = [];
    for (let i = 0; i < (await rows.count()); i++) {
      const group = rows.nth(i);
      values.push(
        `${await group.getByLabel("Label name").inputValue()}${await group.getByLabel("Operator").inputValue()}${await group.getByLabel("Value").inputValue()}`,
      );
    }
    expect(values).toEqual(["alertname=ShelfDegraded", "team=storage", "instance=nas-1:9100"]);
    await form.getByRole("button", { name: "Remove matcher 3" }).click();
    await form.getByLabel("Comment").fill("known flapping");
    await form.getByRole("button", { name: "Create silence" }).click();
    await page.getByRole("status").filter({ hasText: "Silence created for alertname=ShelfDegraded, team=storage." }).waitFor();
    await page.getByRole("tabpanel").getByRole("row").filter({ hasText: "alertname=ShelfDegraded" }).waitFor();
    expect(await page.getByRole("tabpanel").getByRole("row").count()).toBe(3);
  });

  it("Expire asks first, then the silence moves to Expired", async () => {
    const { page } = tab;
    const row = page.getByRole("tabpanel").getByRole("row").filter({ hasText: "team=storage" }).filter({ hasText: "nas" });
    await row.getByRole("button", { name: "Expire" }).click();
    const dialog = page.getByRole("dialog", { name: "Expire this silence?" });
    await dialog.waitFor();
    await checkPage(page, "silences-expire-dialog");
    await dialog.getByRole("button", { name: "Expire silence" }).click();
    await page.getByRole("status").filter({ hasText: "Silence expired." }).waitFor();
    await until(async () => (await page.getByRole("tabpanel").getByRole("row").count()) === 2);
    await page.getByRole("tab", { name: "Expired" }).click();
    const expired = page.getByRole("tabpanel").getByRole("row").filter({ hasText: "instance=~nas-.*" });
    await expired.waitFor();
    expect(await expired.getByRole("button", { name: "Expire" }).count()).toBe(0);
    const list = (
      await api(system.url, system.adminToken).get(`/api/v4/projects/${projectId}/alert_management/silences?state=expired`)
    ).body as { comment: string }[];
    expect(list.map((s) => s.comment)).toEqual(["disk shelf swap"]);
    expect(tab.problems).toEqual([]);
  });

  it("a Developer reads the silences without the form or the buttons", async () => {
    const dev = await openTab(browser, system.url);
    const { page } = dev;
    await signIn(page, "dev", DEV_PASSWORD);
    await page.goto("/ops/storage/-/alert_management/silences");
    await page.getByRole("tabpanel").getByRole("row").filter({ hasText: "alertname=ShelfDegraded" }).waitFor();
    expect(await page.getByRole("button", { name: "New silence" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Expire" }).count()).toBe(0);
    await page.goto("/ops/storage/-/alert_management/1/details");
    await page.getByRole("heading", { name: "ShelfDegraded", level: 1 }).waitFor();
    expect(await page.getByRole("link", { name: "Silence alerts like this" }).count()).toBe(0);
    expect(dev.problems).toEqual([]);
    await dev.context.close();
  });
});
