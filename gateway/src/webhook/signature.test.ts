import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifySignature } from "./signature.js";

const secret = "a".repeat(64);
const body = Buffer.from('{"title":"signed"}');
const sign = (t: number, b = body) => createHmac("sha256", secret).update(`${t}.`).update(b).digest("hex");

describe("X-Tocsin-Signature", () => {
  const now = 1_800_000_000;
  it("accepts the HMAC of '<t>.<raw body>' within 300 s either way", () => {
    expect(verifySignature(`t=${now},v1=${sign(now)}`, secret, body, now)).toBe("ok");
    expect(verifySignature(`t=${now - 300},v1=${sign(now - 300)}`, secret, body, now)).toBe("ok");
    expect(verifySignature(` t=${now + 299} , v1=${"0".repeat(64)}, v1=${sign(now + 299)}`, secret, body, now)).toBe("ok");
  });
  it("says which: missing, malformed, stale (10 minutes old), wrong", () => {
    expect(verifySignature(undefined, secret, body, now)).toBe("missing");
    expect(verifySignature("sha256=abc", secret, body, now)).toBe("malformed");
    expect(verifySignature(`t=${now - 600},v1=${sign(now - 600)}`, secret, body, now)).toBe("stale");
    expect(verifySignature(`t=${now},v1=${sign(now, Buffer.from("{}"))}`, secret, body, now)).toBe("wrong");
    expect(verifySignature(`t=${now},v1=${sign(now + 1)}`, secret, body, now)).toBe("wrong");
  });
});
