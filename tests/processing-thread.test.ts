import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { threadId } from "node:worker_threads";
import { systemClock } from "@tocsin/core";
import { openSqlite } from "@tocsin/store";
import { captureLogger, FakeClock, until } from "@tocsin/testing";
import type Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type AlertsRuntime, createAlertsRuntime, runsInThread } from "../alert-service/src/alerts-runtime.js";
import { loadConfig } from "../alert-service/src/config.js";
import { ctx, FakeWorld } from "./alert-processing.fixtures.js";
import { dropQueueKeys, queueVariants } from "./queue-variants.js";

/**
 * The embedded default (ALERT_PROCESSING_THREAD=true): the alert lanes run in a worker thread
 * with their own SQLite connections; the main thread accepts, waits for outcomes (`waitFor`) and
 * counts them. A thread that dies is logged and restarted, and what was queued meanwhile runs.
 */
const queues = queueVariants("processing thread", inject("redisUrl"));

describe.each(queues)("alert processing in a worker thread (SQLite, %s)", (_name, redis) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tocsin-processing-thread-"));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "debug" });
  const world = new FakeWorld();
  const project = world.project();
  const integration = world.integration(project);
  const log = captureLogger("debug");
  let sqlite: Database.Database;
  let rt: AlertsRuntime;

  const open = async () => {
    const runtime = await createAlertsRuntime({
      sqlite,
      dataDir,
      projects: world.projects,
      integrations: world.directory,
      clock: systemClock,
      logger: log.logger,
      processingThread: { config, onMail: () => undefined },
      ...(redis ? { redisUrl: redis.url, queuePrefix: redis.prefix } : {}),
    });
    await runtime.start();
    return runtime;
  };
  const post = (fingerprint: string, waitMs: number) =>
    rt.useCases.ingest(
      {
        projectId: project,
        integrationId: integration.id,
        payloadJson: JSON.stringify({ title: `disk full ${fingerprint}`, fingerprint }),
        waitMs,
      },
      ctx("thread"),
    );

  beforeAll(async () => {
    sqlite = openSqlite(join(dataDir, "alert.db"));
    rt = await open();
  });
  afterAll(async () => {
    await rt?.stop();
    sqlite?.close();
    rmSync(dataDir, { recursive: true, force: true });
    await dropQueueKeys(redis);
  });

  it("processes in another thread, and waitFor and the counts see its jobs end", async () => {
    const thread = rt.thread()?.threadId();
    expect(thread).toBeDefined();
    expect(thread).not.toBe(threadId);
    const first = await post("a", 10_000);
    expect(first.processed).toBe(true);
    expect(first.outcomes).toMatchObject([{ action: "created", events: 1 }]);
    const again = await post("a", 10_000);
    expect(again.outcomes).toMatchObject([{ action: "incremented", events: 2, iid: first.outcomes[0]?.iid }]);
    // The counts hear of ends through the thread's `ended` message, which may come just after
    // waitFor read the committed job: a condition, not the first answer.
    const stats = await until(async () => {
      const counts = await rt.useCases.stats();
      return counts.processed >= 2 && counts;
    });
    expect(stats).toMatchObject({ pending: 0, processed: 2, failed: 0 });
    // The thread's log lines reach the main thread's logger, marked with the thread.
    await until(() => log.lines().some((l) => l.msg === "alert processed" && l.thread === "processing"));
    // The checkpoint thread watches the local lanes' file only where there is one: with BullMQ
    // nothing creates `alert-queue.db`.
    expect(existsSync(join(dataDir, "alert-queue.db"))).toBe(!redis);
  });

  it("a thread that dies is logged and restarted, and what was queued meanwhile runs", async () => {
    const before = rt.thread()?.threadId();
    await rt.thread()?.kill();
    // Queued while no thread runs: durable, and run by the next thread.
    const queued = await post("b", 0);
    expect(queued.processed).toBe(false);
    await until(() => log.lines().some((l) => l.msg === "processing thread exited; restarting it" && l.level === 50));
    await until(() => rt.healthy());
    expect(rt.thread()?.threadId()).not.toBe(before);
    await until(async () => (await rt.useCases.stats()).pending === 0);
    const after = await post("b", 10_000);
    expect(after.outcomes).toMatchObject([{ action: "incremented", events: 2 }]);
  });

  it("stop lets the thread finish; jobs left pending run after a restart on the same files", async () => {
    const posted = [];
    for (let i = 0; i < 50; i++) posted.push(await post("c", 0));
    await rt.stop();
    expect(rt.thread()?.threadId()).toBeUndefined();
    rt = await open();
    const last = await post("c", 10_000);
    expect(last.outcomes).toMatchObject([{ events: posted.length + 1 }]);
    await until(async () => (await rt.useCases.stats()).pending === 0);
  });
});

describe("where processing runs: configuration alone", () => {
  const thread = (on: boolean) => ({ config: { processingThread: on } });

  it("the thread with ALERT_PROCESSING_THREAD on and SQLite alerts; else this thread", () => {
    expect(runsInThread({ processingThread: thread(true), sqlite: {} })).toBe(true);
    expect(runsInThread({ processingThread: thread(false), sqlite: {} })).toBe(false);
    expect(runsInThread({ sqlite: {} })).toBe(false);
    expect(runsInThread({ processingThread: thread(true) })).toBe(false); // MongoDB
    expect(runsInThread({ processingThread: thread(true), sqlite: {}, redisUrl: "redis://x" })).toBe(true); // BullMQ queues

    expect(runsInThread({ processingThread: thread(true), sqlite: {}, queueFile: ":memory:" })).toBe(false);
  });

  it("a test's clock is not a reason to move processing: with the thread configured it is refused", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "tocsin-processing-place-"));
    const sqlite = openSqlite(join(dataDir, "alert.db"));
    const world = new FakeWorld();
    const opts = (processingThread: boolean) => ({
      sqlite,
      dataDir,
      projects: world.projects,
      integrations: world.directory,
      clock: new FakeClock(),
      logger: captureLogger().logger,
      processingThread: {
        config: loadConfig({ DATA_DIR: dataDir, ALERT_PROCESSING_THREAD: String(processingThread) }),
        onMail() {},
      },
    });
    try {
      await expect(createAlertsRuntime(opts(true))).rejects.toThrow(/ALERT_PROCESSING_THREAD=false/);
      const here = await createAlertsRuntime(opts(false));
      await here.start();
      expect(here.processing).toBeDefined();
      expect(here.thread()).toBeUndefined();
      await here.stop();
    } finally {
      sqlite.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
