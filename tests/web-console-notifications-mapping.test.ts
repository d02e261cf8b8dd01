import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { chromiumMissing, openTab, webBuilt } from "./browser.js";
import type { RunningSystem } from "./harness.js";
import { checkPage, PASSWORD, POLL, seedMaria, signIn, startConsole, status } from "./web-console-settings.fixtures.js";

/**
 * The console's notification settings, the custom field mapping (PRODUCT.md section 8) and the
 * incidents list in real Chromium against the whole system. Administration and personal access
 * tokens: tests/web-console-admin-tokens.test.ts.
 */
describe.skipIf(chromiumMissing || !webBuilt)("web console: administration, tokens, notifications, mapping", () => {
  let system: RunningSystem;
  let browser: Browser;
  let admin: ReturnType<typeof api>;
  let mariaToken: string;

  beforeAll(async () => {
    [system, browser] = await startConsole();
    ({ admin, mariaToken } = await seedMaria(system));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

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
