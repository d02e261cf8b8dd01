import { silentLogger } from "@tocsin/core";
import { createClient, type ServerStream } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import { type StubServer, startStubServer, stubAuthHandlers, until } from "@tocsin/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createEndpointCache, type EndpointCache } from "./endpoint-cache.js";

type Event = authV1.WatchIntegrationKeysResponse;

/** A stub auth-service whose resolutions are counted and whose key events the test sends. */
async function stubAuth() {
  const calls: string[] = [];
  const watchers = new Set<ServerStream<Event>>();
  const server = await startStubServer(
    "auth",
    stubAuthHandlers({
      async resolveIntegrationEndpoint(req) {
        calls.push(`${req.projectFullPath}|${req.endpointIdentifier}`);
        const known = req.projectFullPath.toLowerCase() === "g/p";
        return {
          state: known ? authV1.EndpointState.ENDPOINT_STATE_ACTIVE : authV1.EndpointState.ENDPOINT_STATE_NOT_FOUND,
          projectId: known ? 5 : 0,
          integrationId: known ? 9 : 0,
          type: authV1.IntegrationType.INTEGRATION_TYPE_HTTP,
          tokenSha256: Buffer.alloc(known ? 32 : 0),
          tier: authV1.Plan.PLAN_FREE,
          previousTokenExpiresAt: undefined,
          signingSecret: "",
        };
      },
      watchIntegrationKeys: (_req, _ctx, stream) =>
        new Promise<void>((resolve) => {
          watchers.add(stream);
          // As auth-service does: the first message says the subscription is in place.
          stream.write({ projectId: 0, projectFullPath: "", all: true });
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
      for (const w of watchers) w.write({ projectId: 0, projectFullPath: "", all: false, ...e });
    },
  };
}

const ctx = { requestId: "t" };

describe("webhook endpoint cache", () => {
  let server: StubServer | undefined;
  let cache: EndpointCache | undefined;
  afterEach(async () => {
    cache?.close();
    await server?.stop();
  });

  async function setup(options: { maxEntries?: number; ttlMs?: number; now?: () => number } = {}) {
    const auth = await stubAuth();
    server = auth.server;
    const client = createClient(authV1.AuthServiceService, { target: "auth", address: auth.server.address });
    cache = createEndpointCache({ auth: client, logger: silentLogger(), minBackoffMs: 20, ...options });
    await until(() => cache?.watching() === true);
    return auth;
  }

  it("caches positive and negative answers per (path, kind, identifier), path case-insensitively", async () => {
    const auth = await setup();
    const c = cache as EndpointCache;
    await c.resolve("g/p", "http", "abc", ctx);
    await c.resolve("G/P", "http", "abc", ctx);
    await c.resolve("nope/x", "http", "abc", ctx);
    await c.resolve("nope/x", "http", "abc", ctx);
    await c.resolve("g/p", "http", "other", ctx);
    expect(auth.calls).toEqual(["g/p|abc", "nope/x|abc", "g/p|other"]);
  });

  it("drops a project's answers the moment a key event names it, and everything on `all`", async () => {
    const auth = await setup();
    const c = cache as EndpointCache;
    await c.resolve("g/p", "http", "abc", ctx);
    await c.resolve("nope/x", "http", "abc", ctx);
    auth.emit({ projectId: 5, projectFullPath: "g/p" });
    await until(() => c.size() === 1);
    await c.resolve("g/p", "http", "abc", ctx);
    await c.resolve("nope/x", "http", "abc", ctx);
    expect(auth.calls).toEqual(["g/p|abc", "nope/x|abc", "g/p|abc"]);
    // A negative answer for a path is dropped by an event for that path (a project created later).
    auth.emit({ projectId: 77, projectFullPath: "NOPE/x" });
    await until(() => c.size() === 1);
    auth.emit({ all: true });
    await until(() => c.size() === 0);
  });

  it("stays bounded, dropping the least recently used", async () => {
    await setup({ maxEntries: 3 });
    const c = cache as EndpointCache;
    for (const id of ["a", "b", "c", "d", "e"]) await c.resolve("g/p", "http", id, ctx);
    expect(c.size()).toBe(3);
  });

  it("caches nothing while the watch is down, and resumes once it is back", async () => {
    const auth = await setup();
    const c = cache as EndpointCache;
    await c.resolve("g/p", "http", "abc", ctx);
    for (const w of auth.watchers) w.end();
    await until(() => !c.watching());
    expect(c.size()).toBe(0);
    await c.resolve("g/p", "http", "abc", ctx);
    await until(() => c.watching());
    await c.resolve("g/p", "http", "abc", ctx);
    await c.resolve("g/p", "http", "abc", ctx);
    expect(auth.calls).toHaveLength(3);
  });

  it("expires answers after the TTL", async () => {
    let clock = 1_000_000;
    const auth = await setup({ ttlMs: 50, now: () => clock });
    const c = cache as EndpointCache;
    await c.resolve("g/p", "http", "abc", ctx);
    clock += 49;
    await c.resolve("g/p", "http", "abc", ctx);
    expect(auth.calls).toHaveLength(1);
    clock += 1;
    await c.resolve("g/p", "http", "abc", ctx);
    expect(auth.calls).toHaveLength(2);
  });
});
