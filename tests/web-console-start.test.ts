import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@tocsin/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumMissing, launchBrowser, openTab, webBuilt } from "./browser.js";
import { built, type Started, startTocsin, stopTocsin } from "./start-process.js";

/**
 * The README's quick start, in real Chromium: `npm start`'s four processes (on free ports) with
 * ADMIN_PASSWORD set, then "open the gateway's address and sign in as root".
 */
const ADMIN_PASSWORD = "quick-start-root-password";

describe.skipIf(chromiumMissing || !webBuilt || !built)("web console after npm start", () => {
  let dataDir: string;
  let started: Started;
  let browser: Browser;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "tocsin-web-start-"));
    const [port, auth, alert, settings] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    [started, browser] = await Promise.all([
      startTocsin({
        PORT: String(port),
        AUTH_SERVICE_ADDR: `127.0.0.1:${auth}`,
        ALERT_SERVICE_ADDR: `127.0.0.1:${alert}`,
        SETTINGS_SERVICE_ADDR: `127.0.0.1:${settings}`,
        DATA_DIR: dataDir,
        ADMIN_PASSWORD,
      }),
      launchBrowser(),
    ]);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    if (started) expect(await stopTocsin(started)).toBe(0);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("opens the address npm start prints and signs in as root", async () => {
    const { page, problems } = await openTab(browser, started.url);
    await page.goto("/");
    await page.waitForURL("**/users/sign_in");
    await page.getByLabel("Username or primary email").fill("root");
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Projects", level: 1 }).waitFor();
    await page.getByText("Signed in as").getByText("root").waitFor();
    expect(problems).toEqual([]);
  }, 60_000);
});
