import type { EventBus } from "./event-bus.js";

/**
 * Something AuthenticateToken, AuthenticateSession, GetProject, GetGroup, ListUserGroups or
 * ListEmails answers may have changed (WatchAccessChanges).
 */
export interface AccessEvent {
  /** Revoked tokens: their principals are stale. */
  revokedTokenIds: number[];
  /** Users whose memberships, visible sources or e-mail addresses changed. */
  userIds: number[];
  /** Every cached answer may be stale. */
  all: boolean;
  /** Ended console sessions (sign-out, password change); absent when none. */
  endedSessionIds?: number[];
}

/**
 * Announces access changes to every WatchAccessChanges stream of every replica. Each method
 * resolves once the bus has carried the event (EventBus.publish), so a mutating call answers
 * only after the caches were told.
 */
export class AccessEvents {
  constructor(private readonly bus: EventBus) {}

  tokenRevoked(tokenId: number): Promise<void> {
    return this.bus.publish({ access: { revokedTokenIds: [tokenId], userIds: [], all: false } });
  }

  userChanged(userId: number): Promise<void> {
    return this.bus.publish({ access: { revokedTokenIds: [], userIds: [userId], all: false } });
  }

  async sessionsEnded(sessionIds: number[]): Promise<void> {
    if (sessionIds.length)
      await this.bus.publish({ access: { revokedTokenIds: [], userIds: [], all: false, endedSessionIds: sessionIds } });
  }

  everything(): Promise<void> {
    return this.bus.publish({ access: { revokedTokenIds: [], userIds: [], all: true } });
  }
}
