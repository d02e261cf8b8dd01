// A private `redis-server` for the queue benches: every write on disk before it answers
// (`--appendonly yes --appendfsync always`, as bench/storm.mjs runs BullMQ's), in a temporary
// directory, on a free loopback port, so the tests' shared Redis is never touched.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuSeconds, freePort } from "../alert-system.mjs";

/** Starts it and resolves once it answers PING; `tag` names its temporary directory. */
export async function startDurableRedis(tag) {
  const dir = mkdtempSync(join(tmpdir(), `tocsin-${tag}-redis-`));
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir];
  const proc = spawn("redis-server", [...args, "--appendonly", "yes", "--appendfsync", "always"], { stdio: "ignore" });
  const { Redis } = await import("ioredis");
  // Until it answers: a fresh client per try (a failed one keeps reconnecting on its own).
  for (let i = 0; ; i++) {
    const probe = new Redis(port, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch (err) {
      probe.disconnect();
      if (i === 50) {
        proc.kill();
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: proc.pid,
    /** Redis's CPU so far (user + system), s. */
    cpuSeconds: () => cpuSeconds(proc.pid),
    stop() {
      proc.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
