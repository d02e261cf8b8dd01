import { EventHub } from "./event-hub.js";

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

/** In-process fan-out of access events to every WatchAccessChanges stream. */
export class AccessEventHub extends EventHub<AccessEvent> {
  tokenRevoked(tokenId: number): void {
    this.publish({ revokedTokenIds: [tokenId], userIds: [], all: false });
  }

  userChanged(userId: number): void {
    this.publish({ revokedTokenIds: [], userIds: [userId], all: false });
  }

  sessionsEnded(sessionIds: number[]): void {
    if (sessionIds.length) this.publish({ revokedTokenIds: [], userIds: [], all: false, endedSessionIds: sessionIds });
  }

  everything(): void {
    this.publish({ revokedTokenIds: [], userIds: [], all: true });
  }
}
