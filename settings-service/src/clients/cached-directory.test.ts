import { AppError, notFound, silentLogger } from "@tocsin/core";
import { createClient, createGrpcServer, type GrpcServer, type ServerStream, type ServiceHandlers } from "@tocsin/grpc";
import { authV1, PROTO_FILES } from "@tocsin/proto";
import { until } from "@tocsin/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { Directory } from "../domain/ports.js";
import { type CachedDirectory, createCachedDirectory } from "./cached-directory.js";

const ctx = { requestId: "r" };

type Event = authV1.WatchAccessChangesResponse;
type AuthDef = typeof authV1.AuthServiceService;

/** An auth-service that only streams access changes, which the test sends. */
async function stubWatch() {
  const watchers = new Set<ServerStream<Event>>();
  const handlers: Record<string, unknown> = {};
  for (const name of Object.keys(authV1.AuthServiceService)) {
    handlers[name] = async () => {
      throw new AppError("UNIMPLEMENTED", "UNIMPLEMENTED", "501 Not Implemented");
    };
  }
  handlers.watchAccessChanges = (_req: unknown, _ctx: unknown, stream: ServerStream<Event>) =>
    new Promise<void>((resolve) => {
      watchers.add(stream);
      stream.write({ revokedTokenIds: [], userIds: [], all: true, endedSessionIds: [] });
      stream.onCancel(() => {
        watchers.delete(stream);
        resolve();
      });
    });
  const server: GrpcServer = createGrpcServer({ logger: silentLogger(), protoFiles: [PROTO_FILES.auth], serviceNames: [] });
  server.add(authV1.AuthServiceService, handlers as ServiceHandlers<AuthDef>);
  const port = await server.listen("127.0.0.1:0");
  return {
    address: `127.0.0.1:${port}`,
    watchers,
    stop: () => server.shutdown(500),
    emit(e: Partial<Event>) {
      for (const w of watchers) w.write({ revokedTokenIds: [], userIds: [], all: false, endedSessionIds: [], ...e });
    },
  };
}

/** User 1 sees project 10 and group 20; everyone else gets NOT_FOUND. Every call is counted. */
function countingDirectory(calls: string[]): Directory {
  const visible = (viewer: number | undefined) => viewer === undefined || viewer === 1;
  return {
    async getProject(idOrPath, viewer) {
      calls.push(`project ${idOrPath} ${viewer}`);
      if (!visible(viewer)) throw notFound("Project");
      return { id: 10, ancestorGroupIds: [20], tier: "free" };
    },
    async getGroup(idOrPath, viewer) {
      calls.push(`group ${idOrPath} ${viewer}`);
      if (!visible(viewer)) throw notFound("Group");
      return { id: 20, plan: "ultimate" };
    },
    async listEmails(userId) {
      calls.push(`emails ${userId}`);
      return [{ email: `u${userId}@x.io`, confirmed: true, primary: true }];
    },
    async listUserGroups(userId) {
      calls.push(`groups ${userId}`);
      return [{ id: 20, plan: "ultimate" }];
    },
    async listProjectMembers(projectId) {
      calls.push(`members ${projectId}`);
      return [];
    },
  };
}

describe("settings-service directory cache", () => {
  let stub: Awaited<ReturnType<typeof stubWatch>> | undefined;
  let dir: CachedDirectory | undefined;
  afterEach(async () => {
    dir?.close();
    await stub?.stop();
  });

  async function setup(options: { ttlMs?: number; now?: () => number } = {}) {
    const s = await stubWatch();
    stub = s;
    const calls: string[] = [];
    const auth = createClient(authV1.AuthServiceService, { target: "auth", address: s.address });
    const d = createCachedDirectory(countingDirectory(calls), { auth, logger: silentLogger(), minBackoffMs: 20, ...options });
    dir = d;
    await until(() => d.watching());
    return { s, d, calls };
  }

  it("caches positive answers per viewer and id, never NOT_FOUND, never the member list", async () => {
    const { d, calls } = await setup();
    for (let i = 0; i < 2; i++) {
      await d.getProject("10", 1, ctx);
      await d.getProject("10", undefined, ctx);
      await d.getGroup("g", 1, ctx);
      await d.listEmails(1, ctx);
      await d.listUserGroups(1, ctx);
      await expect(d.getProject("10", 2, ctx)).rejects.toMatchObject({ code: "NOT_FOUND" });
      await d.listProjectMembers(10, ctx);
    }
    expect(calls).toEqual([
      "project 10 1",
      "project 10 undefined",
      "group g 1",
      "emails 1",
      "groups 1",
      "project 10 2",
      "members 10",
      "project 10 2",
      "members 10",
    ]);
  });

  it("drops a user's answers when an event names them, and everything on `all`", async () => {
    const { s, d, calls } = await setup();
    await d.getProject("10", 1, ctx);
    await d.getProject("10", undefined, ctx);
    await d.listEmails(3, ctx);
    s.emit({ userIds: [1], revokedTokenIds: [3] });
    await until(() => d.size() === 2);
    await d.getProject("10", 1, ctx);
    await d.getProject("10", undefined, ctx);
    await d.listEmails(3, ctx);
    expect(calls).toEqual(["project 10 1", "project 10 undefined", "emails 3", "project 10 1"]);
    s.emit({ all: true });
    await until(() => d.size() === 0);
  });

  it("caches nothing while the watch is down", async () => {
    const { s, d, calls } = await setup();
    await d.getGroup("g", 1, ctx);
    for (const w of s.watchers) w.end();
    await until(() => !d.watching());
    expect(d.size()).toBe(0);
    await d.getGroup("g", 1, ctx);
    expect(d.size()).toBe(0);
    await until(() => d.watching());
    await d.getGroup("g", 1, ctx);
    await d.getGroup("g", 1, ctx);
    expect(calls).toEqual(["group g 1", "group g 1", "group g 1"]);
  });

  it("expires answers after the TTL", async () => {
    let clock = 1_000;
    const { d, calls } = await setup({ ttlMs: 30_000, now: () => clock });
    await d.listUserGroups(1, ctx);
    clock += 29_999;
    await d.listUserGroups(1, ctx);
    clock += 1;
    await d.listUserGroups(1, ctx);
    expect(calls).toEqual(["groups 1", "groups 1"]);
  });
});
