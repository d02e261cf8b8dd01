#!/usr/bin/env node
// Overview benchmark: latency of the console's aggregate calls (docs/overview-api.md) on a project
// with many alerts, embedded SQLite.
//
// Usage: npm run build && node bench/overview.mjs [--alerts 10000] [--days 365] [--runs 30] [--no-browser]
//
// The system runs from the dist packages, each service in its own process (bench/alert-system.mjs).
// A user, a Premium group and a project are created over REST and one alert is posted through the
// webhook (the system works end to end); then `--alerts` alerts are written straight into the
// project's rows of DATA_DIR/alert.db (one transaction, the alert-service running: WAL), with
// start times spread evenly over the last `--days` days, most resolved (some acknowledged
// first), 2 % open, 2,000 fingerprints and 37 services. Posting a million alerts through the
// webhook would take the better part of an hour on this machine; the overview reads rows, not
// how they came.
//
// Measured: `GET /api/v4/projects/:id/alert_management/overview` and
// `GET /api/v4/alert_management/open_alerts_by_project`, with a token, one at a time, after 3
// warm-up calls: median, p95 and max of `--runs` calls (ms, from the client: HTTP + gateway +
// gRPC + the store's queries). Then, in Chromium (CHROMIUM_PATH, default /usr/bin/chromium), the
// overview page's time to interactive with its assets cached (a warm-up visit first), as
// bench/console-pages.mjs measures pages: from the start of the navigation until both charts are
// drawn and the open alerts table shows its counts; median and max of `--runs` visits.
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { chromium } from "playwright-core";
import { rest, startSystem } from "./alert-system.mjs";
import { median } from "./lib/stats.mjs";

const { values: args } = parseArgs({
  options: {
    alerts: { type: "string", default: "10000" },
    days: { type: "string", default: "365" },
    runs: { type: "string", default: "30" },
    "no-browser": { type: "boolean", default: false },
  },
});
const ALERTS = Number(args.alerts);
const DAYS = Number(args.days);
const RUNS = Number(args.runs);
const SEVERITIES = 6;
const ADMIN_PASSWORD = "bench-root-password";

const call = async (url, method, path, body, token) => (await rest(url, method, path, { body, token })).json;

async function seedViaApi(url) {
  const group = await call(url, "POST", "/api/v4/groups", { name: "Big", path: "big", plan: "premium" });
  const project = await call(url, "POST", "/api/v4/projects", { name: "Alerts", path: "alerts", namespace_id: group.id });
  for (const path of ["quiet", "other"])
    await call(url, "POST", "/api/v4/projects", { name: path, path, namespace_id: group.id });
  const base = `/api/v4/projects/${project.id}/alert_management`;
  const integration = await call(url, "POST", `${base}/http_integrations`, { name: "Load", active: true });
  const res = await fetch(`${url}${new URL(integration.url).pathname}`, {
    method: "POST",
    headers: { authorization: `Bearer ${integration.token}`, "content-type": "application/json", prefer: "wait=10" },
    body: JSON.stringify({ title: "Through the webhook", severity: "critical" }),
  });
  if (res.status !== 200) throw new Error(`webhook → ${res.status} ${await res.text()}`);
  return { project, integration };
}

