import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DestinationStore } from "../../domain/channels/ports.js";
import type { NewDestination } from "../../domain/channels/types.js";

const at = new Date("2026-11-25T10:00:00.000Z");
const later = new Date(at.getTime() + 60_000);

const destination = (projectId: number, kind: NewDestination["kind"], extra: Partial<NewDestination> = {}): NewDestination => ({
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
  });
}
