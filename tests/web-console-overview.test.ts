import { until } from "@tocsin/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { chromiumMissing, launchBrowser, openTab, screenshot, seriousA11yViolations, type Tab, webBuilt } from "./browser.js";
import { type RunningSystem, startSystem } from "./harness.js";

/**
 * The console at a glance in real Chromium (issue 26): Your projects with open alerts by severity,
 * burning first; the project overview (counts linked to the filtered list, the 24 h and 30 d
 * charts with their table views, noisiest, response times); the alerts list's filters kept in the
 * address. axe in the light and the dark scheme on both pages.
 */
const ADMIN_PASSWORD = "root-password-for-tests";
const POLL = { timeout: 30_000 };
const HOUR = 3_600_000;

async function checkPage(tab: Tab, name: string) {
  expect(await seriousA11yViolations(tab.page), `accessibility of ${name}`).toEqual([]);
  await screenshot(tab.page, name);
  await tab.page.emulateMedia({ colorScheme: "dark" });
  expect(await seriousA11yViolations(tab.page), `accessibility of ${name} (dark)`).toEqual([]);
  await screenshot(tab.page, `${name}-dark`);
  await tab.page.emulateMedia({ colorScheme: "light" });
}

describe.skipIf(chromiumMissing || !webBuilt)("web console: the overview pages", () => {
  let system: RunningSystem;
  let browser: Browser;
  let tab: Tab;

  beforeAll(async () => {
    [system, browser] = await Promise.all([startSystem({ env: { ADMIN_PASSWORD } }), launchBrowser()]);
    const admin = api(system.url, system.adminToken);
    const group = await admin.post("/api/v4/groups", { name: "Shop", path: "shop", plan: "premium" });
    expect(group.status, group.text).toBe(201);
    for (const path of ["quiet", "store"]) {
      const p = await admin.post("/api/v4/projects", {
        name: path === "store" ? "Store" : "Quiet",
        path,
        namespace_id: group.body.id,
      });
      expect(p.status, p.text).toBe(201);
    }
    const integration = await admin.post("/api/v4/projects/shop%2Fstore/alert_management/http_integrations", {
      name: "Load",
      active: true,
    });
    expect(integration.status, integration.text).toBe(201);
    const url = `${system.url}${new URL(integration.body.url).pathname}`;
    const post = async (body: Record<string, unknown>) => {
      const res = await fetch(url, {
        method: "POST",
        headers: { Authorization: `Bearer ${integration.body.token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(202);
    };
    // Alerts over the last 30 days (resolved after a while), a few in the last day, and some open.
    const now = Date.now();
    const severities = ["critical", "high", "medium", "low", "info"];
    const at = (msAgo: number) => new Date(now - msAgo).toISOString();
    let posted = 0;
    for (let i = 0; i < 40; i++) {
      const start = ((i * 17) % 29) * 24 * HOUR + ((i * 5) % 23) * HOUR + 2 * HOUR;
      await post({
        title: `Past ${i}`,
        severity: severities[i % 5],
        service: ["db", "web", "queue"][i % 3],
        fingerprint: `past-${i % 12}`,
        start_time: at(start),
        end_time: at(start - ((i % 6) + 1) * 600_000),
      });
      posted++;
    }
    for (const [i, [title, severity, service]] of [
      ["Database down", "critical", "db"],
      ["Disk almost full", "high", "db"],
      ["Slow checkout", "medium", "web"],
      ["Queue backlog", "low", "queue"],
    ].entries()) {
      await post({
        title,
        severity,
        service,
        monitoring_tool: "Prometheus",
        fingerprint: title,
        start_time: at((i + 1) * 2 * HOUR),
      });
      posted++;
    }
    await until(
      async () =>
        (await admin.get("/api/v4/projects/shop%2Fstore/alert_management/alerts?per_page=1")).headers.get("x-total") ===
        String(posted),
      POLL.timeout,
    );
    // One acknowledged (for the mean time to acknowledge).
    const disk = await admin.get("/api/v4/projects/shop%2Fstore/alert_management/alerts?search=Disk%20almost");
    const ack = await admin.put(`/api/v4/projects/shop%2Fstore/alert_management/alerts/${disk.body[0].iid}`, {
      status: "acknowledged",
    });
    expect(ack.status, ack.text).toBe(200);
    tab = await openTab(browser, system.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it("shows burning projects first, the overview with its charts, and a filtered list from its counts", async () => {
    const { page, problems } = tab;
    await page.goto("/users/sign_in");
    await page.getByLabel("Username or primary email").fill("root");
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();

    // Your projects: the project with a triggered critical alert first, its counts by severity.
    const items = page
      .getByRole("main")
      .getByRole("listitem")
      .filter({ has: page.getByRole("link", { name: /^shop\// }) });
    await expect.poll(() => items.first().getByRole("link").first().textContent(), POLL).toBe("shop/store");
    const store = page.getByRole("list", { name: "Open alerts of shop/store" });
    await store.getByRole("link", { name: "1 critical (1 triggered)" }).waitFor();
    await store.getByRole("link", { name: "1 high" }).waitFor(); // acknowledged: open, not triggered
    expect(await items.nth(1).textContent()).toContain("No open alerts");
    await checkPage(tab, "overview-dashboard");

    // The project overview: open alerts by severity, both charts, noisiest, response times.
    await page.getByRole("link", { name: "shop/store" }).click();
    await page.getByRole("heading", { name: "Open alerts", level: 2 }).waitFor();
    const day = page.getByRole("figure", { name: "Last 24 hours, per hour" });
    await expect.poll(() => day.getAttribute("aria-describedby"), POLL).toBeTruthy();
    const month = page.getByRole("figure", { name: "Last 30 days, per day" });
    await month.getByText(/^44 alerts started in the last 30 days/).waitFor();
    await page.locator(".started-chart canvas").nth(1).waitFor();
    const times = page.getByRole("table", { name: "Response times over the alerts started in the last 7 and 30 days" });
    await times.getByRole("row", { name: /^Last 7 days .*\(1 acknowledged\)/ }).waitFor();
    await page.getByRole("heading", { name: "Noisiest services" }).waitFor();
    await checkPage(tab, "overview-project");
    // Each chart's numbers as a table.
    await month.getByText("Table view: last 30 days, per day").click();
    expect(await month.getByRole("row").count()).toBe(31); // header + 30 days
    expect(await seriousA11yViolations(page)).toEqual([]);

    // A count links to the list filtered to it; the filters are in the address and survive a reload.
    await page.getByRole("link", { name: "1 triggered critical alerts" }).click();
    await page.waitForURL(/alert_management\?status=triggered&severity=critical$/);
    await page.getByRole("link", { name: "Database down" }).waitFor();
    expect(await page.getByRole("combobox", { name: "Severity" }).inputValue()).toBe("critical");
    await page.getByRole("combobox", { name: "Severity" }).selectOption("");
    await page.getByRole("textbox", { name: "Service" }).fill("DB");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/service=DB/);
    await page.reload();
    await page.getByRole("link", { name: "Database down" }).waitFor();
    expect(await page.getByRole("textbox", { name: "Service" }).inputValue()).toBe("DB");
    // The tabs keep the filters: acknowledged alerts of service db.
    await page.getByRole("tab", { name: /^Acknowledged/ }).click();
    await page.waitForURL(/status=acknowledged&service=DB$/);
    await page.getByRole("link", { name: "Disk almost full" }).waitFor();
    const rows = page.getByRole("row").filter({ has: page.getByRole("link") });
    await expect.poll(() => rows.count(), POLL).toBe(1);
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  }, 90_000);

  it("Configure details shows and edits the protection fields: rate limit, auto-resolve, key rotation grace, signing secret", async () => {
    const { page, problems } = tab;
    const admin = api(system.url, system.adminToken);
    const base = "/api/v4/projects/shop%2Fstore/alert_management";
    const [load] = (await admin.get(`${base}/integrations`)).body as Array<{ id: number }>;
    const read = async () => (await admin.get(`${base}/http_integrations/${load?.id}`)).body;
    await page.goto("/shop/store/-/settings/operations");
    await page.getByRole("button", { name: "Edit Load" }).click();
    await page.getByRole("tab", { name: "Configure details" }).click();

    await page.getByLabel("Rate limit (requests per minute; 0 = unlimited)").fill("120");
    await page.getByLabel("Auto-resolve after minutes without new events (empty = never)").fill("30");
    await page.getByRole("button", { name: "Save integration" }).click();
    await expect
      .poll(async () => [(await read()).rate_limit_per_minute, (await read()).auto_resolve_minutes], POLL)
      .toEqual([120, 30]);
    await expect.poll(() => page.getByLabel("Rate limit (requests per minute; 0 = unlimited)").inputValue(), POLL).toBe("120");

    // Rotation with a grace period: the old key keeps working for it.
    await page.getByLabel("Grace period for the old key (seconds)").fill("600");
    await page.getByRole("button", { name: "Rotate key" }).click();
    await page.getByText(/^works until/).waitFor();
    expect((await read()).previous_token_expires_at).not.toBeNull();

    // Signing secret: created (shown once), rotated, removed behind a confirmation.
    await page.getByRole("button", { name: "Create signing secret" }).click();
    await page.getByText("Signing secret (shown once; copy it now):").waitFor();
    await page.getByRole("button", { name: "Rotate signing secret" }).waitFor();
    expect((await read()).signing_enabled).toBe(true);
    await checkPage(tab, "configure-details-protection");
    await page.getByRole("button", { name: "Remove signing secret" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove signing secret" }).click();
    await page.getByRole("button", { name: "Create signing secret" }).waitFor();
    expect((await read()).signing_enabled).toBe(false);
    expect(problems).toEqual([]);
  }, 60_000);

  it("notification settings name groups and projects as GitLab does and read past 100; the Admin Area searches", async () => {
    const admin = api(system.url, system.adminToken);
    const nina = await admin.post("/api/v4/users", {
      username: "nina",
      email: "nina@example.com",
      name: "Nina",
      password: "nina-password-1",
    });
    expect(nina.status, nina.text).toBe(201);
    const group = await admin.post("/api/v4/groups", { name: "Big Group", path: "big" });
    expect(
      (await admin.post(`/api/v4/groups/${group.body.id}/members`, { user_id: nina.body.id, access_level: 30 })).status,
    ).toBe(201);
    for (let i = 1; i <= 105; i++) {
      const p = await admin.post("/api/v4/projects", { name: `Service ${i}`, path: `svc-${i}`, namespace_id: group.body.id });
      expect(p.status, p.text).toBe(201);
    }
    const other = await openTab(browser, system.url);
    const { page } = other;
    await page.goto("/users/sign_in");
    await page.getByLabel("Username or primary email").fill("nina");
    await page.getByLabel("Password").fill("nina-password-1");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await page.goto("/-/profile/notifications");
    await page.getByRole("heading", { name: "Projects (105)" }).waitFor();
    await page.getByRole("cell", { name: "Big Group / Service 1 big/svc-1" }).waitFor();
    const projectPages = page.getByRole("navigation", { name: "Projects pages" });
    await projectPages.getByText("Page 1 of 3").waitFor();
    await projectPages.getByRole("button", { name: "Next" }).click();
    await projectPages.getByText("Page 2 of 3").waitFor();
    await page.getByRole("searchbox", { name: "Filter groups and projects" }).fill("Service 104");
    await page.getByLabel("Notification level for big/svc-104", { exact: true }).waitFor();
    expect(await page.getByRole("heading", { name: "Groups (1)" }).count()).toBe(1);
    await page.getByText("No groups match").waitFor();
    await checkPage(other, "notifications-named");
    await other.context.close();

    // Admin Area (root, in the first tab): users and groups searched.
    await tab.page.goto("/admin");
    await tab.page.getByRole("searchbox", { name: "Search users" }).fill("nina");
    await tab.page.getByRole("searchbox", { name: "Search users" }).press("Enter");
    const users = tab.page.getByRole("table", { name: "Users" });
    await expect.poll(() => users.getByRole("row").count(), POLL).toBe(2); // header + nina
    await users.getByRole("cell", { name: "nina@example.com" }).waitFor();
    await tab.page.getByRole("searchbox", { name: "Search groups" }).fill("big");
    await tab.page.getByRole("searchbox", { name: "Search groups" }).press("Enter");
    const groups = tab.page.getByRole("table", { name: "Groups" });
    await expect.poll(() => groups.getByRole("row").count(), POLL).toBe(2);
    expect(await seriousA11yViolations(tab.page)).toEqual([]);
    expect(tab.problems).toEqual([]);
  }, 90_000);
});
