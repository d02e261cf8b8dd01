import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "@tocsin/store";
import { until } from "@tocsin/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteAlertsStores } from "./alerts/sqlite-stores.js";
import { delivery, destination } from "./channels/contract.js";
import { createSqliteDeliveryLog } from "./channels/sqlite-delivery-log.js";
import { createSqliteDestinationStore } from "./channels/sqlite-destination-store.js";
import { http } from "./integrations/contract.js";
import { createSqliteIntegrationStore } from "./integrations/sqlite-integration-store.js";
import { createSqliteMailStore } from "./mail/sqlite-mail-store.js";
import { silence } from "./silences/contract.js";
import { createSqliteSilenceStore } from "./silences/sqlite-silence-store.js";

type Sqlite = ReturnType<typeof openSqlite>;

/** alert-service's stores on one alert.db, as the main thread opens them (service.ts). */
function mainThreadStores(db: Sqlite) {
  return {
    ...createSqliteAlertsStores(db),
    integrations: createSqliteIntegrationStore(db),
    destinations: createSqliteDestinationStore(db),
    deliveries: createSqliteDeliveryLog(db),
    mail: createSqliteMailStore(db),
    silences: createSqliteSilenceStore(db),
  };
}
type Stores = ReturnType<typeof mainThreadStores>;

const at = new Date("2026-11-28T10:00:00.000Z");
const later = new Date(at.getTime() + 60_000);
const silenceId = "6f1c3d2e-0000-4000-8000-000000000001";

/** The first of a list the test seeded. */
async function first<T>(list: Promise<T[]>): Promise<T> {
  const [item] = await list;
  if (item === undefined) throw new Error("the seeded row is missing");
  return item;
}

/**
 * Every write the main thread makes to alert.db (API calls, the mail and channel workers, the
 * purge): each is made while another connection (the processing thread's batch) holds the file's
 * write lock, must still be pending after the event loop ran five timer ticks (it waits on timers,
 * not asleep in SQLite's busy handler, which would stop those ticks for up to 5 s and then fail),
 * and lands once the lock is free.
 */
