import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The real `npm start` path: scripts/start.mjs runs the four built processes (dist/main.js) with
 * embedded defaults. Needs `npm run build` first (`npm test` builds).
 */
const root = fileURLToPath(new URL("..", import.meta.url));
const services = ["auth-service", "settings-service", "alert-service", "gateway"];
export const built = services.every((s) => existsSync(join(root, s, "dist", "main.js")));
if (!built) console.warn("[npm start suites] SKIPPED: no dist/main.js for every service; run `npm run build` (npm test does)");

export interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  exit: Promise<number | null>;
}

export async function startTocsin(env: Record<string, string>): Promise<Started> {
  const base = { ...process.env };
  for (const name of ["MONGO_URL", "MONGO_DB", "REDIS_URL", "EXTERNAL_URL", "SECRET_KEY", "ADMIN_TOKEN", "ADMIN_PASSWORD"])
    delete base[name];
  const child = spawn(process.execPath, [join(root, "scripts", "start.mjs")], {
    cwd: root,
    env: { ...base, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const running = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "Tocsin is running" line after 45 s:\n${out}`)), 45_000);
    const onData = () => {
      const m = /Tocsin is running: gateway on (http:\/\/localhost:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    };
    child.stdout?.on("data", onData);
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`start.mjs exited (${code}) before it was running:\n${out}`));
    });
  });
  try {
    const url = await running;
    return { child, url, output: () => out, exit };
  } catch (err) {
    child.kill("SIGTERM"); // start.mjs stops whatever it had started
    await exit;
    throw err;
  }
}

export async function stopTocsin(started: Started): Promise<number | null> {
  started.child.kill("SIGTERM");
  return started.exit;
}
