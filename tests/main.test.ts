import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Every process starts through `runMain` (libs/core): a bad configuration is one fatal log line
 * naming every bad variable (never a value), and exit code 1.
 */
const root = fileURLToPath(new URL("..", import.meta.url));
const SECRET = "s3cr3t-password-in-a-bad-url";
const bad = { LOG_LEVEL: "loud", AUTH_SERVICE_ADDR: "no-port", MONGO_URL: `http://admin:${SECRET}@db` };

function run(dir: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--conditions=tocsin-src", "--import", "tsx", `${dir}/src/main.ts`], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    child.once("close", (code) => resolve({ code, out }));
  });
}

describe.each(["auth-service", "settings-service", "alert-service", "gateway"])("%s/src/main.ts", (dir) => {
  it("ends a bad configuration with one fatal line naming every bad variable, and exit code 1", async () => {
    const env = dir === "gateway" ? { ...bad, MONGO_URL: "", PORT: "eighty" } : bad;
    const { code, out } = await run(dir, env);
    expect(code).toBe(1);
    const lines = out.trim().split("\n");
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] as string) as { level: number; msg: string };
    expect(line.level).toBe(60);
    const names = Object.entries(env)
      .filter(([, v]) => v !== "")
      .map(([k]) => k);
    for (const name of names) expect(line.msg).toContain(name);
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain("no-port");
  });
});
