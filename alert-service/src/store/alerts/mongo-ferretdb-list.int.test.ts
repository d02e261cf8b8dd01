import { type Collection, MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { RESOLVED, TRIGGERED } from "./codes.js";
import { alertInput } from "./contract.js";
import type { AlertDoc } from "./mongo-alert-docs.js";
import { AlertScans } from "./mongo-alert-scans.js";
import { COLLECTIONS } from "./mongo-common.js";
import { FerretDbLists, type ListRequest } from "./mongo-ferretdb-list.js";
import { createMongoAlertsStores } from "./mongo-stores.js";

/**
 * A FerretDB list reads its alerts' sort fields and status first, then the page's alerts by `_id`.
 * An alert can change between the two reads; the page must still hold only alerts of its status
 * (MongoDB returns only documents matching the filter when it reads them). The change is made
 * between the two reads by a wrapper of the real collection on the real server.
 */
const mongoUrl = inject("mongoUrl");

describe.skipIf(!mongoUrl)("FerretDB lists: an alert changed between the two reads", () => {
  let client: MongoClient;
  let alerts: Collection<AlertDoc>;
  const dbName = `tocsin_test_lists_${Math.random().toString(36).slice(2, 10)}`;
  const at = (minute: number) => new Date(Date.UTC(2026, 11, 3, 10, minute));

  /** Alert ids, oldest first (the list's order is newest first). */
  const ids: number[] = [];

  beforeAll(async () => {
    client = await MongoClient.connect(mongoUrl);
    const db = client.db(dbName);
    alerts = db.collection<AlertDoc>(COLLECTIONS.alerts);
    const { alerts: store } = await createMongoAlertsStores(db);
    for (let minute = 1; minute <= 4; minute++) {
      const created = await store.create(alertInput(7, { fingerprint: `fp-${minute}`, startedAt: at(minute).toISOString() }));
      ids.push(created.id);
    }
  });
  afterAll(async () => {
    await client?.db(dbName).dropDatabase();
    await client?.close();
  });

  const request = (status: number | undefined): ListRequest => ({
    status,
    sort: [
      ["started_at", -1],
      ["id", -1],
    ],
    offset: 0,
    limit: 20,
    deadlineMs: undefined,
  });

  /** The collection, with `between` run once after the first read of sort keys, before the pages are read. */
  function changingAfterKeys(between: () => Promise<unknown>): () => Collection<AlertDoc> {
    let done = false;
    const wrapped = new Proxy(alerts, {
      get(target, prop, receiver) {
        if (prop !== "find") return Reflect.get(target, prop, receiver);
        return (...args: Parameters<Collection<AlertDoc>["find"]>) => {
          const cursor = target.find(...args);
          // The read of sort keys has a projection; findOne (the page by `_id`) finds without one.
          if (!args[1]?.projection) return cursor;
          return {
            toArray: async () => {
              const keys = await cursor.toArray();
              if (!done) {
                done = true;
                await between();
              }
              return keys;
            },
          };
        };
      },
    });
    return () => wrapped;
  }

  it("a page holds only alerts that still have its status; a list of every status shows the new one", async () => {
    const [first, second, third, fourth] = ids as [number, number, number, number];
    const lists = new FerretDbLists(
      changingAfterKeys(() => alerts.updateOne({ _id: String(third) }, { $set: { status: RESOLVED, ended_at: at(30) } })),
      new AlertScans(true),
    );
    const [triggered, all] = await Promise.all([
      lists.list({ project_id: 7 }, request(TRIGGERED)),
      lists.list({ project_id: 7 }, request(undefined)),
    ]);
    // The third alert was triggered when the keys were read and resolved when the page was.
    expect(triggered.docs.map((d) => d.id)).toEqual([fourth, second, first]);
    expect(triggered.docs.every((d) => d.status === TRIGGERED)).toBe(true);
    expect(triggered.total).toBe(4);
    expect(all.docs.map((d) => [d.id, d.status])).toEqual([
      [fourth, TRIGGERED],
      [third, RESOLVED],
      [second, TRIGGERED],
      [first, TRIGGERED],
    ]);
  });
});
