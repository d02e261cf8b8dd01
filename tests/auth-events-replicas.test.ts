import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { captureLogger, until } from "@tocsin/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { bootAlert, bootAuth, bootGateway, bootSettings } from "./harness.js";
import { addMember, seedGroup, seedProject, seedUser } from "./seed.js";
import { rawPost } from "./webhook-client.js";

// Two auth-service replicas (A, B) on one MongoDB-protocol store and one Redis; gateway GA calls
// and watches A, gateway GB and settings-service call and watch B. Every change is made through
// GA (so through A) and looked at through GB on its very next request: only the events carried
// over Redis can tell GB's and settings-service's caches (docs/architecture.md, "Auth events
// across replicas").

const ADMIN_TOKEN = "admin-token-for-replica-events-0123";
const SECRET_KEY = "test-secret-key-0123456789abcdef";

interface Replicas {
  ga: string;
  gb: string;
  /** What GB and settings-service logged at warn and above. */
  gbLog: ReturnType<typeof captureLogger>;
  settingsLog: ReturnType<typeof captureLogger>;
  /** auth-service B's log (its Redis subscription's client name is in it). */
  authBLog: ReturnType<typeof captureLogger>;
  stop(): Promise<void>;
}

/** Boots A and B (with `redisUrl`, or without: each on its own, the control), settings-service, alert-service, GA and GB. */
async function startReplicas(mongoUrl: string, redis: { a?: string; b?: string }): Promise<Replicas> {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-auth-replicas-"));
  const id = randomBytes(5).toString("hex");
  const quiet = { logger: captureLogger("silent").logger };
  const authEnv = {
    LOG_LEVEL: "silent",
    ADMIN_TOKEN,
    SECRET_KEY,
    AUTH_SERVICE_ADDR: "127.0.0.1:0",
    MONGO_URL: mongoUrl,
    MONGO_DB: `tocsin_auth_replicas_${id}`,
  };
  const authBLog = captureLogger("info");
  const authA = await bootAuth({ ...authEnv, DATA_DIR: join(dir, "a"), REDIS_URL: redis.a }, quiet);
  const authB = await bootAuth({ ...authEnv, DATA_DIR: join(dir, "b"), REDIS_URL: redis.b }, { logger: authBLog.logger });
  const settingsLog = captureLogger("warn");
  const settings = await bootSettings(
    {
      LOG_LEVEL: "silent",
      AUTH_SERVICE_ADDR: authB.address,
      SETTINGS_SERVICE_ADDR: "127.0.0.1:0",
      MONGO_URL: mongoUrl,
      MONGO_DB: `tocsin_settings_replicas_${id}`,
    },
    { logger: settingsLog.logger },
  );
  const alert = await bootAlert(
    {
      LOG_LEVEL: "silent",
      SECRET_KEY,
      AUTH_SERVICE_ADDR: authA.address,
      SETTINGS_SERVICE_ADDR: settings.address,
      ALERT_SERVICE_ADDR: "127.0.0.1:0",
      DATA_DIR: join(dir, "alert"),
    },
    quiet,
  );
  const gatewayEnv = {
    LOG_LEVEL: "silent",
    PORT: "0",
    ALERT_SERVICE_ADDR: alert.address,
    SETTINGS_SERVICE_ADDR: settings.address,
  };
  const ga = await bootGateway({ ...gatewayEnv, AUTH_SERVICE_ADDR: authA.address }, quiet);
  const gbLog = captureLogger("warn");
  const gb = await bootGateway({ ...gatewayEnv, AUTH_SERVICE_ADDR: authB.address }, { logger: gbLog.logger });
  return {
    ga: ga.url,
    gb: gb.url,
    gbLog,
    settingsLog,
    authBLog,
    async stop() {
      await Promise.all([ga.stop(), gb.stop()]);
      await alert.stop();
      await settings.stop();
      await Promise.all([authA.stop(), authB.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A token of a new user, warmed into GB's principal cache (several answers through GB). */
async function warmToken(sys: Replicas, username: string) {
  const user = await seedUser(sys.ga, ADMIN_TOKEN, { username });
  const created = await api(sys.ga, ADMIN_TOKEN).post(`/api/v4/users/${user.user.id}/personal_access_tokens`, {
    name: "replicas",
    scopes: ["api"],
  });
  expect(created.status).toBe(201);
  const viaB = api(sys.gb, created.body.token);
  for (let i = 0; i < 3; i++) expect((await viaB.get("/api/v4/user")).status).toBe(200);
  return { id: created.body.id as number, viaB };
}

/**
 * A change made through GA reaches GB over B's subscription a moment after GA's call answers:
 * B must still read it from Redis and write it to its streams (docs/architecture.md, "The window
 * that is left", at most 11 ms measured under load). So GB's answers are polled, for at most 2 s:
 * far inside the caches' 10–30 s lifetimes, so only the event can explain the change (the
 * control below shows the cache keeping the stale answer without it).
 */
const soon = <T>(check: () => Promise<T | false | undefined>) => until(check, 2_000);

const revoke = async (sys: Replicas, tokenId: number) =>
  expect((await api(sys.ga, ADMIN_TOKEN).del(`/api/v4/personal_access_tokens/${tokenId}`)).status).toBe(204);

const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
if (!mongoUrl || !redisUrl) console.warn("[auth events across replicas] Redis or MongoDB unavailable: SKIPPED");

describe.skipIf(!mongoUrl || !redisUrl)("auth events across two auth-service replicas (Redis pub/sub)", () => {
  let sys: Replicas;
  let admin: Redis;
  // B connects as its own Redis user, so that the test can keep B's subscription away (ACL off)
  // without touching anyone else's connections on the shared Redis.
  const redisUser = `tocsin-test-${randomBytes(5).toString("hex")}`;
  const redisPassword = randomBytes(12).toString("hex");

  beforeAll(async () => {
    admin = new Redis(redisUrl);
    await admin.call("ACL", "SETUSER", redisUser, "on", `>${redisPassword}`, "~*", "&*", "+@all");
    const asUser = new URL(redisUrl);
    asUser.username = redisUser;
    asUser.password = redisPassword;
    sys = await startReplicas(mongoUrl, { a: redisUrl, b: asUser.toString() });
  });
  afterAll(async () => {
    await sys?.stop();
    await admin.call("ACL", "DELUSER", redisUser);
    admin.disconnect();
  });

  it("a token revoked through replica A is refused by the gateway on replica B as soon as B has heard (not after its cache's lifetime)", async () => {
    const { id, viaB } = await warmToken(sys, "rep-alice");
    await revoke(sys, id);
    const res = await soon(async () => {
      const answer = await viaB.get("/api/v4/user");
      return answer.status === 401 && answer;
    });
    expect(res.body).toMatchObject({ error: "invalid_token", error_description: expect.stringContaining("revoked") });
  });

  it("a membership added through A shows the project's settings through B at once (settings-service's cache)", async () => {
    const owner = await seedUser(sys.ga, ADMIN_TOKEN, { username: "rep-owner" });
    const bob = await seedUser(sys.ga, ADMIN_TOKEN, { username: "rep-bob" });
    const project = await seedProject(sys.ga, owner.token, { path: "rep-project" });
    const asBob = api(sys.gb, bob.token);
    const path = `/api/v4/projects/${project.id}/notification_settings`;
    for (let i = 0; i < 3; i++) expect((await asBob.get(path)).status).toBe(404);
    await addMember(sys.ga, owner.token, "projects", project.id, bob.user.id, 30);
    expect(await asBob.get(path)).toMatchObject({ status: 200, body: { level: "global" } });
  });

  it("a plan change through A shows new_epic through B as soon as B has heard", async () => {
    const carol = await seedUser(sys.ga, ADMIN_TOKEN, { username: "rep-carol" });
    const group = await seedGroup(sys.ga, ADMIN_TOKEN, { path: "rep-free" });
    await addMember(sys.ga, ADMIN_TOKEN, "groups", group.id, carol.user.id, 30);
    const asCarol = api(sys.gb, carol.token);
    expect((await asCarol.put("/api/v4/notification_settings", { level: "custom" })).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await asCarol.get("/api/v4/notification_settings")).body.events).not.toHaveProperty("new_epic");
    expect((await api(sys.ga, ADMIN_TOKEN).put(`/api/v4/namespaces/${group.id}`, { plan: "ultimate" })).status).toBe(200);
    const events = await soon(async () => {
      const shown = (await asCarol.get("/api/v4/notification_settings")).body.events;
      return "new_epic" in shown && shown;
    });
    expect(events).toHaveProperty("new_epic", false);
  });

  it("a key reset through A makes the old webhook key fail on gateway B as soon as B has heard", async () => {
    const project = await seedProject(sys.ga, ADMIN_TOKEN, { path: "rep-hooks" });
    const mgmt = `/api/v4/projects/${project.id}/alert_management`;
    const created = await api(sys.ga, ADMIN_TOKEN).post(`${mgmt}/http_integrations`, { name: "Replicated", active: true });
    expect(created.status).toBe(201);
    const { id, url, token: oldKey } = created.body;
    const post = (key: string) =>
      rawPost(sys.gb, new URL(url).pathname, JSON.stringify({ title: "replicas" }), { authorization: `Bearer ${key}` });
    for (let i = 0; i < 3; i++) expect((await post(oldKey)).status).toBe(202);
    const reset = await api(sys.ga, ADMIN_TOKEN).post(`${mgmt}/http_integrations/${id}/reset_token`);
    expect(reset.status).toBe(200);
    await soon(async () => (await post(oldKey)).status === 401);
    expect((await post(reset.body.token)).status).toBe(202);
  });

  it("while B's Redis subscription is away, the caches watching B cache nothing: a revocation B never heard of is refused through B", async () => {
    const { id, viaB } = await warmToken(sys, "rep-dave");
    const subscribed = sys.authBLog.lines().find((l) => l.msg === "auth events: subscribed");
    const name = String(subscribed?.client);
    // Keep B from coming back (its Redis user off), then drop B's subscription by its client name.
    await admin.call("ACL", "SETUSER", redisUser, "off");
    const clients = String(await admin.call("CLIENT", "LIST")).split("\n");
    const clientId = / ?id=(\d+)/.exec(clients.find((l) => l.includes(` name=${name} `)) ?? "")?.[1];
    expect(clientId).toBeTruthy();
    await admin.call("CLIENT", "KILL", "ID", clientId as string);

    // B ended its watch streams: GB's principal cache and settings-service's cache went cold.
    await until(() => sys.gbLog.text().includes("principal cache: change stream lost"));
    await until(() => sys.settingsLog.text().includes("settings directory cache: change stream lost"));
    // B is NOT_SERVING (it may miss events), so GB is not ready.
    await until(async () => (await fetch(`${sys.gb}/-/readiness`)).status === 503);

    // A revocation published while B cannot hear it is still seen through B.
    await revoke(sys, id);
    expect((await viaB.get("/api/v4/user")).status).toBe(401);

    // B back: subscribed again, SERVING, and its streams carry A's changes again.
    await admin.call("ACL", "SETUSER", redisUser, "on");
    await until(async () => (await fetch(`${sys.gb}/-/readiness`)).status === 200);
    const again = await warmToken(sys, "rep-erin");
    await revoke(sys, again.id);
    await soon(async () => (await again.viaB.get("/api/v4/user")).status === 401);
  });
});

describe.skipIf(!mongoUrl || !redisUrl)("control: the same replicas without REDIS_URL", () => {
  let sys: Replicas;
  beforeAll(async () => {
    sys = await startReplicas(mongoUrl, {});
  });
  afterAll(() => sys?.stop());

  it("gateway B keeps serving a token revoked through A from its cache (why auth-service needs REDIS_URL with several replicas)", async () => {
    const { id, viaB } = await warmToken(sys, "ctl-alice");
    await revoke(sys, id);
    expect((await viaB.get("/api/v4/user")).status).toBe(200);
  });
});
