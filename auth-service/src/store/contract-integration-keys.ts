import { beforeEach, expect, it } from "vitest";
import type { AuthStore } from "../domain/ports.js";
import type { IntegrationKeyRecord } from "../domain/types.js";
import { at, later, reasonOf } from "./contract-fixtures.js";

const key = (integrationId: number, projectId: number, endpointIdentifier: string, createdAt = at): IntegrationKeyRecord => ({
  integrationId,
  projectId,
  type: "http",
  endpointIdentifier,
  sealedToken: `sealed-${integrationId}`,
  tokenSha256: `hash-${integrationId}`,
  active: true,
  createdAt,
  previousTokenSha256: null,
  previousTokenExpiresAt: null,
  sealedSigningSecret: null,
});

/** The AuthStore contract's integration-key cases; registered inside `describeAuthStoreContract`. */
export function registerIntegrationKeyCases(getStore: () => AuthStore): void {
  let store: AuthStore;
  beforeEach(() => {
    store = getStore();
  });

  it("keeps integration keys unique by id and by (project, endpoint), oldest first", async () => {
    const b = await store.insertIntegrationKey(key(2, 10, "bbbb", later(5)));
    const a = await store.insertIntegrationKey(key(1, 10, "aaaa", later(1)));
    const c = await store.insertIntegrationKey(key(3, 10, "cccc", later(5)));
    await store.insertIntegrationKey(key(4, 11, "aaaa"));
    expect(await reasonOf(store.insertIntegrationKey(key(1, 12, "zzzz")))).toBe("ALREADY_EXISTS:INTEGRATION_TAKEN");
    expect(await reasonOf(store.insertIntegrationKey(key(5, 10, "aaaa")))).toBe("ALREADY_EXISTS:ENDPOINT_TAKEN");
    expect(await store.listIntegrationKeys(10)).toEqual([a, b, c]);
    expect(await store.findIntegrationKeyByEndpoint(10, "bbbb")).toEqual(b);
    expect(await store.updateIntegrationKey(1, { active: false, sealedToken: "s2", tokenSha256: "h2" })).toEqual({
      ...a,
      active: false,
      sealedToken: "s2",
      tokenSha256: "h2",
    });
    const until = new Date("2026-11-22T10:00:00.000Z");
    expect(await store.updateIntegrationKey(1, { previousTokenSha256: "h1", previousTokenExpiresAt: until })).toMatchObject({
      tokenSha256: "h2",
      previousTokenSha256: "h1",
      previousTokenExpiresAt: until,
    });
    expect(await store.updateIntegrationKey(1, { previousTokenSha256: null, previousTokenExpiresAt: null })).toMatchObject({
      previousTokenSha256: null,
      previousTokenExpiresAt: null,
    });
    expect(await store.updateIntegrationKey(1, { sealedSigningSecret: "sealed" })).toMatchObject({
      sealedSigningSecret: "sealed",
    });
    expect(await store.updateIntegrationKey(1, { sealedSigningSecret: null })).toMatchObject({ sealedSigningSecret: null });
    expect(await store.updateIntegrationKey(99, { active: false })).toBeNull();
    expect(await store.deleteIntegrationKey(2)).toEqual(b);
    expect(await store.deleteIntegrationKey(2)).toBeNull();
    expect(await store.getIntegrationKey(2)).toBeNull();
  });
}
