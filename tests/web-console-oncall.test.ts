import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { chromiumMissing, launchBrowser, openTab, screenshot, seriousA11yViolations, type Tab, webBuilt } from "./browser.js";
import { type RunningSystem, startSystem } from "./harness.js";

/**
 * The on-call schedules page (PRODUCT.md section 11, console) in real Chromium against the whole
 * system: schedules, rotations, overrides and the next 14 days as a timeline, switchable between
 * the schedule's zone and the viewer's, with forms for Maintainers; the Free tier's message.
 */
const ADMIN_PASSWORD = "root-password-for-tests";
const POLL = { timeout: 30_000 };

async function checkPage(tab: Tab, name: string) {
  expect(await seriousA11yViolations(tab.page), `accessibility of ${name}`).toEqual([]);
  await screenshot(tab.page, name);
  await tab.page.emulateMedia({ colorScheme: "dark" });
  expect(await seriousA11yViolations(tab.page), `accessibility of ${name} (dark)`).toEqual([]);
  await screenshot(tab.page, `${name}-dark`);
  await tab.page.emulateMedia({ colorScheme: "light" });
}

/** `YYYY-MM-DDTHH:MM` for a datetime-local field, `days` from now in the browser's own clock (UTC here). */
const localInput = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 13).concat(":00");

