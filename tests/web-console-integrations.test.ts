import { describe, expect, it } from "vitest";
import { api } from "./api.js";
import { chromiumMissing, clipboardText, webBuilt } from "./browser.js";
import { backends, checkPage, journey, POLL, poster, signInAsMaria } from "./web-console-journey.js";

/**
 * The console's main journey in real Chromium, part 2 of 3: Monitor settings → Alerts. Maria adds
 * an HTTP endpoint and copies its credentials, meets the Free tier's limit, sends test alerts
 * (valid, invalid, dry run, to an inactive integration), resets the key and saves the alert settings.
 */
describe.skipIf(chromiumMissing || !webBuilt).each(backends)("web console: alert integrations (%s)", (backend, env) => {
  const current = journey(backend, env);

  it("adds an HTTP endpoint, copies its credentials, sends test alerts, resets the key, saves alert settings", async () => {
    const { system, tab, shots } = current();
    const { page } = tab;
    await signInAsMaria(page, "/ops/web/-/settings/operations");

    // Monitor → Alerts: add an HTTP endpoint; its credentials are shown next.
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
    const post = poster(system, url, { title: "Disk full on db-1", severity: "critical", fingerprint: "disk-db-1" });
    expect((await post(key)).status).toBe(202);

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

    // Send test alert: valid, invalid JSON, dry run, and an inactive integration.
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
    expect(tab.problems).toEqual([]);
  }, 180_000);
});
