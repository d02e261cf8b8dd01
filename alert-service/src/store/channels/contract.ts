import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliveryLog, DestinationStore } from "../../domain/channels/ports.js";
import type { NewDestination } from "../../domain/channels/types.js";

const at = new Date("2026-11-25T10:00:00.000Z");
const later = new Date(at.getTime() + 60_000);

export const destination = (
  projectId: number,
  kind: NewDestination["kind"],
  extra: Partial<NewDestination> = {},
): NewDestination => ({
  projectId,
  kind,
  url: `https://hooks.example.com/${kind}/secret-path`,
  token: null,
  signingSecret: null,
  username: "",
  channel: "",
  alertChannel: "",
  incidentChannel: "",
  alertEvents: true,
  incidentEvents: false,
  enableSslVerification: true,
  signing: false,
  createdAt: at,
  ...extra,
});

/** One behavioural suite for every DestinationStore adapter. */
export function describeDestinationStoreContract(
  name: string,
  makeStore: () => Promise<{ store: DestinationStore; cleanup: () => Promise<void> }>,
) {
  describe(`DestinationStore contract: ${name}`, () => {
    let store: DestinationStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await makeStore());
    });
    afterEach(async () => {
      await cleanup();
    });

    it("inserts with increasing ids and reads back every field", async () => {
      const hook = await store.insert(
        destination(1, "hook", { token: "t0k", signingSecret: "whsec_abc", signing: true, incidentEvents: true }),
      );
      const slack = await store.insert(destination(1, "slack", { username: "tocsin", alertChannel: "#alerts" }));
      expect(slack.id).toBeGreaterThan(hook.id);
      expect(await store.get(1, hook.id)).toEqual({
        id: hook.id,
        projectId: 1,
        kind: "hook",
        url: "https://hooks.example.com/hook/secret-path",
        token: "t0k",
        signingSecret: "whsec_abc",
        previousSigningSecret: null,
        previousSigningSecretExpiresAt: null,
        username: "",
        channel: "",
        alertChannel: "",
        incidentChannel: "",
        alertEvents: true,
        incidentEvents: true,
        enableSslVerification: true,
        signing: true,
        disabled: false,
        createdAt: at,
        updatedAt: at,
      });
      expect(await store.chat(1, "slack")).toMatchObject({ id: slack.id, username: "tocsin", alertChannel: "#alerts" });
      expect(await store.chat(1, "mattermost")).toBeUndefined();
      expect(await store.get(2, hook.id)).toBeUndefined();
    });

    it("keeps one chat integration of a kind per project, in the database; hooks are many", async () => {
      await store.insert(destination(1, "slack"));
      await expect(store.insert(destination(1, "slack"))).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
      await expect(store.insert(destination(2, "slack"))).resolves.toMatchObject({ projectId: 2 });
      await store.insert(destination(1, "hook"));
      await store.insert(destination(1, "hook"));
      expect((await store.list(1, "hook")).length).toBe(2);
      expect((await store.list(1)).map((d) => d.kind)).toEqual(["slack", "hook", "hook"]);
    });

    it("updates only the given fields and deletes", async () => {
      const hook = await store.insert(destination(1, "hook", { token: "old" }));
      const updated = await store.update(1, hook.id, { token: null, disabled: true, alertEvents: false, at: later });
      expect(updated).toMatchObject({
        token: null,
        disabled: true,
        alertEvents: false,
        url: hook.url,
        updatedAt: later,
        createdAt: at,
      });
      expect(await store.update(2, hook.id, { disabled: false, at: later })).toBeUndefined();
      expect(await store.delete(2, hook.id)).toBe(false);
      expect(await store.delete(1, hook.id)).toBe(true);
      expect(await store.get(1, hook.id)).toBeUndefined();
      expect(await store.delete(1, hook.id)).toBe(false);
    });

    it("lists every project's destinations and updates only while unchanged when guarded", async () => {
      const a = await store.insert(destination(1, "hook", { token: "a" }));
      const b = await store.insert(destination(2, "slack"));
      expect((await store.all()).map((d) => d.id)).toEqual([a.id, b.id]);
      expect(await store.update(1, a.id, { token: "stale", at: later }, new Date(at.getTime() - 1))).toBeUndefined();
      expect((await store.get(1, a.id))?.token).toBe("a");
      expect(await store.update(1, a.id, { token: "fresh", at: later }, at)).toMatchObject({ token: "fresh" });
      expect(await store.update(1, a.id, { token: "again", at: later }, at)).toBeUndefined();
    });

    it("keeps a rotated signing secret and its overlap's end, and clears them", async () => {
      const hook = await store.insert(destination(1, "hook", { signingSecret: "whsec_old", signing: true }));
      const until = new Date(later.getTime() + 3_600_000);
      const rotation = { signingSecret: "whsec_new", previousSigningSecret: "whsec_old", previousSigningSecretExpiresAt: until };
      await store.update(1, hook.id, { ...rotation, at: later });
      expect(await store.get(1, hook.id)).toMatchObject(rotation);
      const cleared = { signingSecret: "whsec_newer", previousSigningSecret: null, previousSigningSecretExpiresAt: null };
      await store.update(1, hook.id, { ...cleared, at: later });
      expect(await store.get(1, hook.id)).toMatchObject(cleared);
    });
  });
}

