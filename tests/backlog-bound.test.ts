import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "@tocsin/core";
import { openSqlite } from "@tocsin/store";
import { captureLogger, until } from "@tocsin/testing";
import type Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type AlertsRuntime, createAlertsRuntime } from "../alert-service/src/alerts-runtime.js";
import { loadConfig } from "../alert-service/src/config.js";
import { ctx, FakeWorld } from "./alert-processing.fixtures.js";
import { dropQueueKeys, queueVariants } from "./queue-variants.js";

/**
 * The backlog bound (issue 25, INGEST_BACKLOG_LIMIT): Alertmanager batches arrive faster than
 * the processing thread stores them; requests are held before their alerts are queued, so the
 * backlog stays near the limit instead of growing with the storm, and every alert of every
 * request is still accepted (never refused) and processed.
 */
const queues = queueVariants("backlog bound", inject("redisUrl"));

const LIMIT = 300;
const BATCH = 100;
const CONCURRENCY = 4;
const BATCHES = 60;

describe.each(queues)("the backlog bound (%s)", (_name, redis) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tocsin-backlog-bound-"));
  const config = loadConfig({ DATA_DIR: dataDir });
  const world = new FakeWorld();
  const project = world.project();
  const integration = world.integration(project, { type: "prometheus" });
  let sqlite: Database.Database;
  let rt: AlertsRuntime;

  beforeAll(async () => {
    sqlite = openSqlite(join(dataDir, "alert.db"));
    rt = await createAlertsRuntime({
      sqlite,
      dataDir,
      projects: world.projects,
      integrations: world.directory,
      clock: systemClock,
      logger: captureLogger("warn").logger,
      processingThread: { config, onMail: () => undefined },
      backlog: { limit: LIMIT, maxWaitMs: 3_000 },
      ...(redis ? { redisUrl: redis.url, queuePrefix: redis.prefix } : {}),
    });
    await rt.start();
  });
  afterAll(async () => {
    await rt?.stop();
    sqlite?.close();
    rmSync(dataDir, { recursive: true, force: true });
    await dropQueueKeys(redis);
  });

  /** One Alertmanager webhook of BATCH new alerts. */
  const batch = (n: number) =>
    JSON.stringify({
      version: "4",
      groupKey: `{}:{alertname="Backlog${n}"}`,
      receiver: "tocsin",
      status: "firing",
      groupLabels: {},
      commonLabels: { instance: "web-1:9100" },
      commonAnnotations: {},
      externalURL: "http://alertmanager.local",
      alerts: Array.from({ length: BATCH }, (_, i) => ({
        status: "firing",
        labels: { alertname: `Backlog${n}-${i}`, instance: "web-1:9100" },
        annotations: { summary: "CPU above 90% on the web tier" },
        startsAt: "2026-11-28T10:00:00Z",
      })),
    });

  it("holds requests while the backlog is at the limit; every alert is accepted and processed", async () => {
    const sent = { n: 0 };
    let maxPending = 0;
    let posting = true;
    const sampler = (async () => {
      while (posting) {
        maxPending = Math.max(maxPending, (await rt.useCases.stats()).pending);
        await new Promise((r) => setImmediate(r));
      }
    })();
    const poster = async () => {
      while (sent.n < BATCHES) {
        const n = sent.n++;
        const r = await rt.useCases.ingest(
          { projectId: project, integrationId: integration.id, payloadJson: batch(n), tier: "free" },
          ctx("backlog"),
        );
        expect(r.fingerprints).toHaveLength(BATCH);
      }
    };
    try {
      await Promise.all(Array.from({ length: CONCURRENCY }, poster));
    } finally {
      posting = false;
      await sampler;
    }

    const stats = await until(async () => {
      const s = await rt.useCases.stats();
      return s.pending === 0 && s.processed >= BATCHES * BATCH && s;
    }, 120_000);
    expect(stats.failed).toBe(0);
    // The bound engaged, and no request waited out its longest hold.
    expect(stats.held).toBeGreaterThan(0);
    expect(stats.heldMs).toBeGreaterThan(0);
    expect(stats.heldOverdue).toBe(0);
    // At most the limit, plus what the requests let in under it were queueing at the time.
    expect(maxPending).toBeLessThanOrEqual(LIMIT + CONCURRENCY * BATCH);
    const { total } = await rt.useCases.listAlerts({ projectIdOrPath: String(project), perPage: 1 }, ctx("list"));
    expect(total).toBe(BATCHES * BATCH);
  });
});
