import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

/**
 * Alertmanager's own CLI, unchanged, manages a project's silences (PRODUCT.md section 13): the
 * real amtool (installed by scripts/install-amtool.sh) with `--alertmanager.url` pointing at the
 * project's Alertmanager base and the personal access token in `--http.config.file`. What amtool
 * did is checked through Tocsin's REST API.
 */
const root = fileURLToPath(new URL("..", import.meta.url));
const amtool = join(root, ".tmp", "bin", "amtool");
const available = existsSync(amtool);
if (!available) {
  const why = "amtool is missing: run scripts/install-amtool.sh";
  if (process.env.CI) throw new Error(why);
  console.warn(`[silences-amtool] SKIPPED: ${why}`);
}

const run = promisify(execFile);

describe.skipIf(!available)("amtool against Tocsin's Alertmanager API", () => {
  let sys: RunningSystem;
  let maintainer: SeededUser;
  let developer: SeededUser;
  let project: SeededProject;
  let home: string;

  /** Runs amtool as a user (async: the system answering it runs in this process). */
  const amtoolAs = async (user: SeededUser, ...args: string[]) => {
    const config = join(home, `http-${user.user.username}.yml`);
    writeFileSync(config, `authorization:\n  type: Bearer\n  credentials: ${user.token}\n`);
    const base = `${sys.url}/api/v4/projects/${project.id}/alertmanager`;
    const { stdout } = await run(amtool, [`--alertmanager.url=${base}`, `--http.config.file=${config}`, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: home },
      timeout: 30_000,
    });
    return stdout.trim();
  };
  const rest = (path = "") => `/api/v4/projects/${project.id}/alert_management/silences${path}`;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "tocsin-amtool-"));
    sys = await startSystem();
    maintainer = await seedUser(sys.url, sys.adminToken, { username: "am-maintainer" });
    developer = await seedUser(sys.url, sys.adminToken, { username: "am-developer" });
    const group = await seedGroup(sys.url, maintainer.token, { path: "platform" });
    project = await seedProject(sys.url, maintainer.token, { path: "postgres", namespaceId: group.id });
    await addMember(sys.url, maintainer.token, "projects", project.id, developer.user.id, 30);
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("adds, queries, updates and expires a maintenance-window silence", async () => {
    const id = await amtoolAs(
      maintainer,
      "silence",
      "add",
      "alertname=PostgresDown",
      'instance=~"db-[0-9]+:9187"',
      "--comment=planned failover",
      "--author=ops-oncall",
      "--duration=2h",
    );
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const client = api(sys.url, maintainer.token);
    const stored = await client.get(rest(`/${id}`));
    expect(stored.body).toMatchObject({
      id,
      state: "active",
      created_by: "ops-oncall",
      comment: "planned failover",
      matchers: [
        { name: "alertname", value: "PostgresDown", is_regex: false, is_equal: true },
        { name: "instance", value: "db-[0-9]+:9187", is_regex: true, is_equal: true },
      ],
    });
    const hours = (Date.parse(stored.body.ends_at) - Date.parse(stored.body.starts_at)) / 3600_000;
    expect(hours).toBeCloseTo(2, 2);

    // A Developer may query; amtool's quiet output is one id per line.
    expect((await amtoolAs(developer, "silence", "query", "-q")).split("\n")).toEqual([id]);
    expect(await amtoolAs(developer, "silence", "query", "-q", "alertname=PostgresDown")).toBe(id);
    expect(await amtoolAs(developer, "silence", "query", "-q", "alertname=Other")).toBe("");
    const json = JSON.parse(await amtoolAs(developer, "silence", "query", "-o", "json"));
    expect(json).toMatchObject([{ id, status: { state: "active" }, createdBy: "ops-oncall" }]);
    // ...but not write.
    await expect(amtoolAs(developer, "silence", "expire", id)).rejects.toThrow();
    expect((await client.get(rest(`/${id}`))).body.state).toBe("active");

    // Longer window, same matchers and start: Alertmanager updates in place (same id).
    // (amtool 0.28.1's `update -q` prints a pointer, not the id: its table is read instead.)
    const updated = await amtoolAs(maintainer, "silence", "update", id, "--duration=3h", "--comment=failover, then vacuum");
    expect(updated.split("\n")[1]?.split(/\s+/)[0]).toBe(id);
    const longer = (await client.get(rest(`/${id}`))).body;
    expect(longer.comment).toBe("failover, then vacuum");
    expect((Date.parse(longer.ends_at) - Date.parse(longer.starts_at)) / 3600_000).toBeCloseTo(3, 2);

    await amtoolAs(maintainer, "silence", "expire", id);
    expect((await client.get(rest(`/${id}`))).body.state).toBe("expired");
    expect(await amtoolAs(developer, "silence", "query", "-q")).toBe("");
    expect(await amtoolAs(developer, "silence", "query", "-q", "--expired")).toBe(id);
  });

  it("shows Tocsin's refusal (over section 13's 50 matchers) as Alertmanager's would be shown", async () => {
    const matchers = Array.from({ length: 51 }, (_, i) => `label${i}=value`);
    const failure = await amtoolAs(maintainer, "silence", "add", ...matchers, "--comment=x").catch(
      (err: { stderr?: string }) => err.stderr ?? "",
    );
    expect(failure).toMatch(/at most 50 matchers/);
    expect((await api(sys.url, maintainer.token).get(rest("?state=active"))).body).toEqual([]);
  });
});