describe.skipIf(chromiumMissing || !webBuilt)("web console: on-call schedules", () => {
  let system: RunningSystem;
  let browser: Browser;
  let tab: Tab;

  beforeAll(async () => {
    [system, browser] = await Promise.all([startSystem({ env: { ADMIN_PASSWORD } }), launchBrowser()]);
    const admin = api(system.url, system.adminToken);
    const ids: Record<string, number> = {};
    for (const username of ["bob", "cat"]) {
      const user = await admin.post("/api/v4/users", {
        username,
        email: `${username}@example.com`,
        name: username.toUpperCase(),
      });
      expect(user.status, user.text).toBe(201);
      ids[username] = user.body.id;
    }
    for (const [path, plan] of [
      ["ops", "premium"],
      ["solo", "free"],
    ]) {
      const group = await admin.post("/api/v4/groups", { name: path, path, plan });
      expect(group.status, group.text).toBe(201);
      const project = await admin.post("/api/v4/projects", { name: "Pager", path: "pager", namespace_id: group.body.id });
      expect(project.status, project.text).toBe(201);
      for (const id of Object.values(ids)) {
        expect((await admin.post(`/api/v4/projects/${project.body.id}/members`, { user_id: id, access_level: 30 })).status).toBe(
          201,
        );
      }
    }
    const base = "/api/v4/projects/ops%2Fpager/incident_management/oncall_schedules";
    expect((await admin.post(base, { name: "Primary", timezone: "Europe/London", description: "Day team" })).status).toBe(201);
    const rotation = await admin.post(`${base}/1/rotations`, {
      name: "Weeks",
      starts_at: "2020-01-06T09:00",
      rotation_length: { length: 1, unit: "weeks" },
      participants: ["bob", "cat"],
    });
    expect(rotation.status, rotation.text).toBe(201);
    const starts = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const ends = new Date(Date.now() + 3 * 86_400_000).toISOString();
    expect((await admin.post(`${base}/1/overrides`, { username: "cat", starts_at: starts, ends_at: ends })).status).toBe(201);
    tab = await openTab(browser, system.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  const shiftsOf = (page: Page, lane: string) =>
    page.getByRole("list", { name: `Shifts of ${lane} in Primary` }).getByRole("listitem");

  it("shows schedules, rotations, overrides and 14 days of shifts; Maintainers add rotations and overrides", async () => {
    const { page } = tab;
    await page.goto("/ops/pager/-/oncall_schedules");
    await page.getByLabel("Username or primary email").fill("root");
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "On-call schedules", level: 1 }).waitFor();
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "On-call schedules" }).waitFor();

    const schedule = page.getByRole("region", { name: "Primary" });
    await schedule.getByText("Time zone Europe/London · Day team").waitFor();
    const row = schedule.getByRole("row").filter({ hasText: "Weeks" });
    await row.getByText("every week from 2020-01-06 09:00").waitFor();
    expect(await row.getByRole("listitem").allTextContents()).toEqual(["BOB (@bob)", "CAT (@cat)"]);

    // A weekly rotation over 14 days: 2 or 3 shifts (cut by the override), and the override's lane.
    await expect.poll(() => shiftsOf(page, "Weeks").count(), POLL).toBeGreaterThanOrEqual(2);
    const weekly = await shiftsOf(page, "Weeks").allTextContents();
    expect(
      weekly.every((t) => /@(bob|cat) (BOB|CAT) \(@(bob|cat)\), .+ – .+/.test(t)),
      weekly.join(" | "),
    ).toBe(true);
    expect(await shiftsOf(page, "Overrides").count()).toBe(1);
    expect(await shiftsOf(page, "Overrides").first().getAttribute("title")).toMatch(/^CAT \(@cat\): /);
    await schedule.getByText(/^Now: .+ \(Europe\/London\)$/).waitFor();

    await page.getByRole("radio", { name: /your time zone/ }).check();
    await schedule.getByText(/^Now: .+ \((UTC|Etc\/UTC)\)$/).waitFor();
    await page.getByRole("radio", { name: "each schedule's time zone" }).check();

    const rotationForm = schedule.getByRole("form", { name: "Add a rotation to Primary" });
    await rotationForm.getByLabel("Rotation name").fill("Nights");
    await rotationForm.getByLabel("Starts at (in the schedule's time zone)").fill("2026-01-01T22:00");
    await rotationForm.getByLabel("Hand over every").fill("1");
    await rotationForm.getByLabel("Unit").selectOption("days");
    await rotationForm.getByLabel("Participants (usernames in hand-over order)").fill("cat, nobody");
    await rotationForm.getByRole("button", { name: "Add rotation" }).click();
    await rotationForm.getByRole("alert").filter({ hasText: "nobody is not a member of the project" }).waitFor();
    await rotationForm.getByLabel("Participants (usernames in hand-over order)").fill("cat @bob");
    await rotationForm.getByRole("button", { name: "Add rotation" }).click();
    await schedule.getByRole("row").filter({ hasText: "Nights" }).waitFor();
    // Daily from 22:00: the one that began last night and one per day of the 14.
    await expect.poll(() => shiftsOf(page, "Nights").count(), POLL).toBeGreaterThanOrEqual(14);

    await schedule.getByRole("button", { name: "Edit rotation Nights" }).click();
    const edit = schedule.getByRole("form", { name: "Edit rotation Nights" });
    await edit.getByLabel("On call daily from (optional; not with hours)").fill("22:00");
    await edit.getByLabel('On call daily until (before "from" = overnight)').fill("06:00");
    await edit.getByLabel("Participants (usernames in hand-over order)").fill("bob");
    await edit.getByRole("button", { name: "Save rotation" }).click();
    const nights = schedule.getByRole("row").filter({ hasText: "Nights" });
    await nights.getByText("every day from 2026-01-01 22:00, on call 22:00–06:00 daily").waitFor();
    await expect.poll(() => nights.getByRole("listitem").allTextContents(), POLL).toEqual(["BOB (@bob)"]);
    expect(await edit.count()).toBe(0);

    const overrideForm = schedule.getByRole("form", { name: "Add an override to Primary" });
    await overrideForm.getByLabel("Who is on call instead (username)").fill("bob");
    await overrideForm.getByLabel("From (your time)").fill(localInput(5));
    await overrideForm.getByLabel("Until (your time)").fill(localInput(6));
    await overrideForm.getByRole("button", { name: "Add override" }).click();
    await expect.poll(() => shiftsOf(page, "Overrides").count(), POLL).toBe(2);
    await checkPage(tab, "console-oncall-schedules");

    await schedule.getByRole("button", { name: "Remove override of @bob" }).click();
    await expect.poll(() => shiftsOf(page, "Overrides").count(), POLL).toBe(1);
    await schedule.getByRole("button", { name: "Delete rotation Nights" }).click();
    await expect.poll(() => schedule.getByRole("row").filter({ hasText: "Nights" }).count(), POLL).toBe(0);
    await expect.poll(() => shiftsOf(page, "Nights").count(), POLL).toBe(0);
    expect(tab.problems).toEqual([]);
  }, 120_000);

  it("the escalation policy: rules worded as GitLab does, the API's refusals in place, edit and delete", async () => {
    const { page } = tab;
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Escalation policies" }).click();
    await page.getByRole("heading", { name: "Escalation policies", level: 1 }).waitFor();
    await page.getByText("No escalation policy: alerts page nobody.").waitFor();
    await page.getByRole("button", { name: "Add an escalation policy" }).click();
    const form = page.getByRole("form", { name: "Add an escalation policy" });
    await form.getByLabel("Policy name").fill("Page the team");
    const rule1 = form.getByRole("group", { name: "Rule 1" });
    await rule1.getByLabel("in (minutes)").fill("5");
    await rule1.getByLabel("Schedule", { exact: true }).selectOption({ label: "Primary" });
    await form.getByRole("button", { name: "Add rule" }).click();
    const rule2 = form.getByRole("group", { name: "Rule 2" });
    await rule2.getByLabel("IF alert is not").selectOption("resolved");
    await rule2.getByLabel("in (minutes)").fill("30");
    await rule2.getByLabel("THEN email").selectOption({ label: "user" });
    await rule2.getByLabel("Username", { exact: true }).fill("@bob");
    await form.getByLabel("Repeat every (minutes; empty = run the rules once)").fill("10");
    await form.getByLabel("Repeat at most (times)").fill("2");
    await form.getByRole("button", { name: "Add policy" }).click();
    await form.getByRole("alert").filter({ hasText: "must be greater than every rule's elapsed_time_seconds" }).waitFor();
    await form.getByLabel("Repeat every (minutes; empty = run the rules once)").fill("60");
    await form.getByRole("button", { name: "Add policy" }).click();

    const rules = page.getByRole("list", { name: "Rules of Page the team" }).getByRole("listitem");
    await expect
      .poll(() => rules.allTextContents(), POLL)
      .toEqual([
        "IF alert is not acknowledged in 5 minutes THEN email on-call user in schedule Primary",
        "IF alert is not resolved in 30 minutes THEN email user @bob",
      ]);
    await page.getByText("Repeat every 60 minutes, up to 2 more times, while the alert stays triggered.").waitFor();
    await checkPage(tab, "console-escalation-policies");

    await page.getByRole("button", { name: "Edit policy" }).click();
    const edit = page.getByRole("form", { name: "Edit Page the team" });
    await edit.getByRole("button", { name: "Remove rule 2" }).click();
    await edit.getByLabel("Policy name").fill("Primary only");
    await edit.getByLabel("Repeat every (minutes; empty = run the rules once)").fill("");
    await edit.getByRole("button", { name: "Save policy" }).click();
    const only = page.getByRole("list", { name: "Rules of Primary only" }).getByRole("listitem");
    await expect
      .poll(() => only.allTextContents(), POLL)
      .toEqual(["IF alert is not acknowledged in 5 minutes THEN email on-call user in schedule Primary"]);
    await page.getByText("The rules run once.").waitFor();

    await page.getByRole("button", { name: "Delete policy" }).click();
    await page.getByRole("dialog", { name: "Delete Primary only?" }).getByRole("button", { name: "Delete policy" }).click();
    await page.getByText("No escalation policy: alerts page nobody.").waitFor();
    expect(tab.problems).toEqual([]);
  }, 120_000);

  it("a Free project's page says which tier it needs", async () => {
    await tab.page.goto("/solo/pager/-/oncall_schedules");
    await tab.page
      .getByRole("alert")
      .filter({ hasText: "on-call schedules and escalation policies need the Premium tier" })
      .waitFor();
  });
});
