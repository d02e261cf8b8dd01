import { AppError, systemClock } from "@tocsin/core";
import { type CommandFailedEvent, type CommandStartedEvent, type CommandSucceededEvent, MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { AlertStatus, NormalizedAlert } from "../../domain/alerts/model.js";
import type { AlertsStores, ProcessAlertJob } from "../../domain/alerts/ports.js";
import { processAlertJob } from "../../domain/alerts/processing.js";
import { createReactions } from "../../domain/alerts/reactions.js";
import { isFerretDb } from "./mongo-common.js";
import { collectionScans, filtersOf, type Sent, servingIndex } from "./mongo-explain.js";
import { createMongoAlertsStores } from "./mongo-stores.js";

/**
 * The processing path of an alert on FerretDB (issue 13): every command it sends is recorded with
 * the driver's command monitoring and counted. FerretDB 1.x (SQLite backend) pushes down to SQLite
 * only a filter that is a bare string `_id` (for a `find`, and for the read before an update,
 * findAndModify or delete), and reads the whole collection for every other filter (its
 * `explain` says `filterPushdown: false` for them). So each `find` here is `explain`ed and must
 * be pushed down, and a new alert may only insert, apart from the small `counters` collection;
 * updates of an existing alert go by `_id` alone (an index lookup on MongoDB, and on FerretDB
 * once scripts/ferretdb-*-id-indexes.* gave it an index its query matches:
 * ferretdb-id-indexes.int.test.ts).
 */
const mongoUrl = inject("mongoUrl");

const WRITES_THAT_SCAN = new Set(["update", "findAndModify", "delete"]);

describe.skipIf(!mongoUrl)("alert processing on FerretDB: round trips and pushed-down filters", () => {
  let client: MongoClient;
  let stores: AlertsStores;
  let ferret = false;
  let recording = false;
  const sent: Sent[] = [];
  const dbName = `tocsin_test_hot_${Math.random().toString(36).slice(2, 10)}`;

  beforeAll(async () => {
    client = await new MongoClient(mongoUrl, { monitorCommands: true }).connect();
    client.on("commandStarted", (e) => {
      if (recording && e.databaseName === dbName) sent.push({ name: e.commandName, command: e.command });
    });
    const db = client.db(dbName);
    ferret = await isFerretDb(db);
    stores = await createMongoAlertsStores(db);
    // The project has saved settings (an explain on a collection that does not exist says "no pushdown").
    await stores.incidents.updateSettings(42, { sendEmail: false }, new Date());
  });
  afterAll(async () => {
    await client?.db(dbName).dropDatabase();
    await client?.close();
  });

  const at = () => new Date();
  let seq = 0;
  const job = (fingerprint: string, fields: Partial<NormalizedAlert> = {}): ProcessAlertJob => {
    const id = `hot-${++seq}`;
    return {
      jobId: id,
      requestId: id,
      projectId: 42,
      integrationId: 1,
      alert: {
        title: `Alert ${fingerprint}`,
        hosts: [],
        severity: "high",
        startedAt: at().toISOString(),
        source: "tool",
        payload: { fingerprint },
        fingerprint,
        ...fields,
      },
    };
  };
  const deps = () => ({
    stores,
    jobs: { enqueueIncident: async () => {}, enqueueFollowUps: async () => {} },
    clock: systemClock,
    reactions: createReactions([], (projectId) => stores.incidents.settings(projectId)),
  });

  async function record(run: () => Promise<unknown>): Promise<Sent[]> {
    sent.length = 0;
    recording = true;
    try {
      await run();
    } finally {
      recording = false;
    }
    return [...sent];
  }

  /** Every `find` is answered from the primary key; every other filter is a bare `_id`. */
  async function expectPushedDown(commands: Sent[]) {
    if (!ferret) return; // MongoDB keeps a change's conditions in its filter, served by the `_id` index
    const db = client.db(dbName);
    for (const s of commands) {
      const collection = s.command[s.name] as string;
      for (const filter of filtersOf(s)) {
        const what = `${s.name} ${collection} ${JSON.stringify(filter)}`;
        expect(Object.keys(filter), what).toEqual(["_id"]);
        expect(typeof filter._id, what).toBe("string");
        if (s.name !== "find") continue;
        const plan = await db.command({ explain: { find: collection, filter } });
        expect(plan.filterPushdown, what).toBe(true);
      }
    }
  }

  it("a new alert: a handful of commands, every filter served by the primary key", async () => {
    // Warm the id block, the project's iid counter and the settings of the project.
    await processAlertJob(deps(), job("warm"));
    const commands = await record(() => processAlertJob(deps(), job("new-1")));
    const names = commands.map((c) => c.name);
    // FerretDB: start record, signpost (an insert), iid, the alert with its activity note,
    // outcome (the project's settings were read moments ago). MongoDB: the signpost is looked
    // up, then written after the alert.
    expect(names.length, names.join(",")).toBeLessThanOrEqual(ferret ? 5 : 6);
    if (ferret) expect(names.filter((n) => n === "find")).toEqual([]);
    const scanning = commands.filter((c) => WRITES_THAT_SCAN.has(c.name) && c.command[c.name] !== "counters");
    expect(scanning.map((c) => `${c.name} ${c.command[c.name]}`)).toEqual([]);
    await expectPushedDown(commands);
  });

  it("an event on an open alert and its recovery: every filter served by the primary key", async () => {
    await processAlertJob(deps(), job("repeat"));
    const again = await record(() => processAlertJob(deps(), job("repeat")));
    expect(again.length, again.map((c) => c.name).join(",")).toBeLessThanOrEqual(7);
    const recovery = await record(() => processAlertJob(deps(), job("repeat", { endedAt: at().toISOString() })));
    const outcome = await stores.alerts.findOpen(42, "repeat");
    expect(outcome).toBeUndefined();
    await expectPushedDown([...again, ...recovery]);
  });

  it("a replayed job answers from its record without touching the alerts", async () => {
    const j = job("replayed");
    const first = await processAlertJob(deps(), j);
    const commands = await record(() => processAlertJob(deps(), j));
    expect(await processAlertJob(deps(), j)).toEqual(first);
    expect(commands.map((c) => c.name)).toEqual(["insert", "find"]);
    await expectPushedDown(commands);
  });

  /**
   * Issue 25 item 4: every query of the hot path (a new alert, a repeat, a recovery, a fingerprint
   * opening again, an incident opened and closed, the alert list's first page) is `explain`ed.
   * On real MongoDB (`MONGO_URL_TEST`) its winning plan must hold no `COLLSCAN`. FerretDB 1.x
   * cannot tell (its plan is a SQLite `SCAN` for every filter, and `filterPushdown` is true only
   * for a `find` by a bare string `_id`): there each filter must either be such a `find`, or a
   * bare `_id` (MongoDB's `IDHACK`), or be served by an index that `listIndexes` shows (the
   * index MongoDB's planner would pick: its first key is an equality of the filter, or of every
   * `$or` branch). (Every write to an existing document, `update` or `findAndModify`, decodes
   * the collection on FerretDB 1.x whatever its filter: a limit of FerretDB, not checked here.)
   */
  it("explain: no query of the hot path scans a collection where MongoDB has an index", async () => {
    await processAlertJob(deps(), job("warm-explain"));
    const commands = await record(async () => {
      await processAlertJob(deps(), job("explained"));
      await processAlertJob(deps(), job("explained"));
      const resolved = await processAlertJob(deps(), job("explained", { endedAt: at().toISOString() }));
      await processAlertJob(deps(), job("explained"));
      const alert = await stores.alerts.get(42, resolved.iid);
      if (!alert) throw new Error("the resolved alert is missing");
      const alertId = alert.id;
      const opened = await stores.incidents.openForAlert({
        projectId: 42,
        alertId,
        alertIid: alert.iid,
        title: undefined,
        severity: "high",
        at: at(),
      });
      await stores.alerts.linkIncident(alertId, opened.incident.iid, at());
      const incident = await stores.incidents.getByAlert(alertId);
      if (incident) await stores.incidents.close(incident.id, at());
      await stores.alerts.list(42, { orderBy: "created_at", sort: "desc", offset: 0, limit: 25 });
      await stores.alerts.list(42, { status: "triggered", orderBy: "created_at", sort: "desc", offset: 0, limit: 25 });
    });
    const db = client.db(dbName);
    if (!ferret) {
      for (const s of commands) {
        const scans = await collectionScans(db, s);
        expect(scans, `${s.name} ${JSON.stringify(s.command).slice(0, 300)}`).toEqual([]);
      }
      return;
    }
    const unserved: string[] = [];
    for (const s of commands) {
      const collection = s.command[s.name] as string;
      const what = `${s.name} ${collection} ${JSON.stringify(filtersOf(s))}`;
      const indexes = await db.collection(collection).listIndexes().toArray();
      for (const filter of filtersOf(s)) {
        if (s.name === "find" && Object.keys(filter).length === 1 && typeof filter._id === "string") {
          const plan = await db.command({ explain: { find: collection, filter } });
          if (plan.filterPushdown !== true) unserved.push(`${what}: not pushed down`);
          continue;
        }
        if (!servingIndex(filter, indexes)) unserved.push(`${what}: no index`);
      }
    }
    expect(unserved).toEqual([]);
  });

  it("FerretDB: a list reads the project's alerts once, the lists of a console's poll share a read, one at a time", async () => {
    if (!ferret) return; // MongoDB serves a list from an index: its reads run side by side
    for (let i = 0; i < 3; i++) await processAlertJob(deps(), job(`listed-${i}`));
    // A read of `alerts` that is not a bare `_id` equality: FerretDB reads the whole collection.
    const scanning = (e: CommandStartedEvent) => {
      if (e.databaseName !== dbName || e.command[e.commandName] !== "alerts") return false;
      if (e.commandName === "aggregate") return true;
      const filter = e.command.filter as Record<string, unknown> | undefined;
      return e.commandName === "find" && !(filter && Object.keys(filter).join() === "_id" && typeof filter._id === "string");
    };
    let inFlight = 0;
    let most = 0;
    let scans = 0;
    const reading = new Set<number>();
    const started = (e: CommandStartedEvent) => {
      if (!scanning(e)) return;
      scans++;
      reading.add(e.requestId);
      most = Math.max(most, ++inFlight);
    };
    const ended = (e: CommandSucceededEvent | CommandFailedEvent) => {
      if (reading.delete(e.requestId)) inFlight--;
    };
    client.on("commandStarted", started).on("commandSucceeded", ended).on("commandFailed", ended);
    try {
      const page = (status: AlertStatus | undefined, limit: number) =>
        stores.alerts.list(42, { status, orderBy: "started_at", sort: "desc", offset: 0, limit });
      const one = await page(undefined, 2);
      expect(one.alerts.length).toBe(2);
      expect(one.total).toBeGreaterThanOrEqual(3);
      expect(scans).toBe(1);
      // The alerts page's poll: the Open tab (triggered and acknowledged) and the four tab counts.
      const lists = await Promise.all([
        page("triggered", 20),
        page("acknowledged", 20),
        ...(["triggered", "acknowledged", "resolved", undefined] as const).map((status) => page(status, 1)),
      ]);
      expect(lists[0]?.alerts.length).toBeGreaterThanOrEqual(3);
      expect(lists[0]?.total).toBe(lists[2]?.total);
      expect(lists[5]?.total).toBeGreaterThanOrEqual(lists[0]?.total ?? 0);
      // The six lists of the poll (one filter, six statuses and pages) share one read.
      expect(scans).toBe(2);
    } finally {
      client.off("commandStarted", started).off("commandSucceeded", ended).off("commandFailed", ended);
    }
    expect(reading.size).toBe(0);
    expect(most).toBe(1);
  });

  it("lists and the overview end at their caller's deadline: bounded reads, none once it has passed", async () => {
    for (let i = 0; i < 2; i++) await processAlertJob(deps(), job(`bounded-${i}`));
    const q = { orderBy: "created_at", sort: "desc", offset: 0, limit: 20 } as const;
    const now = new Date();
    const window = { hourlyFrom: now, hourlyTo: now, dailyFrom: new Date(0), dailyTo: now, noisyFrom: new Date(0) };
    const deadline = Date.now() + 60_000;
    const bounded = await record(async () => {
      expect((await stores.alerts.list(42, q, deadline)).total).toBeGreaterThanOrEqual(2);
      await stores.overview.overview(42, window, deadline);
      await stores.overview.openCounts([42], deadline);
    });
    const reads = bounded.filter((s) => s.command[s.name] === "alerts");
    // MongoDB: the page's find and the count's aggregate; FerretDB: one find, then the page by `_id`.
    expect(reads.map((s) => s.name)).toEqual(expect.arrayContaining(ferret ? ["find"] : ["find", "aggregate"]));
    for (const s of reads) {
      expect(s.command.maxTimeMS, `${s.name} ${JSON.stringify(s.command)}`).toBeGreaterThan(50_000);
      expect(s.command.maxTimeMS).toBeLessThanOrEqual(60_000);
    }
    const late = Date.now() - 1;
    const tooLate = (err: unknown) => AppError.is(err) && err.code === "DEADLINE_EXCEEDED";
    const none = await record(async () => {
      await expect(stores.alerts.list(42, q, late)).rejects.toSatisfy(tooLate);
      await expect(stores.overview.overview(42, window, late)).rejects.toSatisfy(tooLate);
      await expect(stores.overview.openCounts([42], late)).rejects.toSatisfy(tooLate);
    });
    expect(none).toEqual([]);
    // Side by side (on FerretDB in one read): the one past its deadline fails, the other is served.
    const [past, live] = await Promise.allSettled([stores.alerts.list(42, q, late), stores.alerts.list(42, q, deadline)]);
    expect(past.status === "rejected" && tooLate(past.reason)).toBe(true);
    expect(live.status === "fulfilled" && live.value.total).toBeGreaterThanOrEqual(2);
  });

  it("reserving an Idempotency-Key, new and replayed, is served by the primary key", async () => {
    const expires = new Date(Date.now() + 60_000);
    const answer = { requestId: "r1", fingerprints: [] };
    const commands = await record(async () => {
      await stores.requests.reserve(1, "key-1", answer, expires, new Date());
      await stores.requests.reserve(1, "key-1", { requestId: "r2", fingerprints: [] }, expires, new Date());
    });
    await expectPushedDown(commands.filter((c) => c.name === "find"));
  });
});
