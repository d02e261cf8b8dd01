import { AppError } from "@tocsin/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { IntegrationStore } from "../../domain/integrations/ports.js";
import type { NewIntegration } from "../../domain/integrations/types.js";

const at = new Date("2026-11-21T10:00:00.000Z");
/** A new HTTP integration of `projectId`, inactive unless `extra` says so (created at the contract's fixed time). */
export const http = (projectId: number, name: string, extra: Partial<NewIntegration> = {}): NewIntegration => ({
  projectId,
  type: "http",
  name,
  active: false,
  payloadExample: "{}",
  mapping: null,
  apiUrl: "",
  rateLimitPerMinute: null,
  autoResolveMinutes: null,
  createdAt: at,
  ...extra,
});

/** One behavioural suite for every IntegrationStore adapter. */
export function describeIntegrationStoreContract(
  name: string,
  makeStore: () => Promise<{ store: IntegrationStore; cleanup: () => Promise<void> }>,
) {
  describe(`IntegrationStore contract: ${name}`, () => {
    let store: IntegrationStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await makeStore());
    });
    afterEach(async () => {
      await cleanup();
    });

    it("inserts with increasing ids and reads back every field", async () => {
      const mapping = { title: { path: ["alert", "name"], type: "string", label: "alert/name" } };
      const a = await store.insert(
        http(1, "Datadog", { active: true, payloadExample: '{"alert":{"name":"x"}}', mapping, rateLimitPerMinute: 120 }),
      );
      const b = await store.insert(http(1, "Other"));
      expect(b.id).toBeGreaterThan(a.id);
      expect(await store.get(1, a.id)).toEqual({
        id: a.id,
        projectId: 1,
        type: "http",
        name: "Datadog",
        active: true,
        payloadExample: '{"alert":{"name":"x"}}',
        mapping,
        apiUrl: "",
        rateLimitPerMinute: 120,
        autoResolveMinutes: null,
        tokenLastUsedAt: null,
        createdAt: at,
        updatedAt: at,
      });
      // token_last_used_at moves forward only, and leaves updated_at alone.
      const later = new Date(at.getTime() + 60_000);
      await store.touch(1, a.id, later);
      await store.touch(1, a.id, at);
      expect(await store.get(1, a.id)).toMatchObject({ tokenLastUsedAt: later, updatedAt: at });
      const updated = await store.update(1, a.id, { rateLimitPerMinute: 0, at });
      expect(updated?.rateLimitPerMinute).toBe(0);
      expect((await store.update(1, a.id, { autoResolveMinutes: 15, at }))?.autoResolveMinutes).toBe(15);
      expect((await store.update(1, a.id, { rateLimitPerMinute: null, at }))?.rateLimitPerMinute).toBeNull();
      expect(await store.get(2, a.id)).toBeUndefined();
    });

    it("keeps HTTP names unique per project, case-insensitively, in the database", async () => {
      await store.insert(http(1, "Datadog"));
      const err = await store.insert(http(1, "datadog")).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: "ALREADY_EXISTS" });
      await expect(store.insert(http(2, "Datadog"))).resolves.toMatchObject({ projectId: 2 });
    });

    it("keeps prometheus and opsgenie singletons per project", async () => {
      const p = await store.insert(http(1, "Prometheus", { type: "prometheus" }));
      await expect(store.insert(http(1, "Prometheus 2", { type: "prometheus" }))).rejects.toMatchObject({
        code: "ALREADY_EXISTS",
      });
      await store.insert(http(1, "Opsgenie", { type: "opsgenie" }));
      expect((await store.findSingleton(1, "prometheus"))?.id).toBe(p.id);
      expect((await store.findSingleton(1, "opsgenie"))?.type).toBe("opsgenie");
      expect(await store.findSingleton(2, "opsgenie")).toBeUndefined();
    });

    it("lists a project's integrations oldest first", async () => {
      const a = await store.insert(http(3, "A"));
      await store.insert(http(4, "elsewhere"));
      const b = await store.insert(http(3, "B", { type: "prometheus" }));
      expect((await store.list(3)).map((r) => r.id)).toEqual([a.id, b.id]);
    });

    it("applies partial updates and clears a mapping with null", async () => {
      const a = await store.insert(http(1, "A", { mapping: { title: { path: ["t"], type: "string" } } }));
      const later = new Date(at.getTime() + 1000);
      const u = await store.update(1, a.id, { active: true, payloadExample: '{"b":1}', at: later });
      expect(u).toMatchObject({ name: "A", active: true, payloadExample: '{"b":1}', updatedAt: later });
      expect(u?.mapping).toEqual({ title: { path: ["t"], type: "string" } });
      const cleared = await store.update(1, a.id, { mapping: null, name: "Renamed", apiUrl: "https://x.example", at: later });
      expect(cleared).toMatchObject({ mapping: null, name: "Renamed", apiUrl: "https://x.example" });
      expect(await store.update(2, a.id, { active: false, at: later })).toBeUndefined();
    });

    it("refuses a rename onto another integration's name", async () => {
      await store.insert(http(1, "A"));
      const b = await store.insert(http(1, "B"));
      await expect(store.update(1, b.id, { name: "a", at })).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
      await expect(store.update(1, b.id, { name: "b", at })).resolves.toMatchObject({ name: "b" });
    });

    it("deletes, once", async () => {
      const a = await store.insert(http(1, "A"));
      expect(await store.delete(2, a.id)).toBe(false);
      expect(await store.delete(1, a.id)).toBe(true);
      expect(await store.delete(1, a.id)).toBe(false);
      expect(await store.get(1, a.id)).toBeUndefined();
      await expect(store.insert(http(1, "A"))).resolves.toMatchObject({ name: "A" });
    });

    it("answers ping", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
