import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CallContext, type RunningService, silentLogger, systemClock } from "@tocsin/core";
import { createClient, type PromiseClient } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import { FakeClock, until } from "@tocsin/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";
import type { AccessEvent } from "./domain/access-events.js";
import type { UseCases } from "./handlers/use-cases.js";
import { createAuthService, createUseCases } from "./service.js";
import { SqliteAuthStore } from "./store/sqlite-auth-store.js";

const sys: CallContext = { requestId: "w" };
const as = (userId: number): CallContext => ({ requestId: "w", principal: { userId } });

describe("access events (what WatchAccessChanges streams)", () => {
  let u: UseCases;
  let events: AccessEvent[];
  let owner: number;
  let dev: number;

  beforeEach(async () => {
    u = createUseCases(new SqliteAuthStore(":memory:"), "access-test-secret-0123456789", new FakeClock());
    const mk = async (username: string) =>
      (await u.users.createUser(sys, { username, email: `${username}@x.io`, name: username, admin: false })).id;
    owner = await mk("owner");
    dev = await mk("dev");
    events = [];
    u.watch.access.subscribe(
      (e) => events.push(e),
      () => {},
    );
  });
  const user = (id: number) => ({ revokedTokenIds: [], userIds: [id], all: false });
  const all = { revokedTokenIds: [], userIds: [], all: true };

  it("names the revoked token", async () => {
    const { record } = await u.tokens.createToken(sys, { userId: dev, name: "t", scopes: ["api"], expiresAt: "" });
    expect(events).toEqual([]);
    await u.tokens.revokeToken(as(dev), record.id);
    expect(events).toEqual([{ revokedTokenIds: [record.id], userIds: [], all: false }]);
  });

  it("names the member on AddGroupMember and AddProjectMember, the creator on a new top-level group or project", async () => {
    await u.groups.createGroup(as(owner), { name: "G", path: "g", parentId: 0, plan: null });
    await u.groups.addMember(as(owner), "g", dev, 30);
    await u.projects.createProject(as(owner), { name: "p", path: "", namespaceId: 0 });
    await u.projects.addMember(as(owner), "owner/p", dev, 20);
    expect(events).toEqual([user(owner), user(dev), user(owner), user(dev)]);
  });

  it("says `all` on a plan change and on a new subgroup (inherited by every ancestor member)", async () => {
    const top = await u.groups.createGroup(sys, { name: "T", path: "t", parentId: 0, plan: null });
    expect(events).toEqual([]);
    await u.groups.createGroup(sys, { name: "S", path: "s", parentId: top.group.id, plan: null });
    await u.groups.setPlan(sys, top.group.id, "ultimate");
    expect(events).toEqual([all, all]);
  });

  it("names the user on a new e-mail address", async () => {
    await u.users.addEmail(as(dev), dev, "other@x.io", false);
    expect(events).toEqual([user(dev)]);
  });
});

describe("WatchAccessChanges over gRPC", () => {
  let dir: string;
  let service: RunningService;
  let client: PromiseClient<typeof authV1.AuthServiceService>;
  const ADMIN_TOKEN = "admin-token-for-watch-tests-0123";

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "auth-watch-"));
    service = await createAuthService(
      loadConfig({ AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: dir, ADMIN_TOKEN, SECRET_KEY: "secret-key-for-tests-0123456789" }),
      { logger: silentLogger(), clock: systemClock },
    );
    client = createClient(authV1.AuthServiceService, { target: "auth", address: service.address });
  });
  afterAll(async () => {
    client.close();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts with `all`, then streams a revocation before the revoke call returns; the token carries its expiry", async () => {
    const root = (await client.authenticateToken({ token: ADMIN_TOKEN }, sys)).principal as authV1.Principal;
    expect(root.expiresAt).toBe("");
    const seen: authV1.WatchAccessChangesResponse[] = [];
    const stream = client.stream("watchAccessChanges", {}, sys);
    stream.on("data", (m: authV1.WatchAccessChangesResponse) => seen.push(m));
    stream.on("error", () => {});
    await until(() => seen.length === 1);
    expect(seen[0]).toEqual({ revokedTokenIds: [], userIds: [], all: true, endedSessionIds: [] });

    const { token } = await client.createPersonalAccessToken(
      { userId: root.userId, name: "x", scopes: ["api"], expiresAt: "2099-01-02" },
      as(root.userId),
    );
    const created = token as authV1.PersonalAccessToken;
    expect((await client.authenticateToken({ token: created.token }, sys)).principal?.expiresAt).toBe("2099-01-02");
    await client.revokePersonalAccessToken({ id: created.id }, as(root.userId));
    await until(() => seen.length === 2);
    expect(seen[1]).toEqual({ revokedTokenIds: [created.id], userIds: [], all: false, endedSessionIds: [] });
    stream.cancel();
  });
});
