import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "@tocsin/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { chromiumMissing, launchBrowser, openTab, screenshot, seriousA11yViolations, type Tab, webBuilt } from "./browser.js";
import { type RunningSystem, startSystem } from "./harness.js";

/**
 * Paging in real Chromium (PRODUCT.md section 11): the alert details page shows the escalation
 * (policy, next page, pages sent), and the page e-mail's acknowledge link opens a page whose one
 * button acknowledges the alert without signing in, under the console's CSP; axe on both.
 */
const ADMIN_PASSWORD = "root-password-for-tests";

describe.skipIf(chromiumMissing || !webBuilt)("web console: paging", () => {
  let system: RunningSystem;
  let browser: Browser;
  let tab: Tab;
  let ackPath: string;

  beforeAll(async () => {
    [system, browser] = await Promise.all([
      startSystem({ env: { ADMIN_PASSWORD, PAGING_SECOND_MS: "20", EXTERNAL_URL: "https://tocsin.example.com" } }),
      launchBrowser(),
    ]);
    const admin = api(system.url, system.adminToken);
    const cat = await admin.post("/api/v4/users", { username: "cat", email: "cat@example.com", name: "Cat" });
    expect(cat.status, cat.text).toBe(201);
    const group = await admin.post("/api/v4/groups", { name: "ops", path: "ops", plan: "premium" });
    const project = await admin.post("/api/v4/projects", { name: "Pager", path: "pager", namespace_id: group.body.id });
    expect(project.status, project.text).toBe(201);
    expect(
      (await admin.post(`/api/v4/projects/${project.body.id}/members`, { user_id: cat.body.id, access_level: 30 })).status,
    ).toBe(201);
    const base = "/api/v4/projects/ops%2Fpager/incident_management";
    expect((await admin.post(`${base}/oncall_schedules`, { name: "Primary", timezone: "UTC" })).status).toBe(201);
    const rotation = await admin.post(`${base}/oncall_schedules/1/rotations`, {
      name: "Always cat",
      starts_at: "2020-01-06T00:00",
      rotation_length: { length: 1, unit: "weeks" },
      participants: ["cat"],
    });
    expect(rotation.status, rotation.text).toBe(201);
    const policy = await admin.post(`${base}/escalation_policies`, {
      name: "Wake someone",
      rules: [
        { status: "acknowledged", elapsed_time_seconds: 0, oncall_schedule_iid: 1 },
        { status: "acknowledged", elapsed_time_seconds: 86_400, oncall_schedule_iid: 1 },
      ],
    });
    expect(policy.status, policy.text).toBe(201);
    const hook = await admin.post("/api/v4/projects/ops%2Fpager/alert_management/http_integrations", {
      name: "Monitor",
      active: true,
    });
    const posted = await fetch(`${system.url}${new URL(hook.body.url as string).pathname}`, {
      method: "POST",
      headers: { authorization: `Bearer ${hook.body.token}`, "content-type": "application/json", prefer: "wait" },
      body: JSON.stringify({ title: "Database down", severity: "critical" }),
    });
    expect(posted.status).toBe(200);
    // The page e-mail lands in the outbox (no SMTP_URL): its acknowledge link.
    const outbox = join(system.dataDir, "alert", "outbox");
    ackPath = await until(() => {
      const files = (() => {
        try {
          return readdirSync(outbox);
        } catch {
          return [];
        }
      })();
      for (const f of files) {
        const text = readFileSync(join(outbox, f), "utf8").replace(/=\r?\n/g, "");
        const link = /https:\/\/tocsin\.example\.com(\/-\/alerts\/acknowledge\?token=[A-Za-z0-9_.=3D-]+)/.exec(text);
        if (link) return (link[1] as string).replace("=3D", "=");
      }
      return undefined;
    });
    tab = await openTab(browser, system.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it("the alert details page shows the escalation: policy, next page, pages sent", async () => {
    const { page } = tab;
    await page.goto("/ops/pager/-/alert_management/1/details");
    await page.getByLabel("Username or primary email").fill("root");
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    const panel = page.getByRole("region", { name: "Escalation" });
    await panel.waitFor();
    await panel.getByText("Wake someone").waitFor();
    const pages = panel.getByRole("table", { name: "Pages sent" });
    expect(await pages.getByRole("row").nth(1).getByRole("cell").allTextContents()).toEqual([
      "Rule 1",
      "1",
      "@cat",
      expect.any(String),
    ]);
    // Rule 2 is due a day after the trigger.
    expect(await panel.getByText("None pending").count()).toBe(0);
    expect(await seriousA11yViolations(page), "accessibility of the alert details with its escalation").toEqual([]);
    await screenshot(page, "console-alert-escalation");
    expect(tab.problems).toEqual([]);
  });

  it("the acknowledge link: a page with one button, which acknowledges without signing in", async () => {
    const anonymous = await openTab(browser, system.url);
    const { page } = anonymous;
    await page.goto(ackPath);
    await page.getByRole("heading", { name: "Acknowledge alert", level: 1 }).waitFor();
    expect(await seriousA11yViolations(page), "accessibility of the acknowledge page").toEqual([]);
    const admin = api(system.url, system.adminToken);
    expect((await admin.get("/api/v4/projects/ops%2Fpager/alert_management/alerts/1")).body.status).toBe("triggered");
    await page.getByRole("button", { name: "Acknowledge alert" }).click();
    await page.getByText("Alert #1 (Database down) is acknowledged.").waitFor();
    await screenshot(page, "page-acknowledged");
    const alert = (await admin.get("/api/v4/projects/ops%2Fpager/alert_management/alerts/1")).body;
    expect(alert.status).toBe("acknowledged");
    expect(alert.activity.map((a: { note: string }) => a.note)).toContain("acknowledged by @cat from a page e-mail");
    expect(anonymous.problems).toEqual([]);
    await anonymous.context.close();

    // The alert's page now says nothing is pending.
    await tab.page.reload();
    await tab.page.getByRole("region", { name: "Escalation" }).getByText("None pending").waitFor();
  });
});
