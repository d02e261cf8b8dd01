import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppError, type CallContext, silentLogger } from "@tocsin/core";
import { createClient, createGrpcServer } from "@tocsin/grpc";
import { alertV1, PROTO_FILES } from "@tocsin/proto";
import { freePort, until, waitForPort } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createIngestBatcher } from "../gateway/src/clients/ingest-batcher.js";
import { api } from "./api.js";
import { bootAlert, bootAuth, bootGateway } from "./harness.js";

/**
 * The IngestAlerts stream (issue 9) and the gateway's batcher over it: per-item results in a
 * batch, per-item deadlines, a replica killed or stopped mid-stream, and failover between two
 * replicas. alert-service runs as a child process where it must be frozen (SIGSTOP) or killed.
 */

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const ADMIN = "ingest-stream-admin-token-0123456789";
const SECRET = "ingest-stream-secret-key-0123456789";
const mongoUrl = inject("mongoUrl");
type Alert = ReturnType<typeof createClient<typeof alertV1.AlertServiceService>>;
type Boot = Awaited<ReturnType<typeof bootAuth>>;

const ctx = (requestId: string): CallContext => ({ requestId });
const request = (projectId: number, integrationId: number, payloadJson: string, waitMs = 0): alertV1.IngestAlertRequest => ({
  projectId,
  integrationId,
  payloadJson,
  idempotencyKey: "",
  receivedAt: new Date(),
  waitMs,
  tier: "",
});
const errorOf = async (promise: Promise<unknown>) => {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
};

/** A project with an active HTTP integration and one with an inactive one (Free tier: one each), through a gateway on `alertAddr`. */
async function seed(authAddr: string, alertAddr: string) {
  const gateway = await bootGateway(
    {
      PORT: "0",
      AUTH_SERVICE_ADDR: authAddr,
      ALERT_SERVICE_ADDR: alertAddr,
      SETTINGS_SERVICE_ADDR: "127.0.0.1:1",
      LOG_LEVEL: "silent",
      SECRET_KEY: SECRET,
    },
    { logger: silentLogger() },
  );
  try {
    const admin = api(gateway.url, ADMIN);
    const integration = async (name: string, active: boolean) => {
      const project = await admin.post("/api/v4/projects", { name: `stream-${name}-${Date.now()}` });
      expect(project.status).toBe(201);
      const created = await admin.post(`/api/v4/projects/${project.body.id}/alert_management/http_integrations`, {
        name,
        active,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return { projectId: project.body.id as number, id: created.body.id as number };
    };
    const active = await integration("on", true);
    const inactive = await integration("off", false);
    return { projectId: active.projectId, active: active.id, inactiveProjectId: inactive.projectId, inactive: inactive.id };
  } finally {
    await gateway.stop();
  }
}

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
    auth = await bootAuth(
      {
        AUTH_SERVICE_ADDR: "127.0.0.1:0",
        DATA_DIR: join(dir, "auth"),
        ADMIN_TOKEN: ADMIN,
        SECRET_KEY: SECRET,
        LOG_LEVEL: "silent",
      },
      { logger: silentLogger() },
    );
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

describe("IngestAlerts when alert-service stops, with two replicas", () => {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-ingest-drain-"));
  let auth: Boot;
  afterAll(async () => {
    await auth?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeAll(async () => {
    auth = await bootAuth(
      {
        AUTH_SERVICE_ADDR: "127.0.0.1:0",
        DATA_DIR: join(dir, "auth"),
        ADMIN_TOKEN: ADMIN,
        SECRET_KEY: SECRET,
        LOG_LEVEL: "silent",
      },
      { logger: silentLogger() },
    );
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

describe("IngestAlerts against an alert-service without it (an older version)", () => {
  it("makes the call unary instead, and keeps doing so", async () => {
    const served: string[] = [];
    const server = createGrpcServer({ logger: silentLogger(), protoFiles: [PROTO_FILES.alert], serviceNames: [] });
    server.add(
      { ingestAlert: alertV1.AlertServiceService.ingestAlert },
      {
        async ingestAlert(_req, callCtx) {
          served.push(callCtx.requestId);
          return {
            requestId: callCtx.requestId,
            fingerprints: [],
            outcomes: [],
            processed: false,
            replayed: false,
            rateLimit: undefined,
          };
        },
      },
    );
    const address = `127.0.0.1:${await server.listen("127.0.0.1:0")}`;
    const alert: Alert = createClient(alertV1.AlertServiceService, { target: "alert", address });
    const batcher = createIngestBatcher(alert, { timeoutMs: 5000, streams: 1 });
    try {
      const body = request(1, 1, JSON.stringify({ title: "old" }));
      expect(await batcher.submit(body, ctx("old-1"))).toMatchObject({ requestId: "old-1" });
      expect(await batcher.submit(body, ctx("old-2"))).toMatchObject({ requestId: "old-2" });
      expect(served).toEqual(["old-1", "old-2"]);
    } finally {
      batcher.close();
      alert.close();
      await server.shutdown(1000);
    }
  });
});
