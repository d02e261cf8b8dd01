import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

/**
 * Real Chromium for the console's journeys: Debian's `chromium` package (browser downloads are
 * not reachable here), driven by playwright-core through `executablePath`. `.ci/run` installs it;
 * under CI a missing browser fails the suites instead of skipping them.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const chromiumMissing = !existsSync(CHROMIUM);
if (chromiumMissing) {
  const say = `[browser] ${CHROMIUM} is missing (apt-get install chromium)`;
  if (process.env.CI) throw new Error(`${say}: CI runs the browser suites, so this fails`);
  console.warn(`${say}: the browser suites are SKIPPED`);
}

const root = fileURLToPath(new URL("..", import.meta.url));
const SCREENSHOTS = join(root, ".tmp", "screenshots");
export const webBuilt = existsSync(join(root, "web", "dist", "index.html"));
if (!webBuilt) {
  const say = "[browser] web/dist/index.html is missing (npm run build builds the console)";
  if (process.env.CI) throw new Error(say);
  console.warn(`${say}: the browser suites are SKIPPED`);
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // CI runs as root, where Chromium's sandbox cannot start.
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
}

export interface Tab {
  context: BrowserContext;
  page: Page;
  /** Console messages that report a Content-Security-Policy violation or an uncaught error. */
  problems: string[];
}

/** A fresh browser profile (its own cookies) with one page; the clipboard may be read. */
export async function openTab(browser: Browser, baseURL: string): Promise<Tab> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  const page = await context.newPage();
  // Generous: the suites share two cores with every other suite of `npm test`.
  page.setDefaultTimeout(30_000);
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy|Uncaught/i.test(m.text())) problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  return { context, page, problems };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core on the page as it is now (WCAG 2.1 A/AA and best practices). Returns the serious and
 * critical violations, each as one readable line. Injected through the DevTools protocol, which
 * the page's Content-Security-Policy does not apply to.
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  )) as AxeViolation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

/** A full-page screenshot into .tmp/screenshots/<name>.png (a test artifact, not committed). */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage });
  return path;
}

/** Reads the clipboard of the page (granted in openTab). */
export async function clipboardText(page: Page): Promise<string> {
  return (await page.evaluate("navigator.clipboard.readText()")) as string;
}
