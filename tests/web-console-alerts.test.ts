import { describe, expect, it } from "vitest";
import { api } from "./api.js";
import { chromiumMissing, clipboardText, webBuilt } from "./browser.js";
import { alertRow, backends, checkPage, journey, POLL, poster, signInAsMaria } from "./web-console-journey.js";

/**
 * The console's main journey in real Chromium, part 3 of 3: alerts. An alert posted from outside
 * the browser appears in the open list without a reload and counts up; its details show every field
 * and the payload; Maria resolves it; the same alert again is a new one, and reopening the first is
 * refused in the API's words.
 */
describe.skipIf(chromiumMissing || !webBuilt).each(backends)("web console: alerts (%s)", (backend, env) => {
  const current = journey(backend, env);

  it("shows alerts live, their details and payload, resolves one, and refuses a second open alert", async () => {
    const { system, tab, shots } = current();
    const { page } = tab;
    const created = await api(system.url, system.adminToken).post(
      "/api/v4/projects/ops%2Fweb/alert_management/http_integrations",
      {
        name: "Production",
        active: true,
      },
    );
    expect(created.status, created.text).toBe(201);
    const payload = {
      title: "Disk full on db-1",
      severity: "critical",
      fingerprint: "disk-db-1",
      service: "postgres",
      custom: { region: "eu-west", nested: { rack: "r12" } },
    };
    const post = poster(system, created.body.url, payload);
    const key: string = created.body.token;

    // The alerts list, then an alert posted from outside the browser appears without a reload.
    await signInAsMaria(page, "/ops/web/-/alert_management");
    await page.getByText("No alerts to display.").waitFor();
    await page.evaluate("window.__stillThisPage = true");
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

    // The same alert after the resolve is a new alert (#2): reopening #1 is refused with the API's 409 message.
    expect((await post(key)).status).toBe(202);
    await page.getByRole("tab", { name: /^All alerts/ }).click();
    await expect.poll(() => alertRow(page, "Disk full on db-1").count(), POLL).toBe(2);
    await page.goto("/ops/web/-/alert_management/1/details");
    await page.getByLabel("Status").selectOption("triggered");
    await page.getByRole("alert").filter({ hasText: "with the same fingerprint is still open" }).waitFor();
    expect(await page.getByLabel("Status").inputValue()).toBe("resolved");
    expect(tab.problems).toEqual([]);
  }, 180_000);
});
