import type { CallContext, Logger } from "@tocsin/core";
import { type CacheTag, createWatchedCache } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import type { AuthClient } from "../deps.js";
import type { EndpointKind } from "./match.js";

type Resolution = authV1.ResolveIntegrationEndpointResponse;

export interface EndpointCacheOptions {
  auth: AuthClient;
  logger: Logger;
  /** How long an answer (positive or negative) is reused. */
  ttlMs?: number;
  /** Most answers kept; the least recently used go first. */
  maxEntries?: number;
  /** First reconnect delay of the watch stream; doubles up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  now?: () => number;
}

export interface EndpointCache {
  resolve(fullPath: string, kind: EndpointKind, identifier: string, ctx: CallContext): Promise<Resolution>;
  /** True while the watch stream is up (answers are cached only then). */
  watching(): boolean;
  size(): number;
  close(): void;
}

const KIND: Record<EndpointKind, authV1.EndpointKind> = {
  http: authV1.EndpointKind.ENDPOINT_KIND_HTTP,
  http_legacy: authV1.EndpointKind.ENDPOINT_KIND_HTTP_LEGACY,
  prometheus: authV1.EndpointKind.ENDPOINT_KIND_PROMETHEUS,
};

/**
 * ResolveIntegrationEndpoint answers cached per (full path lowercased, kind, identifier), negative
 * ones included, for `ttlMs`, in a bounded LRU (`createWatchedCache`). auth-service's
 * WatchIntegrationKeys stream drops a project's answers (by path or id) the moment its keys
 * change; while the stream is down nothing is cached.
 */
export function createEndpointCache(options: EndpointCacheOptions): EndpointCache {
  const { auth, logger } = options;
  const cache = createWatchedCache<authV1.WatchIntegrationKeysResponse>({
    open: () => auth.stream("watchIntegrationKeys", {}, { requestId: "gateway-endpoint-watch" }),
    waitForReady: (ms) => auth.waitForReady(ms),
    logger,
    name: "webhook endpoint cache",
    minBackoffMs: options.minBackoffMs,
    maxBackoffMs: options.maxBackoffMs,
    ttlMs: options.ttlMs,
    maxEntries: options.maxEntries,
    now: options.now,
    staleOn: (e) => (e.all ? "all" : new Set<CacheTag>([e.projectFullPath.toLowerCase(), ...(e.projectId ? [e.projectId] : [])])),
  });

  return {
    resolve(fullPath, kind, identifier, ctx) {
      const pathKey = fullPath.toLowerCase();
      return cache.get(
        `${pathKey}\u0000${kind}\u0000${identifier}`,
        () =>
          auth.resolveIntegrationEndpoint({ projectFullPath: fullPath, kind: KIND[kind], endpointIdentifier: identifier }, ctx),
        // Dropped by an event naming the path asked for, or the project it resolved to.
        { tag: (value) => (value.projectId ? [pathKey, value.projectId] : [pathKey]) },
      );
    },
    watching: () => cache.live(),
    size: () => cache.size(),
    close: () => cache.close(),
  };
}
