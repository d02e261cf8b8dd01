import { silentLogger } from "@tocsin/core";
import { FakeClock } from "@tocsin/testing";
import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import { createSqliteDeliveryLog } from "../../store/channels/sqlite-delivery-log.js";
import { createSqliteDestinationStore } from "../../store/channels/sqlite-destination-store.js";
import type { Alert } from "../alerts/model.js";
import { createDelivery, RetryLaterError } from "./delivery.js";
import type { AttemptResult, DeliveryJob, DeliveryLog, DestinationStore, OutboundRequest } from "./ports.js";
import { channelsReactor } from "./reactor.js";

type Sent = Parameters<Parameters<typeof createDelivery>[0]["sender"]["post"]>[0];

const alert: Alert = {
  id: 7,
  projectId: 1,
  iid: 3,
  integrationId: 1,
  title: "Disk full",
  description: "",
  severity: "high",
  status: "triggered",
  service: "db",
  monitoringTool: "",
  hosts: [],
  events: 1,
  fingerprint: "fp",
  startedAt: new Date("2026-11-25T09:00:00.000Z"),
  endedAt: undefined,
  environmentName: "",
  incidentIid: 0,
  payload: {},
  createdAt: new Date("2026-11-25T09:00:00.000Z"),
  updatedAt: new Date("2026-11-25T09:00:00.000Z"),
};

const SECRET = `whsec_${Buffer.from("k".repeat(32)).toString("base64")}`;

/**
 * One delivery attempt per run, judged and logged; storm control and Retry-After, on the fake
 * clock (SQLite in memory, a sender that answers from a script).
 */
