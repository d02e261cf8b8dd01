import type { AppError, CallContext } from "@tocsin/core";
import { FakeClock } from "@tocsin/testing";
import { beforeEach, describe, expect, it } from "vitest";
import type { UseCases } from "../handlers/use-cases.js";
import { createUseCases } from "../service.js";
import { SqliteAuthStore } from "../store/sqlite-auth-store.js";
import { LOCK_MS } from "./sign-in-throttle.js";

const sys: CallContext = { requestId: "s" };
const as = (userId: number): CallContext => ({ requestId: "s", principal: { userId } });
const fail = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail("expected a failure"),
    (e: unknown) => e as AppError,
  );
const MINUTE = 60_000;

/** Sessions, the lockout and passwords, on the embedded store with a fake clock. */
describe("console sessions (domain rules)", () => {
  let clock: FakeClock;
  let store: SqliteAuthStore;
  let u: UseCases;
  let alice: number;

  beforeEach(async () => {
    clock = new FakeClock();
    store = new SqliteAuthStore(":memory:");
    u = createUseCases(store, "session-test-secret-0123456789", clock);
    alice = (
      await u.users.createUser(sys, { username: "alice", email: "alice@x.io", name: "A", admin: false, password: "alice-pass-1" })
    ).id;
  });

  it("signs in by username or e-mail, case-insensitively, and resolves the session", async () => {
    const byName = await u.sessions.signIn("Alice", "alice-pass-1");
    const byMail = await u.sessions.signIn("ALICE@x.io", "alice-pass-1");
    expect(byName.user.id).toBe(alice);
    expect(byMail.user.id).toBe(alice);
    expect(byName.token).not.toBe(byMail.token);
    const active = await u.sessions.authenticate(byName.token);
    expect(active).toMatchObject({ user: { id: alice }, csrfToken: byName.csrfToken });
    // Only the hash is stored.
    expect(await store.sessions.findSessionByHash(byName.token)).toBeNull();
  });

  it("gives one answer for an unknown login and a wrong password", async () => {
    for (const [login, password] of [
      ["nobody", "alice-pass-1"],
      ["alice", "wrong-pass-1"],
    ] as const) {
      expect(await fail(u.sessions.signIn(login, password))).toMatchObject({
        code: "UNAUTHENTICATED",
        reason: "LOGIN_INVALID",
        message: "Invalid login or password.",
      });
    }
  });

  it("locks a login for 10 minutes after ten failures within 10 minutes", async () => {
    for (let i = 0; i < 9; i++) {
      await fail(u.sessions.signIn("alice", "wrong"));
      clock.advance(MINUTE);
    }
    // Nine failures spread over 9 minutes: the right password still works, and resets the count.
    await u.sessions.signIn("alice", "alice-pass-1");
    for (let i = 0; i < 10; i++) await fail(u.sessions.signIn("alice@x.io", "wrong"));
    const locked = await fail(u.sessions.signIn("alice", "alice-pass-1"));
    expect(locked.message).toBe("Invalid login or password.");
    clock.advance(LOCK_MS - 1000);
    await fail(u.sessions.signIn("alice", "alice-pass-1"));
    clock.advance(1000);
    expect((await u.sessions.signIn("alice", "alice-pass-1")).user.id).toBe(alice);
  });

  it("ends a session after 7 days idle, sliding with use but writing at most hourly", async () => {
    const s = await u.sessions.signIn("alice", "alice-pass-1");
    clock.advance(6 * 24 * 60 * MINUTE);
    await u.sessions.authenticate(s.token);
    const touched = (await store.sessions.findSessionByHash(s.session.tokenHash))?.lastSeenAt;
    expect(touched).toEqual(clock.now());
    clock.advance(30 * MINUTE);
    await u.sessions.authenticate(s.token);
    expect((await store.sessions.findSessionByHash(s.session.tokenHash))?.lastSeenAt).toEqual(touched);
    clock.advance(7 * 24 * 60 * MINUTE);
    expect((await fail(u.sessions.authenticate(s.token))).reason).toBe("SESSION_INVALID");
    // A session nobody comes back to is swept by a later sign-in.
    const forgotten = await u.sessions.signIn("alice", "alice-pass-1");
    clock.advance(7 * 24 * 60 * MINUTE + 1);
    await u.sessions.signIn("alice", "alice-pass-1");
    expect(await store.sessions.findSessionByHash(forgotten.session.tokenHash)).toBeNull();
  });

  it("ends sessions on sign-out and on every password change", async () => {
    const a = await u.sessions.signIn("alice", "alice-pass-1");
    const b = await u.sessions.signIn("alice", "alice-pass-1");
    await u.sessions.signOut(a.token);
    await u.sessions.signOut(a.token);
    expect((await fail(u.sessions.authenticate(a.token))).code).toBe("UNAUTHENTICATED");
    await u.sessions.authenticate(b.token);

    expect((await fail(u.users.changePassword(as(alice), "not-it-at-all", "alice-pass-2"))).reason).toBe(
      "CURRENT_PASSWORD_INVALID",
    );
    expect((await fail(u.users.changePassword(as(alice), "alice-pass-1", "short"))).reason).toBe("PASSWORD_TOO_SHORT");
    await u.users.changePassword(as(alice), "alice-pass-1", "alice-pass-2");
    expect((await fail(u.sessions.authenticate(b.token))).code).toBe("UNAUTHENTICATED");
    await fail(u.sessions.signIn("alice", "alice-pass-1"));
    const c = await u.sessions.signIn("alice", "alice-pass-2");

    await u.users.updateUser(sys, alice, { password: "set-by-admin" });
    expect((await fail(u.sessions.authenticate(c.token))).code).toBe("UNAUTHENTICATED");
    await u.sessions.signIn("alice", "set-by-admin");
  });

  it("refuses blocked users' sessions, tokens and sign-ins with 403", async () => {
    const s = await u.sessions.signIn("alice", "alice-pass-1");
    const { token } = await u.tokens.createToken(sys, { userId: alice, name: "t", scopes: ["api"], expiresAt: "" });
    await u.users.setBlocked(sys, alice, true);
    const blocked = {
      code: "PERMISSION_DENIED",
      reason: "USER_BLOCKED",
      message: "403 Forbidden - Your account has been blocked.",
    };
    expect(await fail(u.sessions.authenticate(s.token))).toMatchObject(blocked);
    expect(await fail(u.tokens.authenticate(token))).toMatchObject(blocked);
    expect(await fail(u.sessions.signIn("alice", "alice-pass-1"))).toMatchObject(blocked);
    // A wrong password tells a blocked user's guesser nothing more.
    expect((await fail(u.sessions.signIn("alice", "wrong"))).code).toBe("UNAUTHENTICATED");
    await u.users.setBlocked(sys, alice, false);
    await u.sessions.authenticate(s.token);
  });

  it("reserves top-level paths that console addresses use", async () => {
    for (const name of ["users", "Admin", "api", "assets", "metrics"]) {
      const err = await fail(u.users.createUser(sys, { username: name, email: `${name}@x.io`, name, admin: false }));
      expect(err).toMatchObject({ code: "INVALID_ARGUMENT", reason: "RESERVED_PATH" });
      expect((await fail(u.groups.createGroup(as(alice), { name, path: name, parentId: 0, plan: null }))).reason).toBe(
        "RESERVED_PATH",
      );
    }
    const top = await u.groups.createGroup(as(alice), { name: "Ops", path: "ops", parentId: 0, plan: null });
    // Below the top level they shadow nothing.
    await u.groups.createGroup(as(alice), { name: "admin", path: "admin", parentId: top.group.id, plan: null });
  });
});
