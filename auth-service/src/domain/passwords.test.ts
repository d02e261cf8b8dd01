import { AppError } from "@tocsin/core";
import { describe, expect, it } from "vitest";
import { hashPassword, validatePassword, verifyPassword } from "./passwords.js";

describe("passwords", () => {
  it("hashes with a per-password salt and the parameters kept with the hash", async () => {
    const a = await hashPassword("correct horse");
    const b = await hashPassword("correct horse");
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse", a)).toBe(true);
    expect(await verifyPassword("correct horse", b)).toBe(true);
    expect(await verifyPassword("correct horsE", a)).toBe(false);
  });

  it("refuses missing or malformed hashes", async () => {
    expect(await verifyPassword("anything", null)).toBe(false);
    expect(await verifyPassword("anything", "plain")).toBe(false);
  });

  it("names the length rule", () => {
    const err = (() => {
      try {
        validatePassword("short");
      } catch (e) {
        return e as AppError;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ reason: "PASSWORD_TOO_SHORT", fields: { password: ["is too short (minimum is 8 characters)"] } });
    expect(validatePassword("12345678")).toBe("12345678");
  });
});