describe("delivery", () => {
  let clock: FakeClock;
  let store: DestinationStore;
  let log: DeliveryLog;
  let sent: Sent[];
  let answers: AttemptResult[];
  let later: Array<{ job: DeliveryJob; delayMs: number }>;
  let reserved: Array<[number, number]>;
  let delivery: ReturnType<typeof createDelivery>;
  let hookId: number;

  const job = (n: number, eventType = "alert.triggered"): DeliveryJob => ({
    requestId: `r${n}`,
    projectId: 1,
    destinationId: hookId,
    eventType,
    eventId: `7:${eventType}:op-${n}`,
    alertId: 7,
    key: `deliver:7:${eventType}:op-${n}:${hookId}`,
  });
  const run = (j: DeliveryJob) => delivery.run(j, silentLogger());

  beforeEach(async () => {
    const db = new Database(":memory:");
    clock = new FakeClock("2026-11-25T10:00:00.000Z");
    store = createSqliteDestinationStore(db);
    log = createSqliteDeliveryLog(db);
    sent = [];
    answers = [];
    later = [];
    reserved = [];
    const hook = await store.insert({
      projectId: 1,
      kind: "hook",
      url: "https://receiver.example.com/hook",
      token: null,
      signingSecret: SECRET,
      username: "",
      channel: "",
      alertChannel: "",
      incidentChannel: "",
      alertEvents: true,
      incidentEvents: false,
      enableSslVerification: true,
      signing: true,
      createdAt: clock.now(),
    });
    hookId = hook.id;
    delivery = createDelivery({
      destinations: store,
      log,
      alerts: { getById: async (id) => (id === 7 ? alert : undefined) },
      incidents: { getByAlert: async () => undefined },
      projects: {
        require: async () => ({ id: 1, fullPath: "ops/web", tier: "free", accessLevel: 50 }),
        byId: async () => ({ id: 1, fullPath: "ops/web", tier: "free", accessLevel: 50 }),
      },
      sender: {
        post: async (request: OutboundRequest) => {
          sent.push(request);
          return answers.shift() ?? { status: 200, durationMs: 3 };
        },
      },
      sign: (secret, id, at) => `v1,${secret}-${id}-${at.getTime()}`,
      // Every slot free at once: the run never sleeps; the reservations are checked.
      slots: {
        reserve: async (id, intervalMs) => {
          reserved.push([id, intervalMs]);
          return 0;
        },
      },
      jobs: {
        enqueue: async () => undefined,
        enqueueLater: async (j, delayMs) => void later.push({ job: j, delayMs }),
      },
      clock,
      settings: {
        externalUrl: "https://tocsin.example.com",
        storm: { windowMs: 600_000, limit: 3 },
        minIntervalMs: 1000,
        retryForMs: 3_600_000,
      },
    });
  });

  it("past the storm limit of a window, folds messages into one summary sent at the window's end", async () => {
    for (let n = 1; n <= 5; n++) await run(job(n));
    expect(sent.length).toBe(3);
    expect((await log.list(hookId, new Date(0), 10)).map((d) => d.status)).toEqual(["delivered", "delivered", "delivered"]);
    expect(later.length).toBe(2);
    expect(new Set(later.map((l) => l.job.key)).size).toBe(1);
    expect(later[0]?.delayMs).toBe(600_000);
    clock.advance(600_000);
    await run(later[0]?.job as DeliveryJob);
    expect(sent.length).toBe(4);
    expect(JSON.parse(sent[3]?.body ?? "{}")).toMatchObject({
      event_type: "alert.summary",
      object_attributes: { count: 2, window_minutes: 10 },
    });
    // A summary run again sends nothing more.
    await run(later[0]?.job as DeliveryJob);
    expect(sent.length).toBe(4);
  });

  it("signs hook messages and sends the event id as Idempotency-Key and webhook-id", async () => {
    await run(job(1));
    // The send waited for the destination's slot, a second after its last.
    expect(reserved).toEqual([[hookId, 1000]]);
    expect(sent[0]?.headers).toMatchObject({
      "Idempotency-Key": "7:alert.triggered:op-1",
      "webhook-id": "7:alert.triggered:op-1",
      "webhook-timestamp": String(clock.now().getTime() / 1000),
      "webhook-signature": `v1,${SECRET}-7:alert.triggered:op-1-${clock.now().getTime()}`,
      "X-Gitlab-Event": "Alert Hook",
    });
    await store.update(1, hookId, { signing: false, at: clock.now() });
    await run(job(2));
    expect(sent[1]?.headers["webhook-signature"]).toBeUndefined();
  });

  it("signs with the replaced secret too while a rotation's overlap lasts, then with the new one alone", async () => {
    const until = new Date(clock.now().getTime() + 60_000);
    await store.update(1, hookId, {
      signingSecret: "whsec_new",
      previousSigningSecret: SECRET,
      previousSigningSecretExpiresAt: until,
      at: clock.now(),
    });
    await run(job(1));
    const at = clock.now().getTime();
    expect(sent[0]?.headers["webhook-signature"]).toBe(
      `v1,whsec_new-7:alert.triggered:op-1-${at} v1,${SECRET}-7:alert.triggered:op-1-${at}`,
    );
    clock.advance(60_000);
    await run(job(2));
    expect(sent[1]?.headers["webhook-signature"]).toBe(`v1,whsec_new-7:alert.triggered:op-2-${at + 60_000}`);
  });

  it("waits out a Retry-After without sending, and gives up once retries are older than their time", async () => {
    answers.push({ status: 429, retryAfterMs: 60_000, durationMs: 1 });
    await expect(run(job(1))).rejects.toBeInstanceOf(RetryLaterError);
    clock.advance(30_000);
    await expect(run(job(1))).rejects.toBeInstanceOf(RetryLaterError);
    expect(sent.length).toBe(1);
    clock.advance(30_000);
    answers.push({ status: 503, durationMs: 1 });
    await expect(run(job(1))).rejects.toBeInstanceOf(RetryLaterError);
    expect(sent.length).toBe(2);
    clock.advance(3_600_000);
    answers.push({ status: null, failure: "connection", error: "connection failed (ECONNREFUSED)", durationMs: 1 });
    await run(job(1));
    const [logged] = await log.list(hookId, new Date(0), 10);
    expect(logged).toMatchObject({
      status: "failed",
      attempts: 3,
      responseStatus: null,
      error: "connection failed (ECONNREFUSED)",
    });
    // Done is done: a re-run sends nothing.
    await run(job(1));
    expect(sent.length).toBe(3);
  });

  it("the reactor claims one job per destination that wants the event, none for disabled ones or other kinds", async () => {
    const slack = await store.insert({
      ...(await store.get(1, hookId))!,
      kind: "slack",
      incidentEvents: true,
      signingSecret: null,
    });
    const reactor = channelsReactor({
      destinations: store,
      jobs: { enqueue: async () => undefined, enqueueLater: async () => undefined },
    });
    const event = (kind: "alert.triggered" | "incident.opened" | "alert.ignored") => ({
      id: `7:${kind}:op`,
      kind,
      projectId: 1,
      alertId: 7,
      requestId: "r",
      at: clock.now(),
      by: "processing" as const,
    });
    const context = { settings: async () => ({ createIncident: false, autoCloseIncident: true, sendEmail: false }) };
    expect((await reactor.claim(event("alert.triggered"), context))?.map((j) => j.key)).toEqual([
      `deliver:7:alert.triggered:op:${hookId}`,
      `deliver:7:alert.triggered:op:${slack.id}`,
    ]);
    expect((await reactor.claim(event("incident.opened"), context))?.map((j) => j.destinationId)).toEqual([slack.id]);
    expect(await reactor.claim(event("alert.ignored"), context)).toBeUndefined();
    await store.update(1, slack.id, { disabled: true, at: clock.now() });
    expect(await reactor.claim(event("incident.opened"), context)).toBeUndefined();
  });
});