const writes: Array<{ name: string; write: (s: Stores) => Promise<unknown>; landed: (s: Stores) => Promise<void> }> = [
  {
    name: "an integration's creation",
    write: (s) => s.integrations.insert(http(1, "Created")),
    landed: async (s) => expect((await s.integrations.list(1)).map((i) => i.name)).toContain("Created"),
  },
  {
    name: "an integration's change",
    write: async (s) => s.integrations.update(1, (await first(s.integrations.list(1))).id, { name: "Renamed", at: later }),
    landed: async (s) => expect((await first(s.integrations.list(1))).name).toBe("Renamed"),
  },
  {
    name: "an integration's removal",
    write: async (s) => s.integrations.delete(1, (await first(s.integrations.list(1))).id),
    landed: async (s) => expect(await s.integrations.list(1)).toEqual([]),
  },
  {
    name: "an integration key's use (the accept path)",
    write: async (s) => s.integrations.touch(1, (await first(s.integrations.list(1))).id, later),
    landed: async (s) => expect((await first(s.integrations.list(1))).tokenLastUsedAt).toEqual(later),
  },
  {
    name: "an Idempotency-Key's reservation (the accept path)",
    write: (s) => s.requests.reserve(1, "key", { requestId: "r1", fingerprints: [] }, later, at),
    landed: async (s) =>
      expect(await s.requests.reserve(1, "key", { requestId: "r2", fingerprints: [] }, later, at)).toMatchObject({
        existed: true,
      }),
  },
  {
    name: "a project's alert settings",
    write: (s) => s.incidents.updateSettings(1, { createIncident: true }, at),
    landed: async (s) => expect((await s.incidents.settings(1)).createIncident).toBe(true),
  },
  {
    name: "the purge of job records and idempotency keys",
    write: (s) => s.requests.purge(later, later),
    landed: async (s) => expect((await s.requests.jobOutcomes(["old-job"])).get("old-job")).toBeUndefined(),
  },
  {
    name: "a channel destination's creation",
    write: (s) => s.destinations.insert(destination(1, "hook")),
    landed: async (s) => expect((await s.destinations.list(1)).map((d) => d.kind)).toContain("hook"),
  },
  {
    name: "a channel destination's change",
    write: async (s) =>
      s.destinations.update(1, (await first(s.destinations.list(1))).id, { url: "https://hooks.example.com/new", at: later }),
    landed: async (s) => expect((await first(s.destinations.list(1))).url).toBe("https://hooks.example.com/new"),
  },
  {
    name: "a channel destination's removal",
    write: async (s) => s.destinations.delete(1, (await first(s.destinations.list(1))).id),
    landed: async (s) => expect(await s.destinations.list(1)).toEqual([]),
  },
  {
    name: "a delivery's opening (a channel worker)",
    write: (s) => s.deliveries.open(delivery("deliver:b:1", 1, at)),
    landed: async (s) => expect(await s.deliveries.list(1, at, 10)).toHaveLength(2),
  },
  {
    name: "a delivery's attempt (a channel worker)",
    write: async (s) => {
      const d = await first(s.deliveries.list(1, at, 10));
      await s.deliveries.record(d.id, {
        status: "delivered",
        attempts: 1,
        responseStatus: 200,
        durationMs: 3,
        error: null,
        notBefore: null,
        at: later,
      });
    },
    landed: async (s) => expect((await first(s.deliveries.list(1, at, 10))).status).toBe("delivered"),
  },
  {
    name: "the purge of the delivery log",
    write: (s) => s.deliveries.purge(later),
    landed: async (s) => expect(await s.deliveries.list(1, new Date(0), 10)).toEqual([]),
  },
  {
    name: "a mail's delivery record (a mail worker)",
    write: (s) => s.mail.recordDelivery("mail:1", "<m1@tocsin>", at),
    landed: async (s) => expect(await s.mail.delivered("mail:1")).toBe(true),
  },
  {
    name: "a silence's creation",
    write: (s) => s.silences.insert(silence("6f1c3d2e-0000-4000-8000-000000000002")),
    landed: async (s) => expect(await s.silences.list(1)).toHaveLength(2),
  },
  {
    name: "a silence's change",
    write: (s) => s.silences.update(silence(silenceId, { comment: "changed", updatedAt: later })),
    landed: async (s) => expect((await s.silences.get(1, silenceId))?.comment).toBe("changed"),
  },
];

describe("sqlite, the main thread's writes to alert.db while the processing thread's batch holds its lock", () => {
  let dir: string;
  let db: Sqlite;
  let holder: Sqlite;
  let stores: Stores;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "tocsin-main-writes-"));
    const file = join(dir, "alert.db");
    db = openSqlite(file);
    stores = mainThreadStores(db);
    await stores.integrations.insert(http(1, "Monitor", { active: true }));
    await stores.requests.recordJob(
      "old-job",
      { iid: 1, title: "Disk full", status: "triggered", events: 1, action: "created" },
      at,
    );
    const d = await stores.destinations.insert(destination(1, "slack"));
    await stores.deliveries.open(delivery("deliver:a:1", d.id, at));
    await stores.silences.insert(silence(silenceId));
    holder = openSqlite(file);
  });
  afterEach(() => {
    holder.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(writes)("$name waits on timers and lands once the lock is free", async ({ write, landed }) => {
    holder.exec("BEGIN IMMEDIATE");
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 1);
    let settled = false;
    const pending = write(stores).finally(() => {
      settled = true;
    });
    try {
      await until(() => ticks >= 5);
      expect(settled).toBe(false);
      holder.exec("COMMIT");
      await pending;
    } finally {
      clearInterval(ticking);
    }
    await landed(stores);
  });
});
