import { FakeClock } from "@tocsin/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createSqliteIntegrationStore } from "../../store/integrations/sqlite-integration-store.js";
import { createIntegrationDirectory, DIRECTORY_TTL_MS } from "./directory.js";

describe("integration directory", () => {
  const setup = async () => {
    const store = createSqliteIntegrationStore(new Database(":memory:"));
    const clock = new FakeClock();
    const directory = createIntegrationDirectory(store, clock);
    const at = clock.now();
    const base = {
      projectId: 1,
      active: true,
      payloadExample: "{}",
      mapping: null,
      apiUrl: "",
      rateLimitPerMinute: null,
      autoResolveMinutes: null,
      createdAt: at,
    };
    const http = await store.insert({ ...base, type: "http", name: "Main", mapping: { title: { path: ["a"], type: "string" } } });
    return { store, clock, directory, http, base };
  };

  it("answers what processing needs, and nothing for other projects or opsgenie", async () => {
    const { directory, http, store, base } = await setup();
    expect(await directory.get(1, http.id)).toEqual({
      id: http.id,
      projectId: 1,
      name: "Main",
      type: "http",
      active: true,
      mapping: { title: { path: ["a"], type: "string" } },
      rateLimitPerMinute: null,
      autoResolveMinutes: null,
    });
    expect(await directory.get(2, http.id)).toBeUndefined();
    const ops = await store.insert({ ...base, type: "opsgenie", name: "Opsgenie", apiUrl: "https://ops.example" });
    expect(await directory.get(1, ops.id)).toBeUndefined();
    expect(await directory.opsgenieUrl(1)).toBe("https://ops.example");
    expect(await directory.opsgenieUrl(2)).toBeUndefined();
  });

  it("reuses answers for a few seconds, and drops them on invalidate() or after the TTL", async () => {
    const { directory, http, store, clock } = await setup();
    await directory.get(1, http.id);
    await store.update(1, http.id, { active: false, at: clock.now() });
    expect((await directory.get(1, http.id))?.active).toBe(true);
    directory.invalidate();
    expect((await directory.get(1, http.id))?.active).toBe(false);
    await store.update(1, http.id, { active: true, at: clock.now() });
    clock.advance(DIRECTORY_TTL_MS + 1);
    expect((await directory.get(1, http.id))?.active).toBe(true);
  });
});
