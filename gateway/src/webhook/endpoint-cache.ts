import type { CallContext, Logger } from "@tocsin/core";
import { createWatchStream } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import type { AuthClient } from "../deps.js";
import type { EndpointKind } from "./match.js";

export type Resolution = authV1.ResolveIntegrationEndpointResponse;

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

interface Entry {
  value: Resolution;
  expiresAt: number;
  pathKey: string;
}

/**
 * ResolveIntegrationEndpoint answers cached per (full path lowercased, kind, identifier), negative
 * ones included, for `ttlMs`, in a bounded LRU. auth-service's WatchIntegrationKeys stream drops
 * a project's answers the moment its keys change; while the stream is down nothing is cached.
 */
export function createEndpointCache(options: EndpointCacheOptions): EndpointCache {
  const { auth, logger } = options;
  const ttlMs = options.ttlMs ?? 30_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  // Bumped by every invalidation, so that a lookup that raced a change is not cached.
  let generation = 0;
  const watch = createWatchStream<authV1.WatchIntegrationKeysResponse>({
    open: () => auth.stream("watchIntegrationKeys", {}, { requestId: "gateway-endpoint-watch" }),
    waitForReady: (ms) => auth.waitForReady(ms),
    logger,
    name: "webhook endpoint cache",
    minBackoffMs: options.minBackoffMs,
    maxBackoffMs: options.maxBackoffMs,
    onUp: () => {
      generation++;
      entries.clear();
    },
    onDown: () => {
      generation++;
      entries.clear();
    },
    onEvent: (e) => {
      generation++;
      if (e.all) return entries.clear();
      const path = e.projectFullPath.toLowerCase();
      for (const [key, entry] of entries) {
        if (entry.pathKey === path || (e.projectId !== 0 && entry.value.projectId === e.projectId)) entries.delete(key);
      }
    },
  });

  return {
    async resolve(fullPath, kind, identifier, ctx) {
      const pathKey = fullPath.toLowerCase();
      const key = `${pathKey}\u0000${kind}\u0000${identifier}`;
      const hit = entries.get(key);
      if (hit && hit.expiresAt > now() && watch.live()) {
        entries.delete(key);
        entries.set(key, hit);
        return hit.value;
      }
      const startedAt = generation;
      const value = await auth.resolveIntegrationEndpoint(
        { projectFullPath: fullPath, kind: KIND[kind], endpointIdentifier: identifier },
        ctx,
      );
      if (watch.live() && startedAt === generation) {
        entries.delete(key);
        entries.set(key, { value, expiresAt: now() + ttlMs, pathKey });
        while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      }
      return value;
    },
    watching: () => watch.live(),
    size: () => entries.size,
    close() {
      watch.close();
      entries.clear();
      logger.debug("endpoint cache closed");
    },
  };
}
