import { createHash, randomBytes } from "node:crypto";
import { AppError, type Clock, sha256Hex, unauthenticated } from "@tocsin/core";
import type { AccessEvents } from "./access-events.js";
import { verifyPassword } from "./passwords.js";
import type { AuthStore } from "./ports.js";
import type { SignInThrottle } from "./sign-in-throttle.js";
import type { SessionRecord, UserRecord } from "./types.js";

const SESSION_IDLE_MS = 7 * 24 * 3600_000;
/** The idle clock is written at most this often, so that a busy console costs no write per request. */
const SESSION_TOUCH_INTERVAL_MS = 3600_000;
const INVALID_LOGIN_MESSAGE = "Invalid login or password.";
const BLOCKED_MESSAGE = "403 Forbidden - Your account has been blocked.";

const invalidLogin = () => unauthenticated("LOGIN_INVALID", INVALID_LOGIN_MESSAGE);
export const userBlocked = () => new AppError("PERMISSION_DENIED", "USER_BLOCKED", BLOCKED_MESSAGE);

/** The CSRF token of a session: derived from the plain token, which only the browser and the request carry. */
function csrfTokenFor(sessionToken: string): string {
  return createHash("sha256").update(`tocsin-csrf:${sessionToken}`, "utf8").digest("base64url");
}

export interface ActiveSession {
  session: SessionRecord;
  user: UserRecord;
  csrfToken: string;
}

export interface NewSession extends ActiveSession {
  /** The plain session token (the cookie); never stored. */
  token: string;
  idleExpiresAt: Date;
}

/** Console sessions: sign-in with a password, the per-request look-up, sign-out. */
export class SessionService {
  constructor(
    private readonly store: AuthStore,
    private readonly clock: Clock,
    private readonly throttle: SignInThrottle,
    private readonly access?: AccessEvents,
  ) {}

  /** Username or confirmed e-mail; one answer for every failure, and the same one while locked. */
  async signIn(login: string, password: string): Promise<NewSession> {
    const user = await this.findByLogin(login.trim());
    const key = user ? `user:${user.id}` : `login:${login.trim().toLowerCase()}`;
    if (await this.throttle.locked(key)) {
      await verifyPassword(password, null);
      throw invalidLogin();
    }
    if (!user || !(await verifyPassword(password, user.passwordHash))) {
      await this.throttle.fail(key);
      throw invalidLogin();
    }
    if (user.blocked) throw userBlocked();
    await this.throttle.clear(key);
    const token = randomBytes(32).toString("base64url");
    const now = this.clock.now();
    // Sessions nobody came back to would otherwise stay forever; a sign-in is rare enough to sweep them.
    await this.store.sessions.deleteSessionsIdleSince(new Date(now.getTime() - SESSION_IDLE_MS));
    const session = await this.store.sessions.insertSession({
      userId: user.id,
      tokenHash: sha256Hex(token),
      createdAt: now,
      lastSeenAt: now,
    });
    return { session, user, token, csrfToken: csrfTokenFor(token), idleExpiresAt: new Date(now.getTime() + SESSION_IDLE_MS) };
  }

  /** UNAUTHENTICATED SESSION_INVALID, or PERMISSION_DENIED USER_BLOCKED. Slides the idle expiry. */
  async authenticate(token: string): Promise<ActiveSession> {
    const session = token ? await this.store.sessions.findSessionByHash(sha256Hex(token)) : null;
    if (!session) throw unauthenticated("SESSION_INVALID");
    const now = this.clock.now().getTime();
    const idleMs = now - session.lastSeenAt.getTime();
    if (idleMs >= SESSION_IDLE_MS) {
      await this.store.sessions.deleteSession(session.id);
      await this.access?.sessionsEnded([session.id]);
      throw unauthenticated("SESSION_INVALID");
    }
    const user = await this.store.getUser(session.userId);
    if (!user) throw unauthenticated("SESSION_INVALID");
    if (user.blocked) throw userBlocked();
    if (idleMs >= SESSION_TOUCH_INTERVAL_MS) await this.store.sessions.touchSession(session.id, new Date(now));
    return { session, user, csrfToken: csrfTokenFor(token) };
  }

  /** Sign-out; idempotent. */
  async signOut(token: string): Promise<void> {
    const session = token ? await this.store.sessions.findSessionByHash(sha256Hex(token)) : null;
    if (session && (await this.store.sessions.deleteSession(session.id))) await this.access?.sessionsEnded([session.id]);
  }

  /** Ends every session of a user (password change). */
  async endSessionsOf(userId: number): Promise<void> {
    await this.access?.sessionsEnded(await this.store.sessions.deleteSessionsOfUser(userId));
  }

  /** Counts a failed password check of a signed-in user (a wrong current password) towards the lock. */
  async checkPassword(user: UserRecord, password: string): Promise<boolean> {
    const key = `user:${user.id}`;
    if (await this.throttle.locked(key)) return false;
    const ok = await verifyPassword(password, user.passwordHash);
    if (!ok) await this.throttle.fail(key);
    return ok;
  }

  private async findByLogin(login: string): Promise<UserRecord | null> {
    if (!login) return null;
    if (login.includes("@")) return this.store.findUserByConfirmedEmail(login);
    return this.store.findUserByUsername(login);
  }
}
