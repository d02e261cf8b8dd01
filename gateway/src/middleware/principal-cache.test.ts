import { AppError, silentLogger } from "@tocsin/core";
import { createClient, type ServerStream } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import { type StubServer, startStubServer, stubAuthHandlers, until } from "@tocsin/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createPrincipalCache, expiryMs, type PrincipalCache } from "./principal-cache.js";

type Event = authV1.WatchAccessChangesResponse;

/** A stub auth-service: tokens `t<id>` belong to user 7 (`t9` expires 2030-01-02); `bad` fails. */
async function stubAuth() {
  const calls: string[] = [];
  const watchers = new Set<ServerStream<Event>>();
  const server = await startStubServer(
    "auth",
    stubAuthHandlers({
      async authenticateToken({ token }) {
        calls.push(token);
        if (!token.startsWith("t")) throw new AppError("UNAUTHENTICATED", "TOKEN_INVALID", "401 Unauthorized");
        const tokenId = Number(token.slice(1));
        const expiresAt = tokenId === 9 ? "2030-01-02" : "";
        return { principal: { userId: 7, username: "alice", isAdmin: false, scopes: ["api"], tokenId, expiresAt } };
      },
      watchAccessChanges: (_req, _ctx, stream) =>
        new Promise<void>((resolve) => {
          watchers.add(stream);
          stream.write({ revokedTokenIds: [], userIds: [], all: true, endedSessionIds: [] });
          stream.onCancel(() => {
            watchers.delete(stream);
            resolve();
          });
        }),
    }),
  );
  return {
    server,
    calls,
    watchers,
    emit(e: Partial<Event>) {
      for (const w of watchers) w.write({ revokedTokenIds: [], userIds: [], all: false, endedSessionIds: [], ...e });
    },
  };
}

const ctx = { requestId: "t" };

describe("gateway principal cache", () => {
  let server: StubServer | undefined;
  let cache: PrincipalCache | undefined;
  afterEach(async () => {
    cache?.close();
    await server?.stop();
  });

  async function setup(options: { maxEntries?: number; ttlMs?: number; now?: () => number } = {}) {
    const auth = await stubAuth();
    server = auth.server;
    const client = createClient(authV1.AuthServiceService, { target: "auth", address: auth.server.address });
    const c = createPrincipalCache({ auth: client, logger: silentLogger(), minBackoffMs: 20, ...options });
    cache = c;
    await until(() => c.watching());
    return { auth, c };
  }

  it("reuses a principal per token; failures are never cached", async () => {
    const { auth, c } = await setup();
    expect(await c.authenticate("t1", ctx)).toMatchObject({ userId: 7, tokenId: 1 });
    await c.authenticate("t1", ctx);
    await c.authenticate("t2", ctx);
    for (let i = 0; i < 2; i++) await expect(c.authenticate("bad", ctx)).rejects.toMatchObject({ reason: "TOKEN_INVALID" });
    expect(auth.calls).toEqual(["t1", "t2", "bad", "bad"]);
    expect(c.size()).toBe(2);
  });

  it("drops a token the moment it is revoked, and everything on `all`", async () => {
    const { auth, c } = await setup();
    await c.authenticate("t1", ctx);
    await c.authenticate("t2", ctx);
    auth.emit({ revokedTokenIds: [1], userIds: [2] });
    await until(() => c.size() === 1);
    await c.authenticate("t1", ctx);
    await c.authenticate("t2", ctx);
    expect(auth.calls).toEqual(["t1", "t2", "t1"]);
    auth.emit({ all: true });
    await until(() => c.size() === 0);
  });

  it("caches nothing while the watch is down, and resumes once it is back", async () => {
    const { auth, c } = await setup();
    await c.authenticate("t1", ctx);
    for (const w of auth.watchers) w.end();
    await until(() => !c.watching());
    expect(c.size()).toBe(0);
    await c.authenticate("t1", ctx);
    expect(c.size()).toBe(0);
    await until(() => c.watching());
    await c.authenticate("t1", ctx);
    await c.authenticate("t1", ctx);
    expect(auth.calls).toEqual(["t1", "t1", "t1"]);
  });

  it("never keeps a principal past the TTL nor past the token's expiry", async () => {
    let clock = Date.parse("2030-01-01T23:59:00Z");
    const { auth, c } = await setup({ ttlMs: 30_000, now: () => clock });
    await c.authenticate("t9", ctx); // expires 2030-01-02: cached until midnight, 60 s away
    await c.authenticate("t1", ctx); // never expires: cached for the TTL
    clock += 29_000;
    await c.authenticate("t9", ctx);
    await c.authenticate("t1", ctx);
    expect(auth.calls).toEqual(["t9", "t1"]);
    clock += 2_000; // 31 s: past the TTL
    await c.authenticate("t1", ctx);
    expect(auth.calls).toEqual(["t9", "t1", "t1"]);
    await c.authenticate("t9", ctx); // 23:59:31: reloaded, now kept until midnight (29 s), not for 30 s
    expect(auth.calls).toEqual(["t9", "t1", "t1", "t9"]);
    clock = Date.parse("2030-01-02T00:00:00Z") - 1;
    await c.authenticate("t9", ctx);
    expect(auth.calls).toHaveLength(4);
    clock += 1; // midnight: the token is expired; auth-service must be asked
    await c.authenticate("t9", ctx);
    expect(auth.calls).toHaveLength(5);
    expect(expiryMs("")).toBe(Number.POSITIVE_INFINITY);
  });

  it("stays bounded, dropping the least recently used", async () => {
    const { c } = await setup({ maxEntries: 3 });
    for (const id of [1, 2, 3, 4, 5]) await c.authenticate(`t${id}`, ctx);
    expect(c.size()).toBe(3);
  });
});
