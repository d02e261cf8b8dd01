import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, systemClock } from "@tocsin/core";
import { openSqlite } from "@tocsin/store";
import { freePort, until } from "@tocsin/testing";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createChannelsRuntime } from "./channels-runtime.js";
import type { Alert } from "./domain/alerts/model.js";

const redisUrl = inject("redisUrl");
if (!redisUrl) console.warn("[channels] Redis unavailable: the BullMQ restart case is SKIPPED");

const project = { id: 1, fullPath: "ops/web", tier: "free" as const, accessLevel: 50 };
const alert = { id: 7, projectId: 1, iid: 1, title: "Disk full", severity: "high", status: "triggered", events: 1 } as Alert;
const config = (dataDir: string) => ({
  dataDir,
  externalUrl: "https://tocsin.example.com",
  channels: {
    allowLocalNetwork: true,
    retry: { initialMs: 50, maxMs: 100, forMs: 3_600_000 },
    minIntervalMs: 20, // through the send slots (in Redis with BullMQ)
    storm: { windowMs: 600_000, limit: 30 },
    timeoutMs: 1000,
  },
});

/**
 * A delivery survives a restart of alert-service while its receiver is down: queued durably, it
 * is retried by the next process and arrives once the receiver is back.
 */
describe.each([
  { queue: "local", redis: undefined as string | undefined, available: true },
  { queue: "bullmq", redis: redisUrl as string | undefined, available: !!redisUrl },
])("channel deliveries across a restart ($queue queue)", ({ redis, available }) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c();
    cleanups.length = 0;
  });

  it.skipIf(!available)("retries while the receiver is down, and delivers once it is back after a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "tocsin-channels-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const prefix = `tocsin-test-channels-${randomBytes(4).toString("hex")}`;
    const port = await freePort();
    const boot = async () => {
      const sqlite = openSqlite(join(dataDir, "alert.db"));
      const rt = await createChannelsRuntime({
        config: config(dataDir),
        sqlite,
        ...(redis ? { redisUrl: redis, queuePrefix: prefix } : {}),
        projects: { require: async () => project, byId: async () => project },
        clock: systemClock,
        logger: silentLogger(),
      });
      await rt.start({ alerts: { getById: async () => alert }, incidents: { getByAlert: async () => undefined } });
      return {
        rt,
        stop: async () => {
          await rt.stop();
          sqlite.close();
        },
      };
    };
    const ctx = { requestId: "r1" };
    const first = await boot();
    const { hook } = await first.rt.destinations.createHook("1", { url: `http://127.0.0.1:${port}/hook` }, ctx);
    await first.rt.reactor.jobs.enqueue([
      {
        requestId: "r1",
        projectId: 1,
        destinationId: hook.id,
        eventType: "alert.triggered",
        eventId: "7:alert.triggered:op-1",
        alertId: 7,
        key: `deliver:7:alert.triggered:op-1:${hook.id}`,
      },
    ]);
    const log = (rt: typeof first.rt) => rt.deliveries.list("1", { hookId: hook.id }, ctx);
    await until(async () => ((await log(first.rt))[0]?.attempts ?? 0) >= 2);
    expect((await log(first.rt))[0]).toMatchObject({ status: "retrying", responseStatus: null });
    await first.stop();

    const received: string[] = [];
    const server: Server = createServer((req, res) => {
      received.push(String(req.headers["idempotency-key"]));
      req.resume();
      res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const second = await boot();
    cleanups.push(() => second.stop());
    await until(async () => (await log(second.rt))[0]?.status === "delivered");
    expect(received).toEqual(["7:alert.triggered:op-1"]);
  });
});
