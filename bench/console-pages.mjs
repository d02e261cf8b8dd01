#!/usr/bin/env node
// Console page benchmark: time to interactive of each console page in real Chromium, on a project
// with 10,000 alerts, with the assets already cached (a warm-up visit of every page first).
//
// Usage: npm run build && node bench/console-pages.mjs [--alerts 10000] [--runs 5]
// The system runs from the dist packages, each service in its own process (bench/alert-system.mjs,
// embedded SQLite, in-process queue); the browser is Debian's chromium (CHROMIUM_PATH).
//
// "Interactive" = from the start of the navigation until the page shows its data: the element
// named for each page below is visible (a heading plus the first data row or control that depends
// on the API's answer). Assets come from the browser cache (fingerprinted, immutable), HTML and
// API calls are fetched each time, as for a user who reopens a page.
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { rest, startSystem } from "./alert-system.mjs";
import { median } from "./lib/stats.mjs";

const { values: args } = parseArgs({
  options: { alerts: { type: "string", default: "10000" }, runs: { type: "string", default: "5" } },
});
const ALERTS = Number(args.alerts);
const RUNS = Number(args.runs);
const PASSWORD = "bench-user-password";
const ADMIN_PASSWORD = "bench-root-password";

const call = (url, method, path, body, token) => rest(url, method, path, { body, token });

async function seed(url) {
  const user = (
    await call(url, "POST", "/api/v4/users", {
      username: "viewer",
      email: "viewer@example.com",
      name: "Viewer",
      password: PASSWORD,
    })
  ).json;
  const group = (await call(url, "POST", "/api/v4/groups", { name: "Big", path: "big", plan: "premium" })).json;
  await call(url, "POST", `/api/v4/groups/${group.id}/members`, { user_id: user.id, access_level: 40 });
  const project = (await call(url, "POST", "/api/v4/projects", { name: "Alerts", path: "alerts", namespace_id: group.id })).json;
  const base = `/api/v4/projects/${project.id}/alert_management`;
  const integration = (await call(url, "POST", `${base}/http_integrations`, { name: "Load", active: true })).json;
  const post = (body) =>
    fetch(`${url}${new URL(integration.url).pathname}`, {
      method: "POST",
      headers: { authorization: `Bearer ${integration.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => {
      if (r.status !== 202) throw new Error(`webhook → ${r.status}`);
      return r.arrayBuffer();
    });
  const started = performance.now();
  const severities = ["critical", "high", "medium", "low", "info"];
  let next = 0;
  const incidentsFrom = ALERTS - 200;
  const worker = async () => {
    while (next < ALERTS) {
      const i = next++;
      if (i === incidentsFrom) await call(url, "PUT", `${base}/settings`, { create_incident: true });
      await post({
        title: `Alert ${i}`,
        fingerprint: `fp-${i}`,
        severity: severities[i % 5],
        service: `svc-${i % 37}`,
        hosts: [`host-${i % 11}`],
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  // Wait until every alert is processed and listed.
  for (;;) {
    const r = await call(url, "GET", `${base}/alerts?per_page=1`);
    if (Number(r.headers.get("x-total")) >= ALERTS) break;
    await new Promise((res) => setTimeout(res, 500));
  }
  console.log(`seeded ${ALERTS} alerts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { project };
}

async function main() {
  const sys = await startSystem({ env: { ADMIN_PASSWORD, WEBHOOK_RATE_LIMIT_PER_MINUTE: "0" } });
  try {
    await seed(sys.url);
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      headless: true,
      args: ["--no-sandbox", "--disable-dev-shm-usage"],
    });
    const context = await browser.newContext({ baseURL: sys.url, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto("/users/sign_in");
    await page.getByLabel("Username or primary email").fill("viewer");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const p = "/big/alerts";
    const firstIncident = (await call(sys.url, "GET", "/api/v4/projects/big%2Falerts/alert_management/incidents?per_page=1"))
      .json[0];
    // Each page with the element that says its data is shown: a CSS selector and a pattern of its text.
    const pages = [
      ["Dashboard /", "/", ["a", "^big/alerts$"]],
      ["Project overview", p, ["h1", "^Alerts$"]],
      ["Alerts list (Open tab, 20 rows, counts)", `${p}/-/alert_management`, ["tbody a", "^Alert \\d+$"]],
      [
        "Alerts list, Open tab, sorted by events, a middle page",
        `${p}/-/alert_management?order_by=events&sort=desc&page=${Math.max(1, Math.floor(ALERTS / 40))}`,
        ["tbody a", "^Alert \\d+$"],
      ],
      [
        "Alerts list, All tab, sorted by events, a middle page",
        `${p}/-/alert_management?status=all&order_by=events&sort=desc&page=${Math.max(1, Math.floor(ALERTS / 40))}`,
        ["tbody a", "^Alert \\d+$"],
      ],
      ["Alerts list, search", `${p}/-/alert_management?search=Alert%20${ALERTS - 1}`, ["tbody a", `^Alert ${ALERTS - 1}$`]],
      ["Alert details", `${p}/-/alert_management/${Math.ceil(ALERTS / 2)}/details`, ["h1", "^Alert \\d+$"]],
      ["Incidents list", `${p}/-/incidents`, ["tbody a", "^Alert \\d+$"]],
      ["Incident details", `${p}/-/incidents/${firstIncident?.iid ?? 1}`, ["a", "^Alert #\\d+$"]],
      ["Monitor settings", `${p}/-/settings/operations`, ["tbody td", "^Load"]],
      ["Notification settings", "/-/profile/notifications", ['select[aria-label="Notification level for big/alerts"]', ""]],
      ["Personal access tokens", "/-/user_settings/personal_access_tokens", ["p", "^This user has no active"]],
    ];
    /** Resolves with performance.now() (ms since the navigation started) of the first frame showing the element. */
    const shown = ([selector, pattern]) =>
      page
        .waitForFunction(
          ([sel, re]) => {
            const hit = [...document.querySelectorAll(sel)].some((e) => new RegExp(re).test((e.textContent ?? "").trim()));
            return hit && performance.now();
          },
          [selector, pattern],
          { polling: "raf" },
        )
        .then((h) => h.jsonValue());
    // Warm-up: every page once (assets into the cache).
    for (const [, path, ready] of pages) {
      await page.goto(path);
      await shown(ready);
    }
    const load = loadavg()[0].toFixed(2);
    const rows = [];
    for (const [name, path, ready] of pages) {
      const times = [];
      for (let i = 0; i < RUNS; i++) {
        await page.goto("about:blank");
        await page.goto(path, { waitUntil: "commit" });
        times.push(await shown(ready));
      }
      rows.push({ name, median: median(times), max: Math.max(...times) });
      if (process.env.BENCH_DEBUG)
        console.log(
          name,
          await page.evaluate(() =>
            performance
              .getEntriesByType("resource")
              .map(
                (e) =>
                  `${e.name.replace(location.origin, "")} start=${e.startTime.toFixed(0)} dur=${e.duration.toFixed(0)} size=${e.transferSize}`,
              )
              .join("\n"),
          ),
        );
    }
    console.log(
      `\nTime to interactive, assets cached, ${RUNS} runs each (load average before: ${load}, after: ${loadavg()[0].toFixed(2)})`,
    );
    console.log("| Page | median ms | max ms |\n|---|---:|---:|");
    for (const r of rows) console.log(`| ${r.name} | ${r.median.toFixed(0)} | ${r.max.toFixed(0)} |`);
    await browser.close();
  } finally {
    await sys.stop();
  }
}

await main();
