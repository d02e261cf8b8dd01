import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@tocsin/core";
import { createClient } from "@tocsin/grpc";
import { alertV1 } from "@tocsin/proto";
import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createIngestBatcher } from "../gateway/src/clients/ingest-batcher.js";
import { bootAlert, bootAuth } from "./harness.js";
import { ADMIN, type Alert, type Boot, bootStreamAuth, ctx, errorOf, request, SECRET, seed } from "./ingest-stream.fixtures.js";

/**
 * The IngestAlerts stream (issue 9) and the gateway's batcher over it when alert-service stops:
 * a graceful stop mid-stream, and failover between two replicas. Per-item results, per-item
 * deadlines and a replica killed mid-stream: tests/ingest-stream-process.test.ts; an
 * alert-service without the stream: tests/ingest-stream-unary-fallback.test.ts.
 */

const mongoUrl = inject("mongoUrl");

describe("IngestAlerts when alert-service stops, with two replicas", () => {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-ingest-drain-"));
  let auth: Boot;
  afterAll(async () => {
    await auth?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeAll(async () => {
    auth = await bootStreamAuth(dir);
  });
  const bootReplica = async (name: string, env: Record<string, string> = {}) =>
    bootAlert(
      {
        ALERT_SERVICE_ADDR: "127.0.0.1:0",
        AUTH_SERVICE_ADDR: auth.address,
        DATA_DIR: join(dir, name),
        SECRET_KEY: SECRET,
        LOG_LEVEL: "silent",
        ...env,
      },
      { logger: silentLogger() },
    );

  it("a graceful stop answers the items it holds, then ends the stream; later items fail UNAVAILABLE", async () => {
    const replica = await bootReplica("drain");
    const ids = await seed(auth.address, replica.address);
    const alert: Alert = createClient(alertV1.AlertServiceService, { target: "alert", address: replica.address });
    const batcher = createIngestBatcher(alert, { timeoutMs: 10_000, streams: 1 });
    try {
      const body = (title: string, waitMs = 0) => request(ids.projectId, ids.active, JSON.stringify({ title }), waitMs);
      await batcher.submit(body("open"), ctx("open"));
      // Waiting for processing keeps these in flight on the server while it stops.
      const held = [1, 2, 3].map((i) => batcher.submit(body(`held-${i}`, 5000), ctx(`held-${i}`), { timeoutMs: 10_000 }));
      await new Promise((r) => setImmediate(r));
      // A unary call on the same connection, answered after the stream's message was read.
      await alert.getIngestStats({}, ctx("after-send"));
      // Were the stream not drained, the bounded shutdown would cancel it and fail these.
      await replica.stop();
      for (const res of await Promise.all(held)) expect(res).toMatchObject({ processed: true });
      expect((await errorOf(batcher.submit(body("late"), ctx("late")))).code).toBe("UNAVAILABLE");
    } finally {
      batcher.close();
      alert.close();
      await replica.stop();
    }
  });

  it.skipIf(!mongoUrl)("fails over to the healthy replica when one stops (comma-separated address)", async () => {
    // A fresh auth-service (integration keys) for the replicas' shared, fresh database.
    await auth.stop();
    auth = await bootAuth(
      {
        AUTH_SERVICE_ADDR: "127.0.0.1:0",
        DATA_DIR: join(dir, "auth2"),
        ADMIN_TOKEN: ADMIN,
        SECRET_KEY: SECRET,
        LOG_LEVEL: "silent",
      },
      { logger: silentLogger() },
    );
    const db = `${mongoUrl.replace(/\/[^/]*$/, "")}/ingest_stream_${Date.now()}`;
    const a = await bootReplica("a", { MONGO_URL: db });
    const b = await bootReplica("b", { MONGO_URL: db });
    const address = `${a.address},${b.address}`;
    const ids = await seed(auth.address, a.address);
    const alert: Alert = createClient(alertV1.AlertServiceService, { target: "alert", address });
    const batcher = createIngestBatcher(alert, { timeoutMs: 5000, streams: 2 });
    try {
      const body = (title: string) => request(ids.projectId, ids.active, JSON.stringify({ title }));
      await alert.waitForReady(10_000);
      for (let i = 0; i < 10; i++) await batcher.submit(body(`both-${i}`), ctx(`both-${i}`));
      await a.stop();
      // In-flight items may fail while the stream on the stopped replica ends; then every call succeeds.
      await until(() =>
        batcher.submit(body("probe"), ctx("probe")).then(
          () => true,
          () => undefined,
        ),
      );
      for (let i = 0; i < 20; i++) {
        const res = await batcher.submit(body(`after-${i}`), ctx(`after-${i}`));
        expect(res.requestId).toBe(`after-${i}`);
      }
    } finally {
      batcher.close();
      alert.close();
      await a.stop();
      await b.stop();
    }
  });
});
