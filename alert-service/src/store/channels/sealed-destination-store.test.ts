import { SecretBox, silentLogger } from "@tocsin/core";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DestinationStore } from "../../domain/channels/ports.js";
import { destination } from "./contract.js";
import { sealedDestinationStore, sealPlainSecrets } from "./sealed-destination-store.js";
import { createSqliteDestinationStore } from "./sqlite-destination-store.js";

const box = new SecretBox("test-secret-key-0123456789abcdef");
const hookFields = { token: "t0k-plain", signingSecret: "whsec_c2VjcmV0", signing: true, url: "https://rx.example.com/h" };

describe("destinations sealed at rest", () => {
  let db: Database.Database;
  let raw: DestinationStore;
  const stored = (id: number) =>
    db
      .prepare("SELECT url, token, signing_secret, previous_signing_secret FROM channel_destinations WHERE id = ?")
      .get(id) as Record<string, string | null>;
  beforeEach(() => {
    db = new Database(":memory:");
    raw = createSqliteDestinationStore(db);
  });
  afterEach(() => db.close());

  it("seals the credentials on write and opens them on read", async () => {
    const store = sealedDestinationStore(raw, box);
    const hook = await store.insert(destination(1, "hook", hookFields));
    expect(hook).toMatchObject(hookFields);
    const row = stored(hook.id);
    for (const column of ["url", "token", "signing_secret"]) expect(row[column]).toMatch(/^sealed:v1:[0-9a-f:]+$/);
    expect(JSON.stringify(row)).not.toMatch(/t0k-plain|whsec_|rx\.example/);
    const rotated = { signingSecret: "whsec_bmV3", previousSigningSecret: "whsec_c2VjcmV0" };
    await store.update(1, hook.id, { ...rotated, at: new Date() });
    expect(stored(hook.id).previous_signing_secret).toMatch(/^sealed:v1:/);
    expect(await store.get(1, hook.id)).toMatchObject(rotated);
    expect((await store.list(1))[0]).toMatchObject({ token: "t0k-plain" });
    expect((await store.all())[0]).toMatchObject({ url: "https://rx.example.com/h" });
  });

  it("reads values stored in plain as they are, and seals them once at start, keeping updated_at", async () => {
    const plain = await raw.insert(destination(1, "hook", hookFields));
    const slack = await raw.insert(destination(1, "slack", { url: "https://hooks.slack.com/services/T/B/x" }));
    const store = sealedDestinationStore(raw, box);
    expect(await store.get(1, plain.id)).toMatchObject(hookFields);
    expect(await sealPlainSecrets(raw, box, silentLogger())).toBe(2);
    expect(stored(plain.id).token).toMatch(/^sealed:v1:/);
    expect(stored(slack.id).url).toMatch(/^sealed:v1:/);
    expect(await store.get(1, plain.id)).toMatchObject({ ...hookFields, updatedAt: plain.updatedAt });
    expect(await store.chat(1, "slack")).toMatchObject({ url: "https://hooks.slack.com/services/T/B/x" });
    expect(await sealPlainSecrets(raw, box, silentLogger())).toBe(0);
  });

  it("reads a plain token that only starts like a sealed value as it is", async () => {
    const hook = await raw.insert(destination(1, "hook", { token: "sealed:v1:not-hex" }));
    expect((await sealedDestinationStore(raw, box).get(1, hook.id))?.token).toBe("sealed:v1:not-hex");
  });

  it("refuses to read sealed values without their key, and writes plain without a key", async () => {
    const hook = await sealedDestinationStore(raw, box).insert(destination(1, "hook", hookFields));
    const other = sealedDestinationStore(raw, new SecretBox("another-key-0123456789abcdef"));
    await expect(other.get(1, hook.id)).rejects.toMatchObject({ reason: "SECRET_UNREADABLE" });
    await expect(sealedDestinationStore(raw, undefined).list(1)).rejects.toMatchObject({ reason: "SECRET_UNREADABLE" });
    const keyless = sealedDestinationStore(raw, undefined);
    const plain = await keyless.insert(destination(2, "hook", hookFields));
    expect(stored(plain.id).token).toBe("t0k-plain");
  });
});
