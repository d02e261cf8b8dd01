import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";
import { invalidArgument } from "@tocsin/core";

const PASSWORD_MIN_LENGTH = 8;
const PASSWORD_MAX_LENGTH = 128;

/** scrypt cost N=2^15, r=8, p=1 (≈32 MiB, tens of milliseconds): slow for a guesser, fine for a sign-in. */
const DEFAULT_PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** 400 `{"message":{"password":["is too short (minimum is 8 characters)"]}}` and the like. */
export function validatePassword(password: string): string {
  const rule =
    password.length < PASSWORD_MIN_LENGTH
      ? `is too short (minimum is ${PASSWORD_MIN_LENGTH} characters)`
      : password.length > PASSWORD_MAX_LENGTH
        ? `is too long (maximum is ${PASSWORD_MAX_LENGTH} characters)`
        : null;
  if (rule) {
    const reason = password.length < PASSWORD_MIN_LENGTH ? "PASSWORD_TOO_SHORT" : "PASSWORD_TOO_LONG";
    throw invalidArgument(reason, `password ${rule}`, { password: [rule] });
  }
  return password;
}

/** `scrypt$N$r$p$<salt b64>$<key b64>`: a per-password random salt, the parameters kept with the hash. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, DEFAULT_PARAMS);
  const { N, r, p } = DEFAULT_PARAMS;
  return ["scrypt", N, r, p, salt.toString("base64"), key.toString("base64")].join("$");
}

/** Constant-time check of `password` against a stored hash; false for a malformed or missing one. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? "").split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") {
    // Spend the same time as a real check, so that "no such user" cannot be told apart by timing.
    await derive(password, DUMMY_SALT, DEFAULT_PARAMS);
    return false;
  }
  const [, n, r, p, salt, key] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(key, "base64");
  const actual = await derive(password, Buffer.from(salt, "base64"), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const DUMMY_SALT = randomBytes(SALT_BYTES);
