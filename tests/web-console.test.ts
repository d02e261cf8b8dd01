import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import {
  chromiumMissing,
  clipboardText,
  launchBrowser,
  openTab,
  screenshot,
  seriousA11yViolations,
  type Tab,
  webBuilt,
} from "./browser.js";
import { type RunningSystem, startSystem } from "./harness.js";

/**
 * The console's main journey in real Chromium, against the whole system (gateway serving the
 * web build, real gRPC services), on the embedded store and on MongoDB (FerretDB) with Redis.
 */
const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
const backends: [string, Record<string, string>][] = [["embedded", {}]];
if (mongoUrl && redisUrl) backends.push(["mongodb", { MONGO_URL: mongoUrl, REDIS_URL: redisUrl }]);
else console.warn("[web-console] MongoDB or Redis unavailable: the MongoDB variant is SKIPPED");

const ADMIN_PASSWORD = "root-password-for-tests";
const PASSWORD = "maria-password-123";
const POLL = { timeout: 30_000 };

/** Every page of the journey passes axe with no serious or critical violation, and is photographed. */
async function checkPage(tab: Tab, name: string, shots: boolean, fullPage = true) {
  expect(await seriousA11yViolations(tab.page), `accessibility of ${name}`).toEqual([]);
  if (shots) await screenshot(tab.page, name, fullPage);
}