/** Writes `ALERTS` alerts of the project straight into alert.db (after the one posted: iids from 2). */
function seedRows(dataDir, projectId, integrationId) {
  const db = new Database(join(dataDir, "alert.db"));
  db.pragma("busy_timeout = 10000");
  const now = Date.now();
  const spanMs = DAYS * 86_400_000;
  const insert = db.prepare(`INSERT INTO alerts (project_id, iid, integration_id, title, severity, status, service,
      monitoring_tool, hosts, events, fingerprint, started_at, ended_at, payload, created_at, updated_at, acknowledged_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, 'bench', '[]', ?, ?, ?, ?, '{}', ?, ?, ?)`);
  const started = performance.now();
  db.transaction(() => {
    for (let i = 0; i < ALERTS; i++) {
      const startedAt = Math.round(now - spanMs + (spanMs * i) / ALERTS);
      const open = i % 50 === 0;
      const status = open ? i % 100 : 2; // 0 triggered, 50 → acknowledged below
      const acknowledged = i % 3 === 0 ? startedAt + 60_000 * (1 + (i % 30)) : null;
      insert.run(
        projectId,
        i + 2,
        integrationId,
        `Alert ${i}`,
        i % SEVERITIES,
        open ? (status === 0 ? 0 : 1) : 2,
        `svc-${i % 37}`,
        1 + (i % 7),
        open ? `open-${i}` : `fp-${i % 2000}`,
        startedAt,
        open ? null : startedAt + 300_000 * (1 + (i % 12)),
        startedAt,
        startedAt,
        acknowledged,
      );
    }
  })();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  console.log(`wrote ${ALERTS} alerts over ${DAYS} days in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function measure(name, fn) {
  for (let i = 0; i < 3; i++) await fn();
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { name, median: at(0.5), p95: at(0.95), max: times[times.length - 1] };
}

/** The overview page in Chromium, assets cached: navigation start → charts drawn and counts shown. */
async function timeToInteractive(url, path) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
  try {
    const page = await (await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(60_000);
    await page.goto("/users/sign_in");
    await page.getByLabel("Username or primary email").fill("root");
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    // BENCH_NO_CHARTS=1: until the counts show, not waiting for the charts (to see what they cost).
    const charts = process.env.BENCH_NO_CHARTS ? 0 : 2;
    const shown = () =>
      page
        .waitForFunction(
          (n) =>
            document.querySelectorAll(".started-chart canvas").length >= n &&
            document.querySelector("table.open-alerts tbody td a") !== null &&
            performance.now(),
          charts,
          { polling: "raf" },
        )
        .then((h) => h.jsonValue());
    await page.goto(path);
    await shown();
    const times = [];
    for (let i = 0; i < Math.min(RUNS, 10); i++) {
      await page.goto("about:blank");
      await page.goto(path, { waitUntil: "commit" });
      times.push(await shown());
    }
    if (process.env.BENCH_DEBUG)
      console.log(
        await page.evaluate(() =>
          performance
            .getEntriesByType("resource")
            .map((e) => `${e.name.replace(location.origin, "")} start=${e.startTime.toFixed(0)} end=${e.responseEnd.toFixed(0)}`)
            .join("\n"),
        ),
      );
    return {
      name: `Overview page ${path}, time to interactive (browser, assets cached)`,
      median: median(times),
      p95: Math.max(...times),
      max: Math.max(...times),
    };
  } finally {
    await browser.close();
  }
}

async function main() {
  const sys = await startSystem({
    queue: "local",
    env: { ADMIN_PASSWORD },
    ...(process.env.BENCH_LOG ? { logFile: process.env.BENCH_LOG } : {}),
  });
  try {
    const { project, integration } = await seedViaApi(sys.url);
    seedRows(sys.dataDir, project.id, integration.id);
    const overview = await call(sys.url, "GET", `/api/v4/projects/${project.id}/alert_management/overview`);
    const open = Object.values(overview.open_alerts.triggered).reduce((a, b) => a + b, 0);
    const days30 = overview.alerts_started.daily.reduce((a, b) => a + Object.values(b.counts).reduce((x, y) => x + y, 0), 0);
    console.log(
      `overview: ${open} triggered open, ${days30} started in 30 days, MTTR 30 d ${overview.response_times[1].mean_time_to_resolve_seconds} s`,
    );
    const rows = [
      await measure("GET …/alert_management/overview", () =>
        call(sys.url, "GET", `/api/v4/projects/${project.id}/alert_management/overview`),
      ),
      await measure("GET /alert_management/open_alerts_by_project", () =>
        call(sys.url, "GET", "/api/v4/alert_management/open_alerts_by_project"),
      ),
    ];
    if (!args["no-browser"]) rows.push(await timeToInteractive(sys.url, "/big/alerts"));
    console.log(`\n${ALERTS} alerts over ${DAYS} days, ${RUNS} calls each, node ${process.version}`);
    console.log("| Call | median ms | p95 ms | max ms |\n|---|---:|---:|---:|");
    for (const r of rows) console.log(`| ${r.name} | ${r.median.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.max.toFixed(1)} |`);
  } finally {
    await sys.stop();
  }
}

await main();
