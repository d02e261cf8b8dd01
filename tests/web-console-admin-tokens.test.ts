import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { chromiumMissing, clipboardText, openTab, webBuilt } from "./browser.js";
import type { RunningSystem } from "./harness.js";
import {
  ADMIN_PASSWORD,
  checkPage,
  PASSWORD,
  POLL,
  seedMaria,
  signIn,
  startConsole,
  status,
} from "./web-console-settings.fixtures.js";

/**
 * The console's administration and personal access tokens in real Chromium against the whole
 * system (PRODUCT.md section 8), and an empty installation set up by root from the browser.
 * Notifications, the custom field mapping and incidents: tests/web-console-notifications-mapping.test.ts.
 */
describe.skipIf(chromiumMissing || !webBuilt)("web console: administration, tokens, notifications, mapping", () => {
  let system: RunningSystem;
  let browser: Browser;
  let admin: ReturnType<typeof api>;

  beforeAll(async () => {
    [system, browser] = await startConsole();
    ({ admin } = await seedMaria(system));
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
});

describe.skipIf(chromiumMissing || !webBuilt)("web console: an empty installation set up from the browser", () => {
  let system: RunningSystem;
  let browser: Browser;

  beforeAll(async () => {
    [system, browser] = await startConsole();
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
