import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@tocsin/core";
import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { forbiddenAnswers, startLoad, tally } from "./chaos-load.js";
import { CHAOS_ADMIN, type ChaosProject, checkNothingLostOrDoubled, seedChaosProject } from "./chaos-system.js";
import { bootAlert, bootAuth, bootGateway, bootSettings } from "./harness.js";

/**
 * Issue 27: the gateway-facing IngestAlerts stream cut mid-flight (its TCP connection reset while
 * items are half-sent or unanswered), as a crashed replica or a dropped network would cut it. A
 * TCP proxy between the gateway and alert-service resets every connection it carries; the
 * gateway must answer 202 or 503 with Retry-After (never another 5xx), lose nothing it answered
 * 202, and count nothing twice when monitors repeat their Idempotency-Key.
 */

/** A TCP proxy whose connections can be reset at once (RST, as a killed peer leaves them). */
async function startProxy(target: string) {
  const [host, port] = [target.slice(0, target.lastIndexOf(":")), Number(target.slice(target.lastIndexOf(":") + 1))];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host, port });
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("proxy has no port");
  return {
    address: `127.0.0.1:${address.port}`,
    /** Resets every connection (new ones are carried again). */
    cut() {
      const n = sockets.size;
      for (const s of sockets) s.resetAndDestroy();
      sockets.clear();
      return n;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const backends: Array<[string, Record<string, string>]> = [["SQLite queue", {}]];
const redisUrl = inject("redisUrl");
if (redisUrl) backends.push(["BullMQ", { REDIS_URL: redisUrl }]);

describe.each(backends)("the IngestAlerts stream cut mid-flight (%s)", (name, env) => {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-stream-cut-"));
  const logger = silentLogger();
  const stops: Array<() => Promise<void>> = [];
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let url: string;
  let project: ChaosProject;

  beforeAll(async () => {
    const prefix = `cut${Date.now()}${name === "BullMQ" ? "b" : "l"}`;
    const base = { LOG_LEVEL: "silent", ADMIN_TOKEN: CHAOS_ADMIN, SECRET_KEY: "cut-secret-0123456789abcdef0123", ...env };
    const auth = await bootAuth({ ...base, AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dir, "auth") }, { logger });
    const settings = await bootSettings(
      { ...base, AUTH_SERVICE_ADDR: auth.address, SETTINGS_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dir, "settings") },
      { logger },
    );
    const alert = await bootAlert(
      {
        ...base,
        AUTH_SERVICE_ADDR: auth.address,
        SETTINGS_SERVICE_ADDR: settings.address,
        ALERT_SERVICE_ADDR: "127.0.0.1:0",
        DATA_DIR: join(dir, "alert"),
        QUEUE_PREFIX: prefix,
      },
      { logger },
    );
    proxy = await startProxy(alert.address);
    const gateway = await bootGateway(
      {
        ...base,
        PORT: "0",
        AUTH_SERVICE_ADDR: auth.address,
        SETTINGS_SERVICE_ADDR: settings.address,
        ALERT_SERVICE_ADDR: proxy.address,
        WEBHOOK_RATE_LIMIT_PER_MINUTE: "0",
      },
      { logger },
    );
    stops.push(
      () => gateway.stop(),
      () => proxy.close(),
      () => alert.stop(),
      () => settings.stop(),
      () => auth.stop(),
    );
    url = gateway.url;
    project = await seedChaosProject(url, `cut-${name === "BullMQ" ? "b" : "l"}`);
  }, 60_000);

  afterAll(async () => {
    for (const stop of stops) await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 202 or 503 with Retry-After, loses nothing and counts nothing twice", async () => {
    const run = `cut-${name === "BullMQ" ? "b" : "l"}`;
    const alerts = 300;
    const load = startLoad({ url: () => url, path: project.path, key: project.key, alerts, concurrency: 24, run, retryMs: 20 });
    let cuts = 0;
    // Cut the stream three times while the monitors post.
    for (const after of [60, 140, 220]) {
      await until(() => load.accepted.size >= after, 300_000, 2);
      cuts += proxy.cut() > 0 ? 1 : 0;
    }
    await load.done;
    const result = await checkNothingLostOrDoubled(url, project, run, load.accepted);
    console.log(`[chaos] stream cut ${name}: ${JSON.stringify(tally(load.answers))}, ${cuts} cuts`);
    expect(cuts).toBe(3);
    expect(forbiddenAnswers(load.answers).slice(0, 5), JSON.stringify(tally(load.answers))).toEqual([]);
    expect(load.accepted.size).toBe(alerts);
    expect(result.lost).toEqual([]);
    expect(result.doubled).toEqual([]);
    expect(result.duplicates).toBe(0);
  }, 120_000);
});
