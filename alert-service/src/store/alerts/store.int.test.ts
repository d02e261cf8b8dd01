import Database from "better-sqlite3";
import { MongoClient } from "mongodb";
import { describe, expect, inject, it } from "vitest";
import type { AlertStatus, Severity } from "../../domain/alerts/model.js";
import { ALERT_ORDER_FIELDS, type AlertQuery } from "../../domain/alerts/ports.js";
import { alertInput, describeAlertsStoresContract } from "./contract.js";
import { MongoIncidentStore } from "./mongo-incident-store.js";
import { createMongoAlertsStores } from "./mongo-stores.js";
import { describeAlertOverviewContract } from "./overview-contract.js";
import { createSqliteAlertsStores } from "./sqlite-stores.js";

describeAlertsStoresContract("sqlite", async () => {
  const db = new Database(":memory:");
  return { stores: createSqliteAlertsStores(db), cleanup: async () => void db.close() };
});
// Every alert merged into the open fingerprints' table at once: the contract on the table's side.
describeAlertsStoresContract("sqlite, open fingerprints merged at every alert", async () => {
  const db = new Database(":memory:");
  return { stores: createSqliteAlertsStores(db, { mergeFingerprintsAt: 1 }), cleanup: async () => void db.close() };
});
describeAlertOverviewContract("sqlite", async () => {
  const db = new Database(":memory:");
  return { stores: createSqliteAlertsStores(db), cleanup: async () => void db.close() };
});

const mongoUrl = inject("mongoUrl");
if (!mongoUrl) console.warn("[alert stores] MongoDB-protocol server unavailable: the MongoDB contract run is SKIPPED");
describe.skipIf(!mongoUrl)("mongodb", () => {
  describeAlertsStoresContract("mongodb (FerretDB)", async () => {
    const client = await MongoClient.connect(mongoUrl);
    const db = client.db(`tocsin_test_alerts_${Math.random().toString(36).slice(2, 10)}`);
    return {
      stores: await createMongoAlertsStores(db),
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });

  describeAlertOverviewContract("mongodb (FerretDB)", async () => {
    const client = await MongoClient.connect(mongoUrl);
    const db = client.db(`tocsin_test_overview_${Math.random().toString(36).slice(2, 10)}`);
    return {
      stores: await createMongoAlertsStores(db),
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });

  it("lists in MongoDB's order on FerretDB too (sorted in alert-service there): the same pages as SQLite's", async () => {
    const client = await MongoClient.connect(mongoUrl);
    const db = client.db(`tocsin_test_order_${Math.random().toString(36).slice(2, 10)}`);
    const sqliteDb = new Database(":memory:");
    try {
      const both = [createSqliteAlertsStores(sqliteDb), await createMongoAlertsStores(db)];
      const hour = 3_600_000;
      const t0 = new Date("2026-11-21T10:00:00.000Z").getTime();
      // status, severity, started hours ago, events added, minute of the last change (ties on purpose)
      const plan: [AlertStatus, Severity, number, number, number][] = [
        ["triggered", "high", 3, 2, 5],
        ["acknowledged", "critical", 1, 0, 5],
        ["resolved", "low", 4, 1, 9],
        ["triggered", "critical", 1, 0, 0],
        ["ignored", "info", 2, 3, 7],
        ["acknowledged", "high", 3, 2, 5],
        ["triggered", "unknown", 1, 0, 0],
        ["resolved", "critical", 5, 0, 2],
        ["resolved", "critical", 5, 4, 2],
      ];
      for (const s of both) {
        for (const [i, [status, severity, hoursAgo, events, minute]] of plan.entries()) {
          const changed = new Date(t0 + minute * 60_000);
          const a = await s.alerts.create(alertInput(77, { severity, startedAt: new Date(t0 - hoursAgo * hour).toISOString() }));
          for (let e = 0; e < events; e++) await s.alerts.registerEvent(a.id, `order-${i}-${e}`, changed);
          if (status === "resolved")
            await s.alerts.resolve(a.id, new Date(t0 + hour - minute * 60_000), `order-${i}-end`, changed);
          else if (status !== "triggered") await s.alerts.setStatus(a.id, status, undefined, changed);
        }
      }
      for (const orderBy of ALERT_ORDER_FIELDS) {
        for (const sort of ["asc", "desc"] as const) {
          const queries = (
            [
              [0, 20],
              [0, 4],
              [4, 4],
              [8, 4],
            ] as const
          ).flatMap(([offset, limit]) =>
            [undefined, "resolved", "triggered"].map((status) => ({
              orderBy,
              sort,
              offset,
              limit,
              ...(status ? { status } : {}),
            })),
          );
          const [lite, ferret] = both;
          // FerretDB's lists at once (they share a read there), SQLite's one by one.
          const ferretLists = await Promise.all(queries.map((q) => ferret?.alerts.list(77, q as AlertQuery)));
          for (const [i, q] of queries.entries()) {
            const expected = await lite?.alerts.list(77, q as AlertQuery);
            const what = JSON.stringify(q);
            expect(
              ferretLists[i]?.alerts.map((a) => a.iid),
              what,
            ).toEqual(expected?.alerts.map((a) => a.iid));
            expect(ferretLists[i]?.total, what).toBe(expected?.total);
          }
        }
      }
    } finally {
      sqliteDb.close();
      await db.dropDatabase();
      await client.close();
    }
  });

  it("keeps every alert setting changed through two replicas (two clients, two stores) at the same moment", async () => {
    const name = `tocsin_test_alert_settings_${Math.random().toString(36).slice(2, 10)}`;
    const clients = await Promise.all([MongoClient.connect(mongoUrl), MongoClient.connect(mongoUrl)]);
    try {
      const [a, b] = clients.map((c) => new MongoIncidentStore(c.db(name))) as [MongoIncidentStore, MongoIncidentStore];
      const at = new Date("2026-01-01T00:00:00Z");
      for (let project = 1; project <= 10; project++) {
        await Promise.all([
          a.updateSettings(project, { createIncident: true }, at),
          b.updateSettings(project, { sendEmail: true }, at),
          a.updateSettings(project, { autoCloseIncident: false }, at),
        ]);
        expect(await b.settings(project)).toEqual({ createIncident: true, sendEmail: true, autoCloseIncident: false });
      }
    } finally {
      await clients[0]?.db(name).dropDatabase();
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
