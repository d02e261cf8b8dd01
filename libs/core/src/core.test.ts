import { describe, expect, it } from "vitest";
import { ConfigError, commonEnv, parseConfig, storageEnv, z } from "./config.js";
import { actingFor, internalContext } from "./context.js";
import { randomHex, SecretBox, safeEqual, sha1Hex, sha256, uuidV7 } from "./crypto.js";
import { AppError, toAppError } from "./errors.js";
import { toPage } from "./paging.js";

describe("parseConfig", () => {
  const schema = z.object({ ...commonEnv, ...storageEnv, SECRET_KEY: z.string().min(16).optional() });

  it("applies defaults and treats empty variables as unset", () => {
    const cfg = parseConfig(schema, { LOG_LEVEL: "", AUTH_SERVICE_ADDR: "127.0.0.1:6000" });
    expect(cfg.LOG_LEVEL).toBe("info");
    expect(cfg.AUTH_SERVICE_ADDR).toBe("127.0.0.1:6000");
    expect(cfg.SETTINGS_SERVICE_ADDR).toBe("127.0.0.1:50053");
    expect(cfg.DATA_DIR).toBe("./data");
  });

  it("names every bad variable in one error and never echoes values", () => {
    const secret = "short-secret";
    let caught: unknown;
    try {
      parseConfig(schema, { LOG_LEVEL: "loud", MONGO_URL: "http://x", AUTH_SERVICE_ADDR: "nope", SECRET_KEY: secret });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as Error).message;
    for (const name of ["LOG_LEVEL", "MONGO_URL", "AUTH_SERVICE_ADDR", "SECRET_KEY"]) expect(message).toContain(name);
    expect(message).not.toContain(secret);
    expect((caught as ConfigError).problems).toHaveLength(4);
  });
});

describe("AppError", () => {
  it("keeps code, reason, fields and hides the cause from the message", () => {
    const err = new AppError("INVALID_ARGUMENT", "EMAIL_NOT_VERIFIED", "bad", {
      fields: { notification_email: ["must be an email you have verified"] },
      cause: new Error("db detail"),
    });
    expect(err.code).toBe("INVALID_ARGUMENT");
    expect(err.fields?.notification_email?.[0]).toBe("must be an email you have verified");
    expect(err.message).toBe("bad");
  });

  it("turns unknown errors into INTERNAL with a safe message", () => {
    const err = toAppError(new Error("password=hunter2"));
    expect(err.code).toBe("INTERNAL");
    expect(err.message).toBe("500 Internal Server Error");
  });
});

describe("crypto", () => {
  it("seals and opens with a fresh IV each time, and rejects tampering", () => {
    const box = new SecretBox("key-one");
    const token = randomHex(16);
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    const a = box.seal(token);
    const b = box.seal(token);
    expect(a).not.toBe(b);
    expect(a).not.toContain(token);
    expect(box.open(a)).toBe(token);
    expect(() => new SecretBox("key-two").open(a)).toThrow();
  });

  it("compares in constant time and hashes like the reference", () => {
    expect(safeEqual(sha256("a"), sha256("a"))).toBe(true);
    expect(safeEqual(sha256("a"), sha256("b"))).toBe(false);
    expect(safeEqual(Buffer.from("a"), Buffer.from("ab"))).toBe(false);
    expect(sha1Hex("fingerprint")).toBe("b5448ce070e8ff567c4870e9fe0aeba3c0a98330");
  });

  it("makes version 7 UUIDs: the time first, so later ids sort later, and random bits after it", () => {
    const at = Date.parse("2026-11-24T13:45:00.000Z");
    const id = uuidV7(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(id.replace("-", "").slice(0, 12), 16)).toBe(at);
    expect(uuidV7(at)).not.toBe(id);
    const ids = [uuidV7(at + 1), uuidV7(at), uuidV7(at + 1000), uuidV7(at + 2)];
    expect([...ids].sort()).toEqual([ids[1], ids[0], ids[3], ids[2]]);
    expect(uuidV7()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  });
});

describe("toPage", () => {
  it("defaults to page 1 of 20 and caps per_page at 100", () => {
    expect(toPage()).toEqual({ page: 1, perPage: 20 });
    expect(toPage(3, 500)).toEqual({ page: 3, perPage: 100 });
    expect(toPage(-1, 0)).toEqual({ page: 1, perPage: 20 });
  });
});

describe("call contexts for downstream calls", () => {
  const caller = { requestId: "r1", principal: { userId: 7 }, deadlineMs: 1_700_000_000_000 };
  it("keep the request id and the caller's deadline, and drop or replace the principal", () => {
    expect(internalContext(caller)).toEqual({ requestId: "r1", deadlineMs: 1_700_000_000_000 });
    expect(actingFor(caller, 9)).toEqual({ requestId: "r1", deadlineMs: 1_700_000_000_000, principal: { userId: 9 } });
    expect(actingFor({ requestId: "r2" }, undefined)).toEqual({ requestId: "r2" });
  });
});
