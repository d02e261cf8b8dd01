import type { Clock } from "@tocsin/core";
import type { AuthStore } from "./ports.js";

const MAX_FAILED_SIGN_INS = 10;
const FAILURE_WINDOW_MS = 10 * 60_000;
export const LOCK_MS = 10 * 60_000;

/**
 * Ten failed sign-ins for one login within 10 minutes lock it for 10 minutes from the tenth.
 * Failures live in the store (shared by every replica); attempts made while locked are not
 * counted, so a lock ends on time even under a steady guessing attack.
 */
export class SignInThrottle {
  constructor(
    private readonly store: AuthStore,
    private readonly clock: Clock,
  ) {}

  async locked(key: string): Promise<boolean> {
    const now = this.clock.now().getTime();
    const failures = (await this.store.sessions.listSignInFailures(key, new Date(now - FAILURE_WINDOW_MS - LOCK_MS))).map((d) =>
      d.getTime(),
    );
    for (let last = MAX_FAILED_SIGN_INS - 1; last < failures.length; last++) {
      const first = failures[last - MAX_FAILED_SIGN_INS + 1] as number;
      const lockedAt = failures[last] as number;
      if (lockedAt - first < FAILURE_WINDOW_MS && now - lockedAt < LOCK_MS) return true;
    }
    return false;
  }

  async fail(key: string): Promise<void> {
    const now = this.clock.now();
    await this.store.sessions.addSignInFailure(key, now, new Date(now.getTime() - FAILURE_WINDOW_MS - LOCK_MS));
  }

  async clear(key: string): Promise<void> {
    await this.store.sessions.clearSignInFailures(key);
  }
}
