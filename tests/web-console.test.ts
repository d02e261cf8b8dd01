import { describe, expect, it } from "vitest";
import { chromiumMissing, webBuilt } from "./browser.js";
import { backends, checkPage, journey, PASSWORD, signIn } from "./web-console-journey.js";

/**
 * The console's main journey in real Chromium, part 1 of 3 (sign-in and out; the integrations in
 * web-console-integrations.test.ts, the alerts in web-console-alerts.test.ts): the whole system
 * (gateway serving the web build, real gRPC services), on the embedded store and on MongoDB
 * (FerretDB) with Redis.
 */
describe.skipIf(chromiumMissing || !webBuilt).each(backends)("web console: signing in and out (%s)", (backend, env) => {
  const current = journey(backend, env);

  it("signs in back to the page asked for, finds the project on the dashboard and its overview, signs out", async () => {
    const { system, tab, shots } = current();
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
  }, 120_000);
});
