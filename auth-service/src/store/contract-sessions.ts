import { beforeEach, expect, it } from "vitest";
import type { AuthStore } from "../domain/ports.js";
import type { UserRecord } from "../domain/types.js";
import { at, later } from "./contract-fixtures.js";

/** The AuthStore contract's session and sign-in-failure cases; registered inside `describeAuthStoreContract`. */
export function registerSessionCases(getStore: () => AuthStore, user: (username: string) => Promise<UserRecord>): void {
  let store: AuthStore;
  beforeEach(() => {
    store = getStore();
  });

  it("stores sessions by token hash and ends them one by one or per user", async () => {
    const a = await user("alice");
    const b = await user("bob");
    const s1 = await store.sessions.insertSession({ userId: a.id, tokenHash: "h1", createdAt: at, lastSeenAt: at });
    const s2 = await store.sessions.insertSession({ userId: a.id, tokenHash: "h2", createdAt: at, lastSeenAt: at });
    const s3 = await store.sessions.insertSession({ userId: b.id, tokenHash: "h3", createdAt: at, lastSeenAt: at });
    expect(await store.sessions.findSessionByHash("h1")).toEqual(s1);
    await store.sessions.touchSession(s1.id, later(5000));
    expect((await store.sessions.findSessionByHash("h1"))?.lastSeenAt).toEqual(later(5000));
    expect(await store.sessions.deleteSession(s1.id)).toBe(true);
    expect(await store.sessions.deleteSession(s1.id)).toBe(false);
    expect(await store.sessions.findSessionByHash("h1")).toBeNull();
    await store.sessions.insertSession({ userId: a.id, tokenHash: "h4", createdAt: at, lastSeenAt: at });
    const ended = await store.sessions.deleteSessionsOfUser(a.id);
    expect(ended).toHaveLength(2);
    expect(ended).toContain(s2.id);
    expect(await store.sessions.findSessionByHash("h2")).toBeNull();
    expect(await store.sessions.findSessionByHash("h3")).toEqual(s3);
    await store.sessions.insertSession({ userId: b.id, tokenHash: "h5", createdAt: at, lastSeenAt: later(10_000) });
    expect(await store.sessions.deleteSessionsIdleSince(later(5000))).toBe(1);
    expect(await store.sessions.findSessionByHash("h3")).toBeNull();
    expect(await store.sessions.findSessionByHash("h5")).not.toBeNull();
  });

  it("counts failed sign-ins per key in a time window", async () => {
    await store.sessions.addSignInFailure("user:1", at, later(-3600_000));
    await store.sessions.addSignInFailure("user:1", later(1000), later(-3600_000));
    await store.sessions.addSignInFailure("user:2", later(2000), later(-3600_000));
    expect(await store.sessions.listSignInFailures("user:1", at)).toEqual([at, later(1000)]);
    expect(await store.sessions.listSignInFailures("user:1", later(500))).toEqual([later(1000)]);
    await store.sessions.clearSignInFailures("user:2");
    expect(await store.sessions.listSignInFailures("user:2", at)).toEqual([]);
    await store.sessions.addSignInFailure("user:2", later(2000), later(-3600_000));
    // Adding forgets every key's failures before `forgetBefore`.
    await store.sessions.addSignInFailure("user:1", later(9000), later(1500));
    expect(await store.sessions.listSignInFailures("user:1", later(-3600_000))).toEqual([later(9000)]);
    expect(await store.sessions.listSignInFailures("user:2", later(-3600_000))).toEqual([later(2000)]);
    await store.sessions.clearSignInFailures("user:1");
    expect(await store.sessions.listSignInFailures("user:1", later(-3600_000))).toEqual([]);
  });
}
