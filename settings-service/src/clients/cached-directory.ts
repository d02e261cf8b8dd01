import type { Logger } from "@tocsin/core";
import { type AuthClient, createWatchedCache } from "@tocsin/grpc";
import type { authV1 } from "@tocsin/proto";
import type { Directory } from "../domain/ports.js";

export interface CachedDirectoryOptions {
  /** The stream of access changes comes from here. */
  auth: AuthClient;
  logger: Logger;
  /** How long an answer is reused at most (default 30 s). */
  ttlMs?: number;
  /** Most answers kept; the least recently used go first (default 10,000). */
  maxEntries?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  now?: () => number;
}

export interface CachedDirectory extends Directory {
  /** True while the WatchAccessChanges stream is up (answers are cached only then). */
  watching(): boolean;
  size(): number;
  close(): void;
}

/** Tag of answers for internal calls (no viewer): only `all` drops them. */
const INTERNAL = -1;

/**
 * `inner`'s successful answers to getProject, getGroup (per viewer and id or path), listEmails and
 * listUserGroups (per user), for at most `ttlMs`. auth-service's WatchAccessChanges stream drops a
 * user's answers the moment their memberships or e-mails change, and everything on `all` (plan
 * changes, new subgroups, reconnects); while it is down nothing is cached. NOT_FOUND and every
 * other failure is never cached, so a user added to a project sees it on the very next call.
 * listProjectMembers (recipient resolution) is not cached: its events name the new member, not
 * the project.
 */
export function createCachedDirectory(inner: Directory, options: CachedDirectoryOptions): CachedDirectory {
  const { auth } = options;
  const cache = createWatchedCache<authV1.WatchAccessChangesResponse>({
    open: () => auth.stream("watchAccessChanges", {}, { requestId: "settings-access-watch" }),
    waitForReady: (ms) => auth.waitForReady(ms),
    logger: options.logger,
    name: "settings directory cache",
    minBackoffMs: options.minBackoffMs,
    maxBackoffMs: options.maxBackoffMs,
    ttlMs: options.ttlMs,
    maxEntries: options.maxEntries,
    now: options.now,
    staleOn: (e) => (e.all ? "all" : new Set(e.userIds)),
  });
  const forUser = (userId: number | undefined) => ({ tag: () => userId ?? INTERNAL });
  const viewerKey = (viewerId: number | undefined) => (viewerId === undefined ? "*" : String(viewerId));

  return {
    getProject: (idOrPath, viewerId, ctx) =>
      cache.get(
        `project\0${viewerKey(viewerId)}\0${idOrPath}`,
        () => inner.getProject(idOrPath, viewerId, ctx),
        forUser(viewerId),
      ),
    getGroup: (idOrPath, viewerId, ctx) =>
      cache.get(`group\0${viewerId}\0${idOrPath}`, () => inner.getGroup(idOrPath, viewerId, ctx), forUser(viewerId)),
    listEmails: (userId, ctx) => cache.get(`emails\0${userId}`, () => inner.listEmails(userId, ctx), forUser(userId)),
    listUserGroups: (userId, ctx) => cache.get(`groups\0${userId}`, () => inner.listUserGroups(userId, ctx), forUser(userId)),
    listProjectMembers: (projectId, ctx) => inner.listProjectMembers(projectId, ctx),
    watching: () => cache.live(),
    size: () => cache.size(),
    close: () => cache.close(),
  };
}
