import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
 * The console's second part in real Chromium against the whole system: administration, personal
 * access tokens, notification settings and the custom field mapping (PRODUCT.md section 8).
 */
const ADMIN_PASSWORD = "root-password-for-tests";
const PASSWORD = "maria-password-123";
const POLL = { timeout: 30_000 };

/** axe (no serious or critical violation) and a screenshot, in the light and in the dark scheme. */
async function checkPage(tab: Tab, name: string, fullPage = true) {
  expect(await seriousA11yViolations(tab.page), `accessibility of ${name}`).toEqual([]);
  await screenshot(tab.page, name, fullPage);
  await tab.page.emulateMedia({ colorScheme: "dark" });
  expect(await seriousA11yViolations(tab.page), `accessibility of ${name} (dark)`).toEqual([]);
  await screenshot(tab.page, `${name}-dark`, fullPage);
  await tab.page.emulateMedia({ colorScheme: "light" });
}

async function signIn(page: Page, login: string, password: string) {
  await page.goto("/users/sign_in");
  await page.getByLabel("Username or primary email").fill(login);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

const status = (page: Page, text: string | RegExp) => page.getByRole("status").filter({ hasText: text });

describe.skipIf(chromiumMissing || !webBuilt)("web console: administration, tokens, notifications, mapping", () => {
  let system: RunningSystem;
  let browser: Browser;
  let admin: ReturnType<typeof api>;
  let mariaToken: string;

  beforeAll(async () => {
    [system, browser] = await Promise.all([startSystem({ env: { ADMIN_PASSWORD } }), launchBrowser()]);
    admin = api(system.url, system.adminToken);
    const maria = await admin.post("/api/v4/users", {
      username: "maria",
      email: "maria@example.com",
      name: "Maria Maintainer",
      password: PASSWORD,
    });
    expect(maria.status, maria.text).toBe(201);
    const token = await admin.post(`/api/v4/users/${maria.body.id}/personal_access_tokens`, { name: "tests", scopes: ["api"] });
    mariaToken = token.body.token;
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
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it("root creates a user and a Premium group from /admin, blocks and promotes; others get the 404 page", async () => {
    const tab = await openTab(browser, system.url);
    const { page } = tab;
    await signIn(page, "root", ADMIN_PASSWORD);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin Area" }).click();
    await page.getByRole("heading", { name: "Admin Area", level: 1 }).waitFor();

    const newUser = page.getByRole("form", { name: "New user" });
    await newUser.getByLabel("Name", { exact: true }).fill("Ana Admin");
    await newUser.getByLabel("Username").fill("ana");
    await newUser.getByLabel("Email").fill("ana@example.com");
    await newUser.getByLabel("Password").fill("short");
    await newUser.getByRole("button", { name: "Create user" }).click();
    // The browser's own check (8+) stops this one; the API's words for a reserved name show in place.
    await newUser.getByLabel("Password").fill("ana-password-123");
    await newUser.getByLabel("Username").fill("admin");
    await newUser.getByRole("button", { name: "Create user" }).click();
    await newUser.getByRole("alert").filter({ hasText: "is reserved" }).waitFor();
    await newUser.getByLabel("Username").fill("ana");
    await newUser.getByRole("button", { name: "Create user" }).click();
    await status(page, "User ana was created.").waitFor();
    const anaRow = page.getByRole("row").filter({ hasText: "ana@example.com" });
    await anaRow.waitFor();

    await anaRow.getByRole("button", { name: "Block: ana" }).click();
    await anaRow.getByText("Blocked", { exact: true }).waitFor();
    const blocked = await admin.get("/api/v4/users?search=ana");
    expect(blocked.body.find((u: { username: string }) => u.username === "ana")?.state).toBe("blocked");
    await anaRow.getByRole("button", { name: "Unblock: ana" }).click();
    await anaRow.getByText("Active", { exact: true }).waitFor();
    await anaRow.getByRole("button", { name: "Make administrator: ana" }).click();
    await anaRow.getByText("Administrator", { exact: true }).waitFor();

    const newGroup = page.getByRole("form", { name: "New group" });
    await newGroup.getByLabel("Group name").fill("Platform");
    await newGroup.getByLabel("Plan").selectOption({ label: "Premium" });
    await newGroup.getByRole("button", { name: "Create group" }).click();
    await status(page, "Group platform was created.").waitFor();
    expect(await page.getByLabel("Plan of platform").inputValue()).toBe("premium");
    await checkPage(tab, "admin");

    const [ana, group] = await Promise.all([
      api(system.url, system.adminToken).get("/api/v4/users?search=ana"),
      admin.get("/api/v4/groups/platform"),
    ]);
    expect(ana.body.find((u: { username: string }) => u.username === "ana")).toMatchObject({ state: "active", is_admin: true });
    expect(group.body).toMatchObject({ full_path: "platform", plan: "premium" });
    // Ana signs in with the password root gave her.
    const session = await fetch(`${system.url}/-/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ login: "ana", password: "ana-password-123" }),
    });
    expect(session.status).toBe(200);

    // The plan of an existing group changes from its row.
    await page.getByLabel("Plan of free").selectOption("ultimate");
    await status(page, "free is now on Ultimate.").waitFor();
    expect((await admin.get("/api/v4/groups/free")).body.plan).toBe("ultimate");
    await page.getByLabel("Plan of free").selectOption("free");
    await status(page, "free is now on Free.").waitFor();

    // Maria is no administrator: /admin does not exist for her.
    const other = await openTab(browser, system.url);
    await signIn(other.page, "maria", PASSWORD);
    await other.page.goto("/admin");
    await other.page.getByRole("heading", { name: "Page not found" }).waitFor();
    expect(await other.page.getByRole("link", { name: "Admin Area" }).count()).toBe(0);
    expect([...tab.problems, ...other.problems]).toEqual([]);
    await Promise.all([tab.context.close(), other.context.close()]);
  }, 120_000);

  it("creates a personal access token shown once, uses it, revokes it behind a confirmation (then 401)", async () => {
    const tab = await openTab(browser, system.url);
    const { page } = tab;
    await signIn(page, "maria", PASSWORD);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Access tokens" }).click();
    await page.getByRole("heading", { name: "Personal access tokens", level: 1 }).waitFor();
    await page.getByLabel("Token name").fill("ci");
    await page.getByLabel("Expiration date (optional)").fill("2099-01-31");
    await page.getByRole("checkbox", { name: /^read_api/ }).check();
    await page.getByRole("button", { name: "Create personal access token" }).click();
    const shown = page.getByLabel("Your new personal access token");
    await shown.waitFor();
    await page.getByRole("button", { name: "Copy personal access token" }).click();
    await page.getByText("Copied").waitFor();
    const token = await clipboardText(page);
    expect(token).toBe(await shown.inputValue());
    const row = page.getByRole("row").filter({ hasText: "ci" }).filter({ hasText: "2099-01-31" });
    await row.waitFor();
    expect(await row.getByText("api, read_api").count()).toBe(1);
    await checkPage(tab, "personal-access-tokens");

    const me = await fetch(`${system.url}/api/v4/user`, { headers: { "PRIVATE-TOKEN": token } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe("maria");

    // After a reload the token is never shown again.
    await page.reload();
    await row.waitFor();
    expect(await page.getByLabel("Your new personal access token").count()).toBe(0);

    await row.getByRole("button", { name: "Revoke ci" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke token" });
    await dialog.waitFor();
    await checkPage(tab, "personal-access-tokens-revoke", false);
    await dialog.getByRole("button", { name: "Revoke" }).click();
    await status(page, "The token was revoked.").waitFor();
    await expect.poll(() => row.count(), POLL).toBe(0);
    const after = await fetch(`${system.url}/api/v4/user`, { headers: { "PRIVATE-TOKEN": token } });
    expect(after.status).toBe(401);
    expect(tab.problems).toEqual([]);
    await tab.context.close();
  }, 120_000);

  it("sets a project to Custom with two events, the global level and e-mail, and shows API-side changes on reload", async () => {
    const maria = api(system.url, mariaToken);
    const user = await maria.get("/api/v4/user");
    const extra = await admin.post(`/api/v4/users/${user.body.id}/emails`, {
      email: "maria.alerts@example.com",
      skip_confirmation: true,
    });
    expect(extra.status, extra.text).toBe(201);
    const tab = await openTab(browser, system.url);
    const { page } = tab;
    await signIn(page, "maria", PASSWORD);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Notifications" }).click();
    await page.getByRole("heading", { name: "Notifications", level: 1 }).waitFor();
    // The six levels are explained.
    for (const help of ["Use your global notification setting.", "You will receive notifications for any activity."]) {
      await page.getByText(help).first().waitFor();
    }
    const projectLevel = page.getByLabel("Notification level for ops/web", { exact: true });
    await projectLevel.waitFor();
    expect(await projectLevel.inputValue()).toBe("global");
    await checkPage(tab, "notifications");

    await projectLevel.selectOption({ label: "Custom" });
    const dialog = page.getByRole("dialog", { name: /Custom notification events/ });
    await dialog.waitFor();
    expect(await dialog.getByRole("checkbox").count()).toBe(17); // no new_epic for a project
    await dialog.getByRole("checkbox", { name: "New note" }).check();
    await status(page, "New note on: notification settings saved.").waitFor();
    await dialog.getByRole("checkbox", { name: "Failed pipeline" }).check();
    await status(page, "Failed pipeline on: notification settings saved.").waitFor();
    await checkPage(tab, "notifications-custom-dialog", false);
    await dialog.getByRole("button", { name: "Done" }).click();

    const project = await maria.get("/api/v4/projects/ops%2Fweb/notification_settings");
    expect(project.body.level).toBe("custom");
    const on = Object.entries(project.body.events as Record<string, boolean>).filter(([, v]) => v);
    expect(on.map(([k]) => k).sort()).toEqual(["failed_pipeline", "new_note"]);
    expect(project.body.events).not.toHaveProperty("new_epic");

    await page.getByLabel("Global notification level").selectOption({ label: "Watch" });
    await status(page, "Global notification level: Watch. Notification settings saved.").waitFor();
    await page.getByLabel("Notification email").selectOption("maria.alerts@example.com");
    await status(page, "Notification e-mail: maria.alerts@example.com").waitFor();
    expect((await maria.get("/api/v4/notification_settings")).body).toMatchObject({
      level: "watch",
      notification_email: "maria.alerts@example.com",
    });

    // A change made through the API shows on reload.
    expect((await maria.put("/api/v4/groups/ops/notification_settings", { level: "mention" })).status).toBe(200);
    await page.reload();
    await expect.poll(() => page.getByLabel("Notification level for ops", { exact: true }).inputValue(), POLL).toBe("mention");
    expect(await page.getByLabel("Notification level for ops/web", { exact: true }).inputValue()).toBe("custom");

    // On Ultimate a group's custom events include New epic (the 18th), as the API returns it.
    expect(
      (await admin.put(`/api/v4/namespaces/${(await admin.get("/api/v4/groups/free")).body.id}`, { plan: "ultimate" })).status,
    ).toBe(200);
    await page.reload();
    await page.getByLabel("Notification level for free", { exact: true }).selectOption({ label: "Custom" });
    const groupDialog = page.getByRole("dialog", { name: "Custom notification events: free" });
    await groupDialog.getByRole("checkbox", { name: "New epic" }).check();
    await status(page, "New epic on: notification settings saved.").waitFor();
    expect(await groupDialog.getByRole("checkbox").count()).toBe(18);
    await groupDialog.getByRole("button", { name: "Done" }).click();
    expect((await maria.get("/api/v4/groups/free/notification_settings")).body.events.new_epic).toBe(true);
    await admin.put(`/api/v4/namespaces/${(await admin.get("/api/v4/groups/free")).body.id}`, { plan: "free" });
    expect(tab.problems).toEqual([]);
    await tab.context.close();
  }, 120_000);

  it("maps a Datadog-shaped sample on Premium; an alert then shows the mapped title and severity; Free says Premium", async () => {
    const tab = await openTab(browser, system.url);
    const { page } = tab;
    await signIn(page, "maria", PASSWORD);
    await page.goto("/ops/web/-/settings/operations");
    await page.getByRole("button", { name: "Add new integration" }).click();
    await page.getByLabel("1. Select integration type").selectOption({ label: "HTTP Endpoint" });
    await page.getByLabel("2. Name integration").fill("Datadog");
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("tab", { name: "View credentials", selected: true }).waitFor();
    const webhookUrl = await page.getByLabel("Webhook URL").inputValue();
    const key = await page.getByLabel("Authorization key").inputValue();
    await page.getByRole("tab", { name: "Configure details" }).click();

    const sample = {
      id: "1234567890",
      event_type: "query_alert_monitor",
      date: "2026-11-24T07:00:00Z",
      event: { title: "CPU high on web-1", priority: "low", host: "web-1" },
      tags: ["env:prod", "team:web"],
      org: { id: 42, name: "Acme" },
    };
    await page.getByLabel("Sample payload (JSON)").fill(JSON.stringify(sample, null, 2));
    await page.getByRole("button", { name: "Parse payload fields" }).click();
    const title = page.getByLabel("Payload field for Title");
    await title.waitFor();
    // Only compatible types are offered: a datetime for Start time, not for Title; numbers never.
    const titleOptions = await title.getByRole("option").allTextContents();
    expect(titleOptions).toContain("event/title (string)");
    expect(titleOptions).not.toContain("date (datetime)");
    expect(titleOptions.some((o) => o.startsWith("org/id"))).toBe(false);
    // GitLab's rule: text that starts with four digits is a datetime (the id too).
    expect(await page.getByLabel("Payload field for Start time").getByRole("option").allTextContents()).toEqual([
      "(default)",
      "id (datetime)",
      "date (datetime)",
    ]);
    await title.selectOption({ label: "event/title (string)" });
    await page.getByLabel("Payload field for Severity").selectOption({ label: "event/priority (string)" });
    await page.getByLabel("Payload field for Hosts").selectOption({ label: "event/host (string)" });
    await page.getByLabel("Payload field for Start time").selectOption({ label: "date (datetime)" });

    // Changing the sample warns that the mapping must be redone.
    await page.getByLabel("Sample payload (JSON)").fill(JSON.stringify({ ...sample, extra: "field" }, null, 2));
    await page.getByRole("alert").filter({ hasText: "the mapping must be redone" }).waitFor();
    await page.getByLabel("Sample payload (JSON)").fill(JSON.stringify(sample, null, 2));
    await title.waitFor();
    await checkPage(tab, "custom-mapping");
    await page.getByRole("button", { name: "Save mapping" }).click();
    await status(page, "Mapping saved.").waitFor();
    const stored = await api(system.url, mariaToken).get("/api/v4/projects/ops%2Fweb/alert_management/integrations");
    const id = stored.body.find((i: { name: string }) => i.name === "Datadog").id;
    const integration = await api(system.url, mariaToken).get(
      `/api/v4/projects/ops%2Fweb/alert_management/http_integrations/${id}`,
    );
    expect(integration.body.payload_attribute_mappings).toMatchObject({
      title: { path: ["event", "title"], type: "string" },
      severity: { path: ["event", "priority"], type: "string" },
    });
    expect(integration.body.payload_example).toMatchObject(sample);

    const posted = await fetch(`${system.url}${new URL(webhookUrl).pathname}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", Prefer: "wait" },
      body: JSON.stringify({ ...sample, event: { ...sample.event, title: "Disk slow on db-2", priority: "medium" } }),
    });
    expect(posted.status).toBe(200);
    await page.goto("/ops/web/-/alert_management");
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "Disk slow on db-2" }) });
    await row.waitFor();
    expect(await row.getByText("Medium").count()).toBe(1);

    // The saved mapping is shown again when the panel is reopened.
    await page.goto("/ops/web/-/settings/operations");
    await page.getByRole("button", { name: "Edit Datadog" }).click();
    await expect
      .poll(() => page.getByLabel("Payload field for Severity").inputValue(), POLL)
      .toBe(JSON.stringify(["event", "priority"]));

    // A Free project: the panel says Premium, and it is not an error.
    const free = await api(system.url, mariaToken).post("/api/v4/projects/free%2Fweb/alert_management/http_integrations", {
      name: "Plain",
    });
    expect(free.status, free.text).toBe(201);
    await page.goto("/free/web/-/settings/operations");
    await page.getByRole("button", { name: "Edit Plain" }).click();
    await page.getByText("available in the Premium and Ultimate tiers only").waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Parse payload fields" }).count()).toBe(0);
    await checkPage(tab, "custom-mapping-free");
    expect(tab.problems).toEqual([]);
    await tab.context.close();
  }, 120_000);

  it("lists incidents with Open, Closed and All tabs and paging; details link the alert that opened it", async () => {
    const maria = api(system.url, mariaToken);
    const group = await admin.get("/api/v4/groups/ops");
    const project = await admin.post("/api/v4/projects", { name: "Incidents", path: "incidents", namespace_id: group.body.id });
    expect(project.status, project.text).toBe(201);
    const base = "/api/v4/projects/ops%2Fincidents/alert_management";
    expect((await maria.put(`${base}/settings`, { create_incident: true, auto_close_incident: true })).status).toBe(200);
    const integration = await maria.post(`${base}/http_integrations`, { name: "Source", active: true });
    expect(integration.status, integration.text).toBe(201);
    const post = async (body: object) => {
      const res = await fetch(`${system.url}${new URL(integration.body.url).pathname}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${integration.body.token}`, "Content-Type": "application/json", Prefer: "wait" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
    };
    for (let i = 1; i <= 22; i++) await post({ title: `Outage ${i}`, fingerprint: `outage-${i}`, severity: "high" });
    // The first alert resolves: its incident closes.
    await post({ title: "Outage 1", fingerprint: "outage-1", end_time: new Date().toISOString() });

    const tab = await openTab(browser, system.url);
    const { page } = tab;
    await signIn(page, "maria", PASSWORD);
    await page.goto("/ops/incidents/-/incidents");
    await page.getByRole("tab", { name: "Open", selected: true }).waitFor();
    const rows = page.getByRole("tabpanel").getByRole("row");
    await expect.poll(() => rows.count(), POLL).toBe(21); // 20 and the header
    const pager = page.getByRole("navigation", { name: "Incidents pages" });
    await pager.getByText("Page 1 of 2").waitFor();
    await checkPage(tab, "incidents-open");
    await pager.getByRole("button", { name: "Next" }).click();
    await pager.getByText("Page 2 of 2").waitFor();
    await expect.poll(() => rows.count(), POLL).toBe(2);
    await page.getByRole("tab", { name: "Closed" }).click();
    await page.getByRole("tab", { name: "Closed", selected: true }).waitFor();
    await page.getByRole("link", { name: "Outage 1", exact: true }).waitFor();
    await expect.poll(() => rows.count(), POLL).toBe(2);
    await page.getByRole("tab", { name: "All" }).click();
    await page.getByRole("navigation", { name: "Incidents pages" }).getByText("Page 1 of 2").waitFor();

    await page.getByRole("tab", { name: "Closed" }).click();
    await page.getByRole("link", { name: "Outage 1", exact: true }).click();
    await page.getByRole("heading", { name: "Outage 1", level: 1 }).waitFor();
    await page
      .getByRole("definition")
      .filter({ hasText: /^Closed$/ })
      .waitFor();
    await checkPage(tab, "incident-closed-details");
    await page.getByRole("link", { name: /^Alert #\d+$/ }).click();
    await page.getByRole("heading", { name: "Outage 1", level: 1 }).waitFor();
    expect(page.url()).toMatch(/\/ops\/incidents\/-\/alert_management\/\d+\/details$/);
    expect(tab.problems).toEqual([]);
    await tab.context.close();
  }, 120_000);
});

describe.skipIf(chromiumMissing || !webBuilt)("web console: an empty installation set up from the browser", () => {
  let system: RunningSystem;
  let browser: Browser;

  beforeAll(async () => {
    [system, browser] = await Promise.all([startSystem({ env: { ADMIN_PASSWORD } }), launchBrowser()]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it("root creates a Premium group and a project, adds an HTTP endpoint that receives alerts, sets notifications", async () => {
    const tab = await openTab(browser, system.url);
    const { page } = tab;
    await signIn(page, "root", ADMIN_PASSWORD);
    await page.getByRole("link", { name: "Admin Area" }).click();
    const newGroup = page.getByRole("form", { name: "New group" });
    await newGroup.getByLabel("Group name").fill("Acme");
    await newGroup.getByLabel("Plan").selectOption({ label: "Premium" });
    await newGroup.getByRole("button", { name: "Create group" }).click();
    await status(page, "Group acme was created.").waitFor();
    const newProject = page.getByRole("form", { name: "New project" });
    await newProject.getByLabel("Project name").fill("Shop");
    await newProject.getByLabel("Project slug (path; from the name when empty)").fill("shop");
    await expect.poll(() => newProject.getByLabel("Group").getByRole("option").allTextContents(), POLL).toContain("acme");
    await newProject.getByLabel("Group").selectOption({ label: "acme" });
    await newProject.getByRole("button", { name: "Create project" }).click();
    await status(page, "Project acme/shop was created.").getByRole("link", { name: "acme/shop" }).click();
    await page.getByRole("heading", { name: "Shop", level: 1 }).waitFor();
    await page.getByText("Premium", { exact: true }).first().waitFor();

    await page.getByRole("link", { name: "Monitor settings: Alerts" }).click();
    await page.getByRole("button", { name: "Add new integration" }).click();
    await page.getByLabel("1. Select integration type").selectOption({ label: "HTTP Endpoint" });
    await page.getByLabel("2. Name integration").fill("Production");
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("tab", { name: "View credentials", selected: true }).waitFor();
    const url = await page.getByLabel("Webhook URL").inputValue();
    const key = await page.getByLabel("Authorization key").inputValue();
    const sent = await fetch(`${system.url}${new URL(url).pathname}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ title: "First alert of Acme", severity: "high" }),
    });
    expect(sent.status).toBe(202);
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Alerts" }).click();
    await page.getByRole("link", { name: "First alert of Acme" }).waitFor();

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Notifications" }).click();
    await page.getByLabel("Notification level for acme/shop", { exact: true }).selectOption({ label: "Watch" });
    await status(page, "Notification level for acme/shop: Watch. Notification settings saved.").waitFor();
    const setting = await api(system.url, system.adminToken).get("/api/v4/projects/acme%2Fshop/notification_settings");
    expect(setting.body).toEqual({ level: "watch" });
    expect(tab.problems).toEqual([]);
    await tab.context.close();
  }, 120_000);
});
