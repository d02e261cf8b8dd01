import { type Clock, TtlCache } from "@tocsin/core";
import type { IntegrationDirectory } from "../ports.js";
import type { IntegrationRuntime } from "../types.js";
import type { IntegrationStore } from "./ports.js";

/** How long a looked-up integration is reused by this process (other instances' writes). */
export const DIRECTORY_TTL_MS = 5_000;

/**
 * The integrations as processing sees them, with a short in-process cache (this is on the ingest
 * hot path). Every local write calls `invalidate()`, so this instance never serves its own stale
 * data; other instances' writes are seen within DIRECTORY_TTL_MS.
 */
export function createIntegrationDirectory(store: IntegrationStore, clock: Clock): IntegrationDirectory & { invalidate(): void } {
  let generation = 0;
  // Values are wrapped: a cached `undefined` (no such integration) is a hit too.
  const cache = new TtlCache<string, { value: unknown }>({ ttlMs: DIRECTORY_TTL_MS, now: () => clock.now().getTime() });

  async function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    if (hit) return hit.value as T;
    const startedAt = generation;
    const value = await load();
    // A write during the load may have made `value` stale: do not keep it.
    if (startedAt === generation) cache.set(key, { value });
    return value;
  }

  return {
    get(projectId, integrationId) {
      return cached(`i:${projectId}:${integrationId}`, async (): Promise<IntegrationRuntime | undefined> => {
        const record = await store.get(projectId, integrationId);
        if (!record || record.type === "opsgenie") return undefined;
        return {
          id: record.id,
          projectId: record.projectId,
          name: record.name,
          type: record.type,
          active: record.active,
          mapping: record.mapping,
          rateLimitPerMinute: record.rateLimitPerMinute,
          autoResolveMinutes: record.autoResolveMinutes,
        };
      });
    },
    opsgenieUrl(projectId) {
      return cached(`o:${projectId}`, async () => {
        const record = await store.findSingleton(projectId, "opsgenie");
        return record?.active && record.apiUrl ? record.apiUrl : undefined;
      });
    },
    invalidate() {
      generation++;
      cache.clear();
    },
  };
}
