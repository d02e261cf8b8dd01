import type { AppError } from "@tocsin/core";
import { FakeClock } from "@tocsin/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { SqliteAuthStore } from "../store/sqlite-auth-store.js";
import { TOKEN_EXPIRED_MESSAGE, TokenService } from "./tokens.js";
import type { UserRecord } from "./types.js";
import { isExpired, validateExpiresAt } from "./validation.js";

const sys = { requestId: "t" };
const fail = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail("expected a failure"),
    (e: unknown) => e as AppError,
  );

describe("personal access tokens", () => {
  let store: SqliteAuthStore;
  let clock: FakeClock;
  let tokens: TokenService;
  let user: UserRecord;

  beforeEach(async () => {
    store = new SqliteAuthStore(":memory:");
    clock = new FakeClock("2026-11-21T10:00:00.000Z");
    tokens = new TokenService(store, clock, { cacheTtlMs: 10_000 });
    user = await store.createUser({ username: "u", email: "u@example.com", name: "U", isAdmin: false, createdAt: clock.now() });
  });

  it("stores only the SHA-256 hash, never the plain token", async () => {
    const { token, record } = await tokens.createToken(sys, { userId: user.id, name: "ci", scopes: ["api"], expiresAt: "" });
    expect(token).toMatch(/^glpat-[A-Za-z0-9_-]{20}$/);
    expect(record.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    // biome-ignore lint/suspicious/noExplicitAny: reading the raw table on purpose
    const db = (store as any).db;
    const dump = JSON.stringify(db.prepare("SELECT * FROM tokens").all());
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(token.slice(6));
  });

  it("expires from the UTC day of expires_at on, even when cached", async () => {
    const { token } = await tokens.createToken(sys, {
      userId: user.id,
      name: "ci",
      scopes: ["read_api"],
      expiresAt: "2026-11-22",
    });
    expect(await tokens.authenticate(token)).toMatchObject({ userId: user.id, scopes: ["read_api"] });
    clock.set("2026-11-21T23:59:59.999Z");
    await tokens.authenticate(token);
    clock.set("2026-11-22T00:00:00.000Z");
    expect(await fail(tokens.authenticate(token))).toMatchObject({
      code: "UNAUTHENTICATED",
      reason: "TOKEN_EXPIRED",
      message: TOKEN_EXPIRED_MESSAGE,
    });
  });

  it("forgets cached answers on revocation and after the TTL", async () => {
    const { token, record } = await tokens.createToken(sys, { userId: user.id, name: "ci", scopes: ["api"], expiresAt: "" });
    await tokens.authenticate(token);
    await tokens.revokeToken({ requestId: "t", principal: { userId: user.id } }, record.id);
    expect((await fail(tokens.authenticate(token))).reason).toBe("TOKEN_REVOKED");

    const second = await tokens.createToken(sys, { userId: user.id, name: "ci2", scopes: ["api"], expiresAt: "" });
    await tokens.authenticate(second.token);
    // Revoked behind the service's back (another replica): visible once the TTL has passed.
    await store.setTokenRevoked(second.record.id, true);
    await tokens.authenticate(second.token);
    clock.advance(10_001);
    expect((await fail(tokens.authenticate(second.token))).reason).toBe("TOKEN_REVOKED");
  });

  it("never caches failures", async () => {
    expect((await fail(tokens.authenticate("glpat-unknown"))).reason).toBe("TOKEN_INVALID");
    expect((await fail(tokens.authenticate(""))).message).toBe("401 Unauthorized");
  });

  it("lets users create their own tokens, admins anyone's, and owners or admins revoke them", async () => {
    const other = await store.createUser({
      username: "o",
      email: "o@example.com",
      name: "O",
      isAdmin: false,
      createdAt: clock.now(),
    });
    const asOther = { requestId: "t", principal: { userId: other.id } };
    expect((await fail(tokens.createToken(asOther, { userId: user.id, name: "x", scopes: ["api"], expiresAt: "" }))).code).toBe(
      "PERMISSION_DENIED",
    );
    const own = await tokens.createToken(asOther, { userId: other.id, name: "mine", scopes: ["read_api"], expiresAt: "" });
    expect(own.record).toMatchObject({ userId: other.id, name: "mine" });
    expect((await tokens.listTokens(asOther, other.id)).map((t) => t.name)).toEqual(["mine"]);
    expect((await fail(tokens.listTokens(asOther, user.id))).code).toBe("PERMISSION_DENIED");
    const { record } = await tokens.createToken(sys, { userId: user.id, name: "ci", scopes: ["api"], expiresAt: "" });
    expect((await fail(tokens.revokeToken(asOther, record.id))).code).toBe("NOT_FOUND");
    await tokens.revokeToken(sys, record.id);
    await tokens.revokeToken(sys, record.id);
  });

  it("validates scopes and dates", async () => {
    for (const scopes of [[], ["write_repository"], ["api", "sudo"]]) {
      const err = await fail(tokens.createToken(sys, { userId: user.id, name: "x", scopes, expiresAt: "" }));
      expect(err).toMatchObject({ reason: "PARAM_VALUE_INVALID", message: "scopes does not have a valid value" });
    }
    expect(() => validateExpiresAt("2026-02-30")).toThrow("expires_at is invalid");
    expect(() => validateExpiresAt("tomorrow")).toThrow("expires_at is invalid");
    expect(isExpired("2026-11-22", new Date("2026-11-21T23:59:59Z"))).toBe(false);
    expect(isExpired(null, new Date("2999-01-01"))).toBe(false);
  });
});
