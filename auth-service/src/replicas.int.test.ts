import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallContext, RunningService } from "@tocsin/core";
import { systemClock } from "@tocsin/core";
import { createClient, createHealthChecker, type PromiseClient } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import { captureLogger, until } from "@tocsin/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadConfig } from "./config.js";
import { createAuthService } from "./service.js";

type Client = PromiseClient<typeof authV1.AuthServiceService>;
const sys: CallContext = { requestId: "replicas" };
const as = (userId: number): CallContext => ({ requestId: "replicas", principal: { userId } });
const ADMIN_TOKEN = "admin-token-for-replica-tests-0123";

/** One WatchAccessChanges stream, its messages and its end. */
function watch(client: Client) {
  const seen: authV1.WatchAccessChangesResponse[] = [];
  const state: { error?: { code?: number } } = {};
  const stream = client.stream("watchAccessChanges", {}, sys);
  stream.on("data", (m: authV1.WatchAccessChangesResponse) => seen.push(m));
  stream.on("error", (err: { code?: number }) => {
    state.error = err;
  });
  return { seen, state, cancel: () => stream.cancel() };
}

const redisUrl = inject("redisUrl");
const mongoUrl = inject("mongoUrl");
if (!redisUrl || !mongoUrl) console.warn("[auth replicas] Redis or MongoDB unavailable: the two-replica auth tests are SKIPPED");
describe.skipIf(!redisUrl || !mongoUrl)("two auth-service replicas on one store and one Redis", () => {
  const dir = mkdtempSync(join(tmpdir(), "auth-replicas-"));
  const logB = captureLogger("info");
  let a: RunningService;
  let b: RunningService;
  let clientA: Client;
  let clientB: Client;
  let admin: Redis;

  beforeAll(async () => {
    const env = {
      AUTH_SERVICE_ADDR: "127.0.0.1:0",
      DATA_DIR: dir,
      MONGO_URL: mongoUrl,
      MONGO_DB: `tocsin_test_auth_${randomBytes(6).toString("hex")}`,
      REDIS_URL: redisUrl,
      ADMIN_TOKEN,
      SECRET_KEY: "secret-key-for-tests-0123456789",
      LOG_LEVEL: "silent",
    };
    a = await createAuthService(loadConfig(env), { logger: captureLogger("silent").logger, clock: systemClock });
    b = await createAuthService(loadConfig(env), { logger: logB.logger, clock: systemClock });
    clientA = createClient(authV1.AuthServiceService, { target: "auth", address: a.address });
    clientB = createClient(authV1.AuthServiceService, { target: "auth", address: b.address });
    admin = new Redis(redisUrl);
  });
  afterAll(async () => {
    clientA.close();
    clientB.close();
    admin.disconnect();
    await Promise.all([a.stop(), b.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("streams a revocation made through A to B's watchers, and B stops accepting the token at once", async () => {
    const root = (await clientB.authenticateToken({ token: ADMIN_TOKEN }, sys)).principal as authV1.Principal;
    const onB = watch(clientB);
    await until(() => onB.seen.length === 1);
    const { token } = await clientA.createPersonalAccessToken(
      { userId: root.userId, name: "x", scopes: ["api"], expiresAt: "" },
      as(root.userId),
    );
    const created = token as authV1.PersonalAccessToken;
    // B's own look-up cache holds the token now...
    expect((await clientB.authenticateToken({ token: created.token }, sys)).principal?.tokenId).toBe(created.id);
    await clientA.revokePersonalAccessToken({ id: created.id }, as(root.userId));
    await until(() => onB.seen.length === 2);
    expect(onB.seen[1]).toEqual({ revokedTokenIds: [created.id], userIds: [], all: false, endedSessionIds: [] });
    // ...and the event dropped it there too.
    await expect(clientB.authenticateToken({ token: created.token }, sys)).rejects.toMatchObject({ reason: "TOKEN_REVOKED" });
    onB.cancel();
  });

  it("ends B's watch streams with UNAVAILABLE when B's Redis subscription drops, and streams (and serves) again once resubscribed", async () => {
    const onB = watch(clientB);
    await until(() => onB.seen.length === 1);
    const subscribed = logB.lines().find((l) => l.msg === "auth events: subscribed");
    const name = String(subscribed?.client);
    const list = String(await admin.call("CLIENT", "LIST")).split("\n");
    const id = / ?id=(\d+)/.exec(list.find((l) => l.includes(` name=${name} `)) ?? "")?.[1];
    expect(id).toBeTruthy();
    await admin.call("CLIENT", "KILL", "ID", id as string);

    await until(() => onB.state.error);
    expect(onB.state.error?.code).toBe(14); // UNAVAILABLE: the watcher caches nothing until a new stream is up
    // Resubscribed: a new stream starts with `all` and carries A's next change.
    const again = await until(async () => {
      const w = watch(clientB);
      await until(() => w.seen.length > 0 || w.state.error);
      if (w.seen.length) return w;
      w.cancel();
      return undefined;
    });
    expect(again.seen[0]?.all).toBe(true);
    const health = createHealthChecker(b.address);
    expect(await until(async () => (await health.check(1_000)) === "SERVING")).toBe(true);
    health.close();
    const root = (await clientA.authenticateToken({ token: ADMIN_TOKEN }, sys)).principal as authV1.Principal;
    const { token } = await clientA.createPersonalAccessToken(
      { userId: root.userId, name: "y", scopes: ["api"], expiresAt: "" },
      as(root.userId),
    );
    await clientA.revokePersonalAccessToken({ id: (token as authV1.PersonalAccessToken).id }, as(root.userId));
    await until(() => again.seen.length === 2);
    again.cancel();
  });
});