async function signIn(page: Page, login: string, password: string) {
  await page.getByLabel("Username or primary email").fill(login);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** The table row of an alert, found by its title link. */
const alertRow = (page: Page, title: string) => page.getByRole("row").filter({ has: page.getByRole("link", { name: title }) });

describe.skipIf(chromiumMissing || !webBuilt).each(backends)("web console journey (%s)", (backend, env) => {
  let system: RunningSystem;
  let browser: Browser;
  let tab: Tab;
  const shots = backend === "embedded";

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
    tab = await openTab(browser, system.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it("signs in, adds an HTTP integration, receives alerts live, resolves one, tests and resets the key, signs out", async () => {
    const { page } = tab;

    // A signed-out visitor of a console page lands on sign-in, then comes back to that page.
    await page.goto("/ops/web/-/alert_management");
    await page.waitForURL(/\/users\/sign_in\?redirect_to=/);
    await checkPage(tab, "sign-in", shots);
    await signIn(page, "maria@example.com", "wrong-password");
    await page.getByRole("alert").filter({ hasText: "Invalid login or password." }).waitFor();
    await signIn(page, "maria@example.com", PASSWORD);
    await page.waitForURL("**/ops/web/-/alert_management");
    await page.getByRole("heading", { name: "Alerts", level: 1 }).waitFor();
    const [cookie] = (await tab.context.cookies()).filter((c) => c.name === "_tocsin_session");
    expect(cookie?.httpOnly).toBe(true);

    // Dashboard: the projects Maria can see, with search.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Projects" }).click();
    await page.getByRole("link", { name: "ops/web" }).waitFor();
    await page.getByLabel("Search projects").fill("nothing-like-this");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByText("No projects match").waitFor();
    await page.getByLabel("Search projects").fill("web");
    await page.getByRole("button", { name: "Search" }).click();
    await checkPage(tab, "dashboard", shots);

    // Project overview: tier and the links a Maintainer has.
    await page.getByRole("link", { name: "ops/web" }).click();
    await page.getByRole("heading", { name: "Web", level: 1 }).waitFor();
    expect(await page.getByText("Free", { exact: true }).count()).toBeGreaterThan(0);
    await page.getByText("Maintainer", { exact: true }).waitFor();
    await checkPage(tab, "project-overview", shots);

    // Monitor → Alerts: add an HTTP endpoint; its credentials are shown next.
    await page.getByRole("link", { name: "Monitor settings: Alerts" }).click();
    await page.getByRole("heading", { name: "Monitor settings" }).waitFor();
    await page.getByRole("button", { name: "Add new integration" }).click();
    await page.getByLabel("1. Select integration type").selectOption({ label: "HTTP Endpoint" });
    await page.getByLabel("2. Name integration").fill("Production");
    expect(await page.getByRole("region", { name: "Add new integration" }).getByLabel("Active").isChecked()).toBe(true);
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("tab", { name: "View credentials", selected: true }).waitFor();
    await page.getByRole("row").filter({ hasText: "Production" }).filter({ hasText: "Enabled" }).waitFor();

    // Copy the credentials with the copy buttons.
    await page.getByRole("button", { name: "Copy webhook url" }).click();
    await page.getByText("Copied").first().waitFor();
    const url = await clipboardText(page);
    expect(url).toMatch(/\/ops\/web\/alerts\/notify\/production\/[0-9a-f]{16}\.json$/);
    await page.getByRole("button", { name: "Copy authorization key" }).click();
    await expect.poll(() => clipboardText(page), POLL).not.toBe(url);
    const key = await clipboardText(page);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(await page.getByLabel("Webhook URL").inputValue()).toBe(url);
    await page.getByText(`Authorization: Bearer ${key}`).waitFor();
    await checkPage(tab, "settings-credentials", shots);

    // A Free project cannot have a second HTTP endpoint: the API's words are shown.
    await page.getByRole("button", { name: "Add new integration" }).click();
    await page.getByLabel("1. Select integration type").selectOption({ label: "HTTP Endpoint" });
    await page.getByLabel("2. Name integration").fill("Second");
    await page.getByRole("button", { name: "Save integration" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: "Multiple integrations of a single type are not supported for this project" })
      .waitFor();
    await page.getByRole("button", { name: "Cancel" }).click();

    // The alerts list, then an alert posted from outside the browser appears without a reload.
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Alerts" }).click();
    await page.getByText("No alerts to display.").waitFor();
    await page.evaluate("window.__stillThisPage = true");
    const payload = {
      title: "Disk full on db-1",
      severity: "critical",
      fingerprint: "disk-db-1",
      service: "postgres",
      custom: { region: "eu-west", nested: { rack: "r12" } },
    };
    // The URL shows EXTERNAL_URL (unset here: localhost:8080); the gateway under test is on a free port.
    const webhook = `${system.url}${new URL(url).pathname}`;
    const post = (token: string) =>
      fetch(webhook, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify(payload),
      });
    expect((await post(key)).status).toBe(202);
    const row = alertRow(page, "Disk full on db-1");
    await row.waitFor();
    const eventsCell = row.getByRole("cell").nth(3);
    expect(await eventsCell.textContent()).toBe("1");
    expect(await row.getByText("Critical").count()).toBe(1);
    expect(await row.getByText("Triggered").count()).toBe(1);

    // The same alert again: one row, its occurrence counter at 2.
    expect((await post(key)).status).toBe(202);
    await expect.poll(() => eventsCell.textContent(), POLL).toBe("2");
    expect(await page.evaluate("window.__stillThisPage")).toBe(true);
    await expect.poll(() => page.getByRole("tab", { name: /^Open/ }).textContent(), POLL).toMatch(/Open\s*1$/);
    await checkPage(tab, "alerts-list", shots);

    // Details: every field, the payload with its custom nested fields, activity; resolve it.
    await row.getByRole("link", { name: "Disk full on db-1" }).click();
    await page.getByRole("heading", { name: "Disk full on db-1", level: 1 }).waitFor();
    await page.getByText('"rack": "r12"').waitFor();
    await page.getByText("postgres", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Copy payload" }).click();
    expect(JSON.parse(await clipboardText(page))).toMatchObject(payload);
    await checkPage(tab, "alert-details", shots);
    await page.getByLabel("Status").selectOption("resolved");
    await page.getByRole("status").filter({ hasText: "Status changed to Resolved." }).waitFor();
    await page.getByRole("listitem").filter({ hasText: "changed the status to Resolved" }).waitFor();
    await page.getByRole("link", { name: "Alerts", exact: true }).first().click();
    await page.getByRole("tab", { name: /^Resolved/ }).click();
    await alertRow(page, "Disk full on db-1").getByText("Resolved").waitFor();

    // Send test alert: valid, invalid JSON, dry run, and an inactive integration.
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Monitor settings" }).click();
    await page.getByRole("button", { name: "Edit Production" }).click();
    await page.getByRole("tab", { name: "Send test alert" }).click();
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "The test alert should now be visible in your alerts list." }).waitFor();
    await page.getByLabel("Alert test payload").fill('{"title": "broken"');
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "Integration payload is invalid." }).waitFor();
    await page.getByLabel("Alert test payload").fill('{"title": "Would this page?", "fingerprint": "dry"}');
    await page.getByRole("button", { name: "Dry run" }).click();
    await page.getByRole("heading", { name: "What would happen" }).waitFor();
    await page.getByText("It would create a new alert.").waitFor();
    await checkPage(tab, "settings-test-alert", shots);
    await page.getByRole("tab", { name: "Configure details" }).click();
    await page.getByRole("tabpanel").getByLabel("Active").uncheck();
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("row").filter({ hasText: "Production" }).filter({ hasText: "Disabled" }).waitFor();
    await page.getByRole("tab", { name: "Send test alert" }).click();
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: "The integration is currently inactive. Enable the integration to send the test alert." })
      .waitFor();
    await page.getByRole("tab", { name: "Configure details" }).click();
    await page.getByRole("tabpanel").getByLabel("Active").check();
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("row").filter({ hasText: "Production" }).filter({ hasText: "Enabled" }).waitFor();

    // Reset the key behind a confirmation: the old key is refused at once, the new one works.
    await page.getByRole("tab", { name: "View credentials" }).click();
    await page.getByRole("button", { name: "Reset key" }).click();
    const dialog = page.getByRole("dialog", { name: "Reset key" });
    await dialog.waitFor();
    await checkPage(tab, "settings-reset-key-dialog", shots, false);
    await dialog.getByRole("button", { name: "Reset key" }).click();
    await page.getByRole("status").filter({ hasText: "The authorization key was reset." }).waitFor();
    const newKey = await page.getByLabel("Authorization key").inputValue();
    expect(newKey).toMatch(/^[0-9a-f]{32}$/);
    expect(newKey).not.toBe(key);
    expect((await post(key)).status).toBe(401);
    expect((await post(newKey)).status).toBe(202);

    // Alert settings are saved.
    await page.getByLabel("Create an incident. Incidents are created for each alert triggered.").check();
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").filter({ hasText: "Alert settings saved." }).waitFor();
    expect(await api(system.url, system.adminToken).get("/api/v4/projects/ops%2Fweb/alert_management/settings")).toMatchObject({
      body: { create_incident: true },
    });

    // The same alert after the resolve is a new alert (#2): reopening #1 is refused with the API's 409 message.
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Alerts" }).click();
    await page.getByRole("tab", { name: /^All alerts/ }).click();
    await expect.poll(() => alertRow(page, "Disk full on db-1").count(), POLL).toBe(2);
    await page.goto("/ops/web/-/alert_management/1/details");
    await page.getByLabel("Status").selectOption("triggered");
    await page.getByRole("alert").filter({ hasText: "with the same fingerprint is still open" }).waitFor();
    expect(await page.getByLabel("Status").inputValue()).toBe("resolved");

    // Sign out: back to sign-in, and the old cookie no longer opens anything.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/users/sign_in");
    const withOldCookie = await fetch(`${system.url}/api/v4/user`, {
      headers: { Cookie: `_tocsin_session=${cookie?.value}` },
    });
    expect(withOldCookie.status).toBe(401);
    await page.goto("/ops/web/-/settings/operations");
    await page.waitForURL(/\/users\/sign_in\?redirect_to=/);
    expect(tab.problems).toEqual([]);
  }, 180_000);
});
