import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { chromiumMissing, launchBrowser, openTab, screenshot, seriousA11yViolations, type Tab, webBuilt } from "./browser.js";
import { type RunningSystem, startSystem } from "./harness.js";

/**
 * Who sees what in the console, in real Chromium: root with ADMIN_PASSWORD, a Developer (test
 * alerts only), a non-member (not found), the 404 page, and the CSRF rule for cookie sessions.
 */
const ADMIN_PASSWORD = "root-password-for-tests";
const PASSWORD = "member-password-123";

async function signIn(page: Page, login: string, password: string) {
  await page.getByLabel("Username or primary email").fill(login);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

describe.skipIf(chromiumMissing || !webBuilt)("web console: roles, not-found and CSRF", () => {
  let system: RunningSystem;
  let browser: Browser;
  const tabs: Tab[] = [];
  let integrationId: number;

  const newTab = async () => {
    const tab = await openTab(browser, system.url);
    tabs.push(tab);
    return tab;
  };

  beforeAll(async () => {
    [system, browser] = await Promise.all([startSystem({ env: { ADMIN_PASSWORD } }), launchBrowser()]);
    const admin = api(system.url, system.adminToken);
    const user = async (username: string) => {
      const res = await admin.post("/api/v4/users", {
        username,
        email: `${username}@example.com`,
        name: username,
        password: PASSWORD,
      });
      expect(res.status, res.text).toBe(201);
      return res.body.id as number;
    };
    const [devId] = await Promise.all([user("dev"), user("outsider")]);
    const group = await admin.post("/api/v4/groups", { name: "Payments", path: "payments", plan: "premium" });
    expect(group.status, group.text).toBe(201);
    const project = await admin.post("/api/v4/projects", { name: "API", path: "api-server", namespace_id: group.body.id });
    expect(project.status, project.text).toBe(201);
    const member = await admin.post(`/api/v4/projects/${project.body.id}/members`, { user_id: devId, access_level: 30 });
    expect(member.status, member.text).toBe(201);
    const integration = await admin.post(`/api/v4/projects/${project.body.id}/alert_management/http_integrations`, {
      name: "Checks",
      active: true,
    });
    expect(integration.status, integration.text).toBe(201);
    integrationId = integration.body.id;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it("signs root in with ADMIN_PASSWORD; root sees every project and its settings", async () => {
    const { page, problems } = await newTab();
    await page.goto("/");
    await page.waitForURL("**/users/sign_in");
    await signIn(page, "root", ADMIN_PASSWORD);
    await page.getByRole("link", { name: "payments/api-server" }).click();
    await page.getByText("Premium", { exact: true }).waitFor();
    await page.getByRole("link", { name: "Monitor settings: Alerts" }).click();
    await page.getByRole("row").filter({ hasText: "Checks" }).filter({ hasText: "Enabled" }).waitFor();

    // Prometheus: added from the same form; its credentials are shown.
    const add = page.getByRole("region", { name: "Add new integration" });
    await page.getByRole("button", { name: "Add new integration" }).click();
    await add.getByLabel("1. Select integration type").selectOption({ label: "Prometheus" });
    await add.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("tab", { name: "Configure details", selected: true }).waitFor();
    await page.getByRole("row").filter({ hasText: "Prometheus" }).filter({ hasText: "Enabled" }).waitFor();
    await page.getByRole("tab", { name: "View credentials" }).click();
    expect(await page.getByLabel("Webhook URL").inputValue()).toMatch(
      /\/payments\/api-server\/prometheus\/alerts\/notify\.json$/,
    );
    expect(await page.getByLabel("Authorization key").inputValue()).toMatch(/^[0-9a-f]{32}$/);

    // Premium allows a second HTTP endpoint; deleting one asks first.
    await page.getByRole("button", { name: "Add new integration" }).click();
    await add.getByLabel("1. Select integration type").selectOption({ label: "HTTP Endpoint" });
    await add.getByLabel("2. Name integration").fill("Temporary");
    await add.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("row").filter({ hasText: "Temporary" }).waitFor();
    await page.getByRole("button", { name: "Delete Temporary" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete integration" });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await page.getByRole("row").filter({ hasText: "Temporary" }).count()).toBe(1);
    await page.getByRole("button", { name: "Delete Temporary" }).click();
    await dialog.getByRole("button", { name: "Delete integration" }).click();
    await page.getByRole("status").filter({ hasText: "Integration deleted." }).waitFor();
    expect(await page.getByRole("row").filter({ hasText: "Temporary" }).count()).toBe(0);

    // Opsgenie cannot be active beside active integrations: the API's reason is shown.
    const opsgenie = page.getByRole("region", { name: "Opsgenie" });
    await opsgenie.getByLabel("Active").check();
    await opsgenie.getByLabel("Opsgenie API URL").fill("https://example.app.opsgenie.com/alert/list");
    await opsgenie.getByRole("button", { name: "Save Opsgenie settings" }).click();
    await opsgenie
      .getByRole("alert")
      .filter({ hasText: "The Opsgenie integration cannot be enabled while another alert integration is active." })
      .waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  }, 60_000);

  it("shows a Developer only the Send test alert part of the settings", async () => {
    const { page, problems } = await newTab();
    await page.goto("/payments/api-server");
    await signIn(page, "dev", PASSWORD);
    await page.getByRole("heading", { name: "API", level: 1 }).waitFor();
    await page.getByText("Developer", { exact: true }).waitFor();
    expect(await page.getByRole("link", { name: "Monitor settings: Alerts" }).count()).toBe(0);
    await page.getByRole("link", { name: "Send a test alert" }).click();
    await page.getByRole("heading", { name: "Send test alert" }).waitFor();
    expect(await page.getByRole("heading", { name: "Current integrations" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Add new integration" }).count()).toBe(0);
    expect(await page.getByRole("tab", { name: "View credentials" }).count()).toBe(0);
    expect(await page.getByRole("heading", { name: "Alert settings" }).count()).toBe(0);
    await page.getByLabel("Integration ID").fill(String(integrationId));
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "The test alert should now be visible in your alerts list." }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, "settings-developer");
    // The alerts list and its details are open to Developers.
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Alerts" }).click();
    await page.getByRole("link", { name: "Test alert from the Tocsin console" }).waitFor();
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Incidents" }).click();
    await page.getByRole("heading", { name: "Incidents", level: 1 }).waitFor();
    await page.getByText("No incidents to display.").waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, "incidents-list");
    expect(problems).toEqual([]);
  }, 60_000);

  it("gives a non-member the not-found page for the project's pages, and unknown addresses the 404 page", async () => {
    const { page, problems } = await newTab();
    await page.goto("/payments/api-server/-/alert_management");
    await signIn(page, "outsider", PASSWORD);
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, "not-found");
    for (const address of ["/payments/api-server", "/payments/api-server/-/settings/operations", "/payments/no-such-project"]) {
      await page.goto(address);
      await page.getByRole("heading", { name: "Page not found" }).waitFor();
    }
    await page.goto("/payments/api-server/-/no_such_page");
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    await page.getByRole("link", { name: "Go to your projects" }).click();
    await page.getByRole("heading", { name: "Projects", level: 1 }).waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it("refuses a cookie-authenticated POST without the CSRF header (403), and takes it with the header", async () => {
    const { page, context } = await newTab();
    await page.goto("/users/sign_in");
    await signIn(page, "root", ADMIN_PASSWORD);
    await page.getByRole("heading", { name: "Projects", level: 1 }).waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === "_tocsin_session");
    expect(cookie).toBeDefined();
    const headers = { Cookie: `_tocsin_session=${cookie?.value}`, "Content-Type": "application/json" };
    const path = `${system.url}/api/v4/projects/payments%2Fapi-server/alert_management/settings`;
    const without = await fetch(path, { method: "PUT", headers, body: JSON.stringify({ send_email: true }) });
    expect(without.status).toBe(403);
    expect(await without.json()).toEqual({ message: "403 Forbidden: invalid CSRF token" });
    const session = await fetch(`${system.url}/-/session`, { headers });
    expect(session.status).toBe(200);
    const { csrf_token } = (await session.json()) as { csrf_token: string };
    const withToken = await fetch(path, {
      method: "PUT",
      headers: { ...headers, "X-CSRF-Token": csrf_token },
      body: JSON.stringify({ send_email: true }),
    });
    expect(withToken.status).toBe(200);
  }, 60_000);
});