export const delivery = (key: string, destinationId: number, createdAt: Date, eventType = "alert.triggered") => ({
  key,
  projectId: 1,
  destinationId,
  eventType,
  eventId: `7:${eventType}:${key}`,
  alertId: 7,
  createdAt,
});

/** One behavioural suite for every DeliveryLog adapter. */
export function describeDeliveryLogContract(
  name: string,
  makeLog: () => Promise<{ log: DeliveryLog; cleanup: () => Promise<void> }>,
) {
  describe(`DeliveryLog contract: ${name}`, () => {
    let log: DeliveryLog;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ log, cleanup } = await makeLog());
    });
    afterEach(async () => {
      await cleanup();
    });

    it("opens a delivery once per key and records its attempts", async () => {
      const a = await log.open(delivery("deliver:a:1", 1, at));
      expect(a).toMatchObject({
        key: "deliver:a:1",
        status: "retrying",
        attempts: 0,
        responseStatus: null,
        error: null,
        notBefore: null,
      });
      expect(await log.open(delivery("deliver:a:1", 1, later))).toEqual(a);
      await log.record(a.id, {
        status: "retrying",
        attempts: 1,
        responseStatus: 429,
        durationMs: 12,
        error: "HTTP 429",
        notBefore: later,
        at: later,
      });
      expect(await log.get(1, a.id)).toMatchObject({
        status: "retrying",
        attempts: 1,
        responseStatus: 429,
        durationMs: 12,
        notBefore: later,
        createdAt: at,
        updatedAt: later,
      });
      expect(await log.get(2, a.id)).toBeUndefined();
    });

    it("lists newest first without folded ones, ranks within a window, purges", async () => {
      const from = at;
      const to = new Date(at.getTime() + 600_000);
      const ids: number[] = [];
      for (let i = 0; i < 4; i++) ids.push((await log.open(delivery(`deliver:${i}:1`, 1, new Date(at.getTime() + i)))).id);
      await log.open(delivery("deliver:other:2", 2, at));
      await log.open(delivery("summary:1:0", 1, at, "summary"));
      await log.record(ids[3] as number, {
        status: "summarized",
        attempts: 0,
        responseStatus: null,
        durationMs: 0,
        error: null,
        notBefore: null,
        at,
      });
      expect(await log.rank(1, from, to, ids[2] as number)).toBe(3);
      expect(await log.rank(1, to, new Date(to.getTime() + 1), ids[2] as number)).toBe(0);
      expect(await log.summarized(1, from, to)).toBe(1);
      const listed = await log.list(1, at, 10);
      expect(listed.map((d) => d.key)).toEqual(["summary:1:0", "deliver:2:1", "deliver:1:1", "deliver:0:1"]);
      expect((await log.list(1, at, 2)).length).toBe(2);
      await log.purge(new Date(at.getTime() + 2));
      expect((await log.list(1, new Date(0), 10)).map((d) => d.key)).toEqual(["deliver:2:1"]);
    });
  });
}
