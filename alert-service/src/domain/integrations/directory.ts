import type { Clock } from "@tocsin/core";
import type { IntegrationDirectory } from "../ports.js";
import type { IntegrationRuntime } from "../types.js";
import type { IntegrationStore } from "./ports.js";

/** How long a looked-up integration is reused by this process (other instances' writes). */
export const DIRECTORY_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * The integrations as processing sees them, with a short in-process cache (this is on the ingest
 * hot path). Every local write calls `invalidate()`, so this instance never serves its own stale
 * data; other instances' writes are seen within DIRECTORY_TTL_MS.
 */
export function createIntegrationDirectory(store: IntegrationStore, clock: Clock): IntegrationDirectory & { invalidate(): void } {
  let generation = 0;
  const cache = new Map<string, Entry<unknown>>();

  async function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = clock.now().getTime();
    const hit = cache.get(key);
    if (hit && hit.expiresAt > now) return hit.value as T;
    const startedAt = generation;
    const value = await load();
    // A write during the load may have made `value` stale: do not keep it.
    if (startedAt === generation) {
      if (cache.size >= MAX_ENTRIES) cache.clear();
      cache.set(key, { value, expiresAt: now + DIRECTORY_TTL_MS });
    }
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
