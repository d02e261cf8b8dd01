import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { chromiumMissing, launchBrowser, openTab, screenshot, seriousA11yViolations, type Tab, webBuilt } from "./browser.js";
import { type Receiver, startReceiver } from "./channel-receiver.js";
import { type RunningSystem, startSystem } from "./harness.js";

/**
 * The console's channel pages in real Chromium against the whole system and a receiver started
 * here (PRODUCT.md section 12): `/<full_path>/-/settings/integrations` and `/<full_path>/-/hooks`.
 */
const PASSWORD = "maria-password-123";

async function checkPage(tab: Tab, name: string) {
  expect(await seriousA11yViolations(tab.page), `accessibility of ${name}`).toEqual([]);
  await screenshot(tab.page, name);
  await tab.page.emulateMedia({ colorScheme: "dark" });
  expect(await seriousA11yViolations(tab.page), `accessibility of ${name} (dark)`).toEqual([]);
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

describe.skipIf(chromiumMissing || !webBuilt)("web console: chat integrations and webhooks", () => {
  let system: RunningSystem;
  let browser: Browser;
  let rx: Receiver;
  let notify: { url: string; token: string };

  beforeAll(async () => {
    rx = await startReceiver();
    [system, browser] = await Promise.all([startSystem({ env: { OUTBOUND_ALLOW_LOCAL_NETWORK: "true" } }), launchBrowser()]);
    const admin = api(system.url, system.adminToken);
    const maria = await admin.post("/api/v4/users", {
      username: "maria",
      email: "maria@example.com",
      name: "Maria",
      password: PASSWORD,
    });
    expect(maria.status, maria.text).toBe(201);
    const group = await admin.post("/api/v4/groups", { name: "ops", path: "ops" });
    const project = await admin.post("/api/v4/projects", { name: "Web", path: "web", namespace_id: group.body.id });
    expect(project.status, project.text).toBe(201);
    await admin.post(`/api/v4/groups/${group.body.id}/members`, { user_id: maria.body.id, access_level: 40 });
    const created = await admin.post(`/api/v4/projects/${project.body.id}/alert_management/http_integrations`, {
      name: "Monitor",
      active: true,
    });
    notify = { url: (created.body.url as string).replace(/^https?:\/\/[^/]+/, system.url), token: created.body.token };
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await rx?.stop();
  });

  it("a Maintainer sets up Slack, tests the settings and sees the deliveries", async () => {
    const tab = await openTab(browser, system.url);
    const { page } = tab;
    await signIn(page, "maria", PASSWORD);
    await page.goto("/ops/web");
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Integrations" }).click();
    await page.getByRole("heading", { name: "Integrations", level: 1 }).waitFor();
    const slack = page.getByRole("form", { name: "Slack notifications" });
    await slack.getByLabel("Webhook URL").fill(`${rx.url}/slack`);
    await slack.getByLabel("Alert channel").fill("#alerts");
    await slack.getByRole("button", { name: "Save changes to Slack notifications" }).click();
    await status(page, "Slack notifications saved.").waitFor();
    await slack.getByText(`Saved: ${rx.url}/****`).waitFor();
    await slack.getByRole("button", { name: "Test settings of Slack notifications" }).click();
    await status(page, "Test message delivered (HTTP 200).").waitFor();
    expect(rx.at("/slack")[0]?.json.channel).toBe("#alerts");

    const res = await fetch(notify.url, {
      method: "POST",
      headers: { authorization: `Bearer ${notify.token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Disk full" }),
    });
    expect([200, 202]).toContain(res.status);
    const deliveries = page.getByRole("table", { name: "Recent deliveries of Slack notifications" });
    await expect
      .poll(
        async () => {
          await page.getByRole("button", { name: "Refresh recent deliveries of Slack notifications" }).click();
          return deliveries.getByRole("row").filter({ hasText: "alert.triggered" }).filter({ hasText: "delivered" }).count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    await checkPage(tab, "chat-integrations");
  });

  it("a Maintainer adds a webhook, sees its secret once, its recent events, and resends one", async () => {
    const tab = await openTab(browser, system.url);
    const { page } = tab;
    await signIn(page, "maria", PASSWORD);
    await page.goto("/ops/web/-/hooks");
    await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
    const form = page.getByRole("form", { name: "Add webhook" });
    await form.getByLabel("URL").fill(`${rx.url}/hook`);
    await form.getByLabel("Secret token").fill("t0ken");
    await form.getByRole("button", { name: "Add webhook" }).click();
    await status(page, "Its signing secret is shown only now")
      .getByText(/^whsec_/)
      .waitFor();
    const url = `${rx.url}/hook`;
    await page.getByRole("button", { name: `Recent events of ${url}` }).waitFor();

    const res = await fetch(notify.url, {
      method: "POST",
      headers: { authorization: `Bearer ${notify.token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "CPU hot", fingerprint: "cpu" }),
    });
    expect([200, 202]).toContain(res.status);
    await expect.poll(() => rx.at("/hook").length, { timeout: 30_000 }).toBe(1);
    expect(rx.at("/hook")[0]?.headers["x-gitlab-token"]).toBe("t0ken");
    await page.getByRole("button", { name: `Recent events of ${url}` }).click();
    const table = page.getByRole("table", { name: `Recent deliveries of ${url}` });
    await table.getByRole("row").filter({ hasText: "delivered" }).waitFor();
    await table
      .getByRole("button", { name: /^Resend delivery/ })
      .first()
      .click();
    await status(page, "Delivery queued again.").waitFor();
    await expect.poll(() => rx.at("/hook").length, { timeout: 30_000 }).toBe(2);

    // Rotating the signing secret with a grace: the new one is shown once, the old one still signs.
    await page.getByRole("button", { name: `Edit ${url}` }).click();
    const signing = page.getByRole("region", { name: `Signing secret of ${url}` });
    await signing.getByText("No longer signs").waitFor();
    await signing.getByLabel("Grace period for the old secret (seconds)").fill("7200");
    await signing.getByRole("button", { name: "Rotate signing secret" }).click();
    await status(page, "New signing secret, shown only now")
      .getByText(/^whsec_/)
      .waitFor();
    await signing.getByText(/also signs until/).waitFor();
    await checkPage(tab, "hooks");
  });
});
