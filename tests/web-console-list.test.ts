import { until } from "@tocsin/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { chromiumMissing, launchBrowser, openTab, screenshot, seriousA11yViolations, type Tab, webBuilt } from "./browser.js";
import { type RunningSystem, startSystem } from "./harness.js";

/**
 * The alerts list in real Chromium with more alerts than one page: paging, search, sort by a
 * column, the status tabs by keyboard, and a burst of alerts arriving while the page is open.
 */
const ADMIN_PASSWORD = "root-password-for-tests";
const POLL = { timeout: 30_000 };

describe.skipIf(chromiumMissing || !webBuilt)("web console: the alerts list", () => {
  let system: RunningSystem;
  let browser: Browser;
  let tab: Tab;
  let post: (body: Record<string, unknown>) => Promise<number>;

  beforeAll(async () => {
    [system, browser] = await Promise.all([startSystem({ env: { ADMIN_PASSWORD } }), launchBrowser()]);
    const admin = api(system.url, system.adminToken);
    const group = await admin.post("/api/v4/groups", { name: "Shop", path: "shop", plan: "premium" });
    expect(group.status, group.text).toBe(201);
    const project = await admin.post("/api/v4/projects", { name: "Store", path: "store", namespace_id: group.body.id });
    expect(project.status, project.text).toBe(201);
    const integration = await admin.post(`/api/v4/projects/${project.body.id}/alert_management/http_integrations`, {
      name: "Load",
      active: true,
    });
    expect(integration.status, integration.text).toBe(201);
    const url = `${system.url}${new URL(integration.body.url).pathname}`;
    post = async (body) =>
      (
        await fetch(url, {
          method: "POST",
          headers: { Authorization: `Bearer ${integration.body.token}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        })
      ).status;
    // 25 alerts: one more page than 20; events 1..25 so that sorting by events is visible.
    for (let i = 1; i <= 25; i++) {
      for (let e = 0; e < (i === 7 ? 3 : 1); e++)
        expect(await post({ title: `storm-${i}`, fingerprint: `storm-${i}`, severity: i % 2 ? "low" : "high" })).toBe(202);
    }
    await until(
      async () =>
        (await admin.get("/api/v4/projects/shop%2Fstore/alert_management/alerts?per_page=1")).headers.get("x-total") === "25",
    );
    tab = await openTab(browser, system.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it("pages, searches, sorts by a column, switches tabs by keyboard, and takes a burst without a reload", async () => {
    const { page } = tab;
    await page.goto("/shop/store/-/alert_management");
    await page.getByLabel("Username or primary email").fill("root");
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();

    // Paging: 20 rows, then the 5 others.
    const pager = page.getByRole("navigation", { name: "Alerts pages" });
    await pager.getByText("Page 1 of 2").waitFor();
    const bodyRows = page.getByRole("row").filter({ has: page.getByRole("link") });
    expect(await bodyRows.count()).toBe(20);
    await pager.getByRole("button", { name: "Next" }).click();
    await pager.getByText("Page 2 of 2").waitFor();
    await expect.poll(() => bodyRows.count(), POLL).toBe(5);
    expect(page.url()).toContain("page=2");

    // Sort by events (column header): the alert with 3 events first.
    await page.getByRole("button", { name: "Events" }).click();
    await expect
      .poll(() => page.getByRole("columnheader", { name: "Events" }).getAttribute("aria-sort"), POLL)
      .toBe("descending");
    await expect.poll(() => bodyRows.first().getByRole("link").textContent(), POLL).toBe("storm-7");
    expect(await bodyRows.first().getByRole("cell").nth(3).textContent()).toBe("3");
    expect(await seriousA11yViolations(page)).toEqual([]);

    // Search.
    await page.getByLabel("Search alerts").fill("storm-12");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => bodyRows.count(), POLL).toBe(1);
    await expect.poll(() => page.getByRole("tab", { name: /^All alerts/ }).textContent(), POLL).toMatch(/All alerts\s*1$/);
    await page.getByLabel("Search alerts").fill("");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => bodyRows.count(), POLL).toBe(20);

    // Tabs by keyboard: arrow keys move the selection.
    await page.getByRole("tab", { name: /^Open/ }).focus();
    await page.keyboard.press("ArrowRight");
    await page.getByRole("tab", { name: /^Triggered/, selected: true }).waitFor();
    // End: the last tab, Silences (its own page under the same tab row, the focus kept on the row);
    // ArrowLeft from there: All alerts, back on the list.
    await page.keyboard.press("End");
    await page.getByRole("tab", { name: "Silences", selected: true }).waitFor();
    await page.getByRole("heading", { name: "Silences", level: 1 }).waitFor();
    await expect.poll(() => page.evaluate("document.activeElement?.textContent"), POLL).toBe("Silences");
    await page.keyboard.press("ArrowLeft");
    await page.getByRole("tab", { name: /^All alerts/, selected: true }).waitFor();
    await page.getByRole("heading", { name: "Alerts", level: 1 }).waitFor();

    // A burst of 200 alerts while the page is open: the counts catch up without a reload.
    await page.evaluate("window.__stillThisPage = true");
    const burst = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post({ title: `burst-${i}`, fingerprint: `burst-${i}`, severity: "critical" })),
    );
    expect(burst.every((s) => s === 202)).toBe(true);
    await expect.poll(() => page.getByRole("tab", { name: /^All alerts/ }).textContent(), POLL).toMatch(/All alerts\s*225$/);
    expect(await bodyRows.count()).toBe(20);
    expect(await page.evaluate("window.__stillThisPage")).toBe(true);

    // With "create incident" on, a new alert opens an incident: linked from the alert, with its own page.
    const admin = api(system.url, system.adminToken);
    const settings = await admin.put("/api/v4/projects/shop%2Fstore/alert_management/settings", { create_incident: true });
    expect(settings.status, settings.text).toBe(200);
    expect(await post({ title: "Checkout down", fingerprint: "checkout", severity: "critical" })).toBe(202);
    await page.getByLabel("Search alerts").fill("Checkout down");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("link", { name: "Checkout down" }).click();
    await page.getByRole("link", { name: /^Incident #\d+$/ }).click();
    await page.getByRole("heading", { name: "Checkout down", level: 1 }).waitFor();
    await page.getByText("Open", { exact: true }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, "incident-details");
    await page.getByRole("link", { name: "Incidents", exact: true }).first().click();
    await page.getByRole("link", { name: "Checkout down" }).waitFor();

    // Dark mode follows the system setting, and keeps its contrast.
    await page.goto("/shop/store/-/alert_management?status=all");
    await bodyRows.first().waitFor();
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, "alerts-list-dark");
    expect(tab.problems).toEqual([]);
  }, 120_000);
});
