import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppError } from "@tocsin/core";
import { createClient } from "@tocsin/grpc";
import { alertV1 } from "@tocsin/proto";
import { freePort, until, waitForPort } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIngestBatcher } from "../gateway/src/clients/ingest-batcher.js";
import { type Boot, bootStreamAuth, ctx, errorOf, request, SECRET, seed } from "./ingest-stream.fixtures.js";

/**
 * The IngestAlerts stream (issue 9) and the gateway's batcher over it, against an alert-service
 * child process (so that it can be frozen with SIGSTOP or killed): per-item results in a batch,
 * per-item deadlines, a replica killed mid-stream. A replica stopped mid-stream and failover
 * between two replicas: tests/ingest-stream-replicas.test.ts; an alert-service without the
 * stream: tests/ingest-stream-unary-fallback.test.ts.
 */

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

describe("IngestAlerts against an alert-service process", () => {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-ingest-stream-"));
  let auth: Boot;
  let child: ChildProcess | undefined;
  let alertPort: number;
  let ids: Awaited<ReturnType<typeof seed>>;
  const start = async () => {
    child = spawn(process.execPath, ["--conditions=tocsin-src", "--import", "tsx", "alert-service/src/main.ts"], {
      cwd: repoRoot,
      env: {
        ...process.env,
        ALERT_SERVICE_ADDR: `127.0.0.1:${alertPort}`,
        AUTH_SERVICE_ADDR: auth.address,
        DATA_DIR: join(dir, "alert"),
        SECRET_KEY: SECRET,
        LOG_LEVEL: "error",
        MONGO_URL: "",
        REDIS_URL: "",
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    await waitForPort(alertPort, "127.0.0.1", 30_000);
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    c.kill("SIGKILL");
    await exited;
  };
  const open = (address = `127.0.0.1:${alertPort}`) => {
    const alert = createClient(alertV1.AlertServiceService, { target: "alert", address });
    return { alert, batcher: createIngestBatcher(alert, { timeoutMs: 5000, streams: 1 }) };
  };

  beforeAll(async () => {
    auth = await bootStreamAuth(dir);
    alertPort = await freePort();
    await start();
    ids = await seed(auth.address, `127.0.0.1:${alertPort}`);
  }, 90_000);
  afterAll(async () => {
    child?.kill("SIGCONT");
    await kill();
    await auth.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers every item of a mixed batch on its own, tagged with its seq, and keeps the stream open", async () => {
    const { alert, batcher } = open();
    try {
      const call = alert.duplex("ingestAlerts", ctx("mixed-stream"));
      const results = new Map<number, alertV1.IngestAlertsResult>();
      call.on("data", (m: alertV1.IngestAlertsResponse) => {
        for (const r of m.results) results.set(r.seq, r);
      });
      const item = (seq: number, integrationId: number, payloadJson: string, waitMs = 0) => ({
        seq,
        requestId: `req-${seq}`,
        userId: 0,
        timeoutMs: 5000,
        alert: request(
          integrationId === ids.inactive ? ids.inactiveProjectId : ids.projectId,
          integrationId,
          payloadJson,
          waitMs,
        ),
      });
      call.write({
        items: [
          item(1, ids.active, JSON.stringify({ title: "one", fingerprint: "mixed-1" })),
          item(2, ids.active, "{not json"),
          item(3, ids.inactive, JSON.stringify({ title: "off" })),
          item(4, 999_999, JSON.stringify({ title: "nowhere" })),
          item(5, ids.active, JSON.stringify({ title: "five", fingerprint: "mixed-5" }), 5000),
        ],
      });
      await until(() => results.size === 5);
      expect(results.get(1)?.accepted).toMatchObject({ requestId: "req-1", processed: false });
      expect(results.get(1)?.accepted?.fingerprints[0]).toMatch(/^[0-9a-f]{40}$/);
      expect(results.get(2)?.error).toMatchObject({ code: 3, reason: "PAYLOAD_INVALID" });
      expect(results.get(3)?.error).toMatchObject({ code: 7, reason: "INTEGRATION_INACTIVE" });
      expect(results.get(4)?.error).toMatchObject({ code: 5, reason: "INTEGRATION_NOT_FOUND" });
      expect(results.get(5)?.accepted).toMatchObject({ requestId: "req-5", processed: true });
      expect(results.get(5)?.accepted?.outcomes).toMatchObject([{ title: "five", events: 1, action: "created" }]);
      // Failed items did not end the stream: a later message is answered on it.
      call.write({ items: [item(6, ids.active, JSON.stringify({ title: "six" }))] });
      await until(() => results.has(6));
      expect(results.get(6)?.accepted?.requestId).toBe("req-6");
      call.end();

      // Through the batcher: the calls of one turn share a message; each settles from its own result.
      const [ok, bad] = await Promise.allSettled([
        batcher.submit(request(ids.projectId, ids.active, JSON.stringify({ title: "b1" })), ctx("batch-ok"), {
          timeoutMs: 5000,
        }),
        batcher.submit(request(ids.projectId, ids.active, "[]"), ctx("batch-bad")),
      ]);
      expect(ok).toMatchObject({ status: "fulfilled", value: { requestId: "batch-ok", replayed: false } });
      expect(bad.status === "rejected" && bad.reason).toMatchObject({ code: "INVALID_ARGUMENT", reason: "PAYLOAD_INVALID" });
    } finally {
      batcher.close();
      alert.close();
    }
  });

  it("fails an item whose deadline passes as the unary deadline would, and goes on once the replica answers", async () => {
    const { alert, batcher } = open();
    const body = (title: string) => request(ids.projectId, ids.active, JSON.stringify({ title }));
    try {
      await batcher.submit(body("warm"), ctx("warm"));
      child?.kill("SIGSTOP");
      const err = await errorOf(batcher.submit(body("frozen"), ctx("frozen"), { timeoutMs: 300 }));
      // What the unary call's deadline gives: UNAVAILABLE (503 at the webhook) naming the deadline.
      expect(err).toMatchObject({ code: "UNAVAILABLE", reason: "ALERT_DEADLINE_EXCEEDED" });
      expect(batcher.inFlight()).toBe(0);
      child?.kill("SIGCONT");
      const after = await batcher.submit(body("thawed"), ctx("thawed"));
      expect(after.requestId).toBe("thawed");
    } finally {
      child?.kill("SIGCONT");
      batcher.close();
      alert.close();
    }
  });

  it("fails in-flight items with UNAVAILABLE when alert-service is killed, and the next item opens a new stream", async () => {
    const { alert, batcher } = open();
    const body = (title: string) => request(ids.projectId, ids.active, JSON.stringify({ title }));
    try {
      await batcher.submit(body("before"), ctx("before"));
      child?.kill("SIGSTOP");
      const inFlight = [1, 2, 3].map((i) => errorOf(batcher.submit(body(`lost-${i}`), ctx(`lost-${i}`))));
      await until(() => batcher.inFlight() === 3);
      await kill();
      // The stream's end fails them at once (not their 5 s deadline): 503 with Retry-After at the webhook.
      for (const err of await Promise.all(inFlight))
        expect(err).toMatchObject({ code: "UNAVAILABLE", reason: "ALERT_UNAVAILABLE" });
      expect((await inFlight[0])?.retryAfterSeconds).toBeGreaterThan(0);
      expect(batcher.inFlight()).toBe(0);
      // While it is down, calls fail fast (503 at the webhook), never hang.
      expect((await errorOf(batcher.submit(body("down"), ctx("down")))).code).toBe("UNAVAILABLE");
      await start();
      const answer = await until(() =>
        batcher.submit(body("after restart"), ctx("after-restart")).catch((e: unknown) => {
          if (e instanceof AppError && e.code === "UNAVAILABLE") return undefined;
          throw e;
        }),
      );
      expect(answer.requestId).toBe("after-restart");
    } finally {
      child?.kill("SIGCONT");
      batcher.close();
      alert.close();
    }
  });
});
