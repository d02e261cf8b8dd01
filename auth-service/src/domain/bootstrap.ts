import { setTimeout as delay } from "node:timers/promises";
import { AppError, type Clock, type Logger } from "@tocsin/core";
import { hashPassword, verifyPassword } from "./passwords.js";
import type { AuthStore } from "./ports.js";
import { hashToken } from "./tokens.js";
import type { UserRecord } from "./types.js";

const ROOT_USERNAME = "root";
const ROOT_EMAIL = "admin@example.com";
const BOOTSTRAP_TOKEN_NAME = "bootstrap";
/** How long a replica waits for the root user another replica is creating (50 × 100 ms). */
const ROOT_WAIT_ATTEMPTS = 50;
const ROOT_WAIT_STEP_MS = 100;

/**
 * Makes sure the admin `root` exists and that `adminToken` is one of its `api` tokens, named
 * `bootstrap`. Idempotent: a restart with the same value changes nothing; a new value gets a new
 * token and the previous bootstrap tokens are revoked.
 */
export async function ensureAdminToken(store: AuthStore, clock: Clock, adminToken: string, logger: Logger): Promise<UserRecord> {
  const root = await ensureRoot(store, clock);
  const hash = hashToken(adminToken);
  let existing = await store.findTokenByHash(hash);
  if (!existing) {
    try {
      await store.insertToken({
        userId: root.id,
        name: BOOTSTRAP_TOKEN_NAME,
        scopes: ["api"],
        expiresAt: null,
        revoked: false,
        tokenHash: hash,
        createdAt: clock.now(),
      });
      logger.info({ userId: root.id }, "bootstrap admin token installed");
    } catch (err) {
      // Another replica starting at the same moment installed it first.
      existing = await store.findTokenByHash(hash);
      if (!existing || !AppError.is(err) || err.code !== "ALREADY_EXISTS") throw err;
    }
  }
  if (existing && existing.userId !== root.id) throw new Error("ADMIN_TOKEN is already the token of another user");
  if (existing?.revoked) {
    await store.setTokenRevoked(existing.id, false);
  }
  for (const old of await store.listTokensByName(root.id, BOOTSTRAP_TOKEN_NAME)) {
    if (old.tokenHash !== hash && !old.revoked) await store.setTokenRevoked(old.id, true);
  }
  return root;
}

/**
 * Makes sure the admin `root` exists and signs in with `adminPassword`. Idempotent: a restart
 * with the same value writes nothing (the stored hash already matches); a new value replaces the
 * hash and ends root's console sessions.
 */
export async function ensureAdminPassword(
  store: AuthStore,
  clock: Clock,
  adminPassword: string,
  logger: Logger,
): Promise<UserRecord> {
  const root = await ensureRoot(store, clock);
  if (await verifyPassword(adminPassword, root.passwordHash)) return root;
  const updated = await store.updateUser(root.id, { passwordHash: await hashPassword(adminPassword) });
  await store.sessions.deleteSessionsOfUser(root.id);
  logger.info({ userId: root.id }, "root password set from ADMIN_PASSWORD");
  return updated ?? root;
}

async function ensureRoot(store: AuthStore, clock: Clock): Promise<UserRecord> {
  const found = await store.findUserByUsername(ROOT_USERNAME);
  if (found) return found;
  try {
    return await store.createUser({
      username: ROOT_USERNAME,
      email: ROOT_EMAIL,
      name: "Administrator",
      isAdmin: true,
      createdAt: clock.now(),
    });
  } catch (err) {
    if (!AppError.is(err) || err.code !== "ALREADY_EXISTS") throw err;
    // Another replica is creating it at this moment: its user follows its namespace, so wait for it.
    for (let attempt = 0; attempt < ROOT_WAIT_ATTEMPTS; attempt++) {
      const again = await store.findUserByUsername(ROOT_USERNAME);
      if (again) return again;
      await delay(ROOT_WAIT_STEP_MS);
    }
    throw err;
  }
}
