import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { ADMIN, builtForReplicas, type ReplicaSystem, startReplicaSystem } from "./multi-replica-system.js";

/**
 * Two replicas of every service (eight processes, tests/multi-replica-system.ts) on one Redis and
 * one FerretDB. A concurrent load is spread over both gateways; one replica of each service is
 * killed (SIGKILL) mid-way while posting goes on, the clients retrying on 502/503/504 and lost
 * connections as a monitor behind a load balancer would (with the same Idempotency-Key, so that
 * a retry of a post whose answer was lost is not counted twice). Then every invariant is
 * checked in the store, through the API: every 202 is there, one alert per fingerprint, events
 * adding up, unique iids, Idempotency-Key replays answered with the first request id and no
 * event, trigger-then-recovery resolved, and a status change made during the load kept. Before
 * that, with every replica up: a token revocation and a key reset made through one gateway are
 * refused by the other gateway on its next request (auth events over Redis), and notification
 * settings written through both settings-service replicas at once lose no update.
 */

const redisUrl = inject("redisUrl");
const available = builtForReplicas && !!redisUrl && !!inject("mongoUrl");
if (!available) console.warn("[multi-replica] SKIPPED: needs dist builds (npm run build), Redis and FerretDB");

const FINGERPRINTS = 24;
const RETRYABLE = new Set([0, 502, 503, 504]);
const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.min(50 * 2 ** attempt, 500)));

interface Plan {
  fp: string;
  triggers: number;
  recovery: boolean;
  acknowledge: boolean;
}

const plans: Plan[] = Array.from({ length: FINGERPRINTS }, (_, i) => ({
  fp: `mr-fp-${i}`,
  // Three posts one after another; every fourth fingerprint also gets three at once.
  triggers: 3 + (i % 4 === 0 ? 3 : 0),
  recovery: i % 2 === 0,
  acknowledge: i % 5 === 1,
}));

describe.skipIf(!available)("eight processes: two replicas of every service", () => {
  let sys: ReplicaSystem;
  let projectId = 0;
  let hookPath = "";
  let hookToken = "";

  beforeAll(async () => {
    sys = await startReplicaSystem(redisUrl);
    const admin = api(sys.gateways[0], ADMIN);
    const project = await admin.post("/api/v4/projects", { name: "replicas" });
    expect(project.status, project.text).toBe(201);
    projectId = project.body.id;
    const hook = await api(sys.gateways[1], ADMIN).post(`/api/v4/projects/${projectId}/alert_management/http_integrations`, {
      name: "Replicas",
      active: true,
    });
    expect(hook.status, hook.text).toBe(201);
    hookPath = new URL(hook.body.url as string).pathname;
    hookToken = hook.body.token;
  }, 180_000);

  afterAll(async () => {
    await sys?.stop();
  }, 60_000);

  /** Posts until a 202, alternating gateways on every retry; the request id of the answer. */
  async function deliver(body: object, key: string, first: number): Promise<string> {
    for (let attempt = 0; attempt < 60; attempt++) {
      const url = `${sys.gateways[(first + attempt) % 2]}${hookPath}`;
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${hookToken}`, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      }).catch(() => undefined);
      const status = res?.status ?? 0;
      const text = (await res?.text().catch(() => "")) ?? "";
      if (status === 202) return (JSON.parse(text) as { request_id: string }).request_id;
      if (!RETRYABLE.has(status)) throw new Error(`post ${key}: ${status} ${text}`);
      await backoff(attempt);
    }
    throw new Error(`post ${key}: no 202 after 60 attempts`);
  }

  /** A REST call retried like a post (a replica may be dying). */
  async function rest(method: "get" | "put", path: string, first: number, body?: object) {
    for (let attempt = 0; attempt < 60; attempt++) {
      const client = api(sys.gateways[(first + attempt) % 2] as string, ADMIN);
      const res = await (method === "get" ? client.get(path) : client.put(path, body)).catch(() => undefined);
      if (res && !RETRYABLE.has(res.status)) return res;
      await backoff(attempt);
    }
    throw new Error(`${method} ${path}: no answer after 60 attempts`);
  }

  async function alertsOfProject(): Promise<Array<{ iid: number; title: string; events: number; status: string }>> {
    const all = [];
    for (let page = 1; ; page++) {
      const res = await rest("get", `/api/v4/projects/${projectId}/alert_management/alerts?per_page=100&page=${page}`, page);
      expect(res.status, res.text).toBe(200);
      all.push(...res.body);
      if (res.body.length < 100) return all;
    }
  }

  it("a token revocation and a key reset through one gateway are refused by the other as soon as its replicas have heard; settings written through both at once lose nothing", async () => {
    const [viaA, viaB] = sys.gateways.map((g) => api(g, ADMIN));
    // A personal access token, warmed into gateway B's cache, revoked through gateway A.
    const me = await viaA?.get("/api/v4/user");
    const pat = await viaA?.post(`/api/v4/users/${me?.body.id}/personal_access_tokens`, { name: "replicas", scopes: ["api"] });
    expect(pat?.status, pat?.text).toBe(201);
    const patOnB = api(sys.gateways[1], pat?.body.token);
    for (let i = 0; i < 3; i++) expect((await patOnB.get("/api/v4/user")).status).toBe(200);
    expect((await viaA?.del(`/api/v4/personal_access_tokens/${pat?.body.id}`))?.status).toBe(204);
    // Gateway B may watch the other auth-service replica, which hears of the change over Redis a
    // moment after A's call answered (docs/architecture.md, "The window that is left"): B is
    // polled for at most 2 s, far inside its caches' 30 s lifetime, so only the event explains it.
    await until(async () => (await patOnB.get("/api/v4/user")).status === 401, 2_000);

    // A webhook key used on gateway B, reset through gateway A (another project: the load test
    // counts every alert of its own).
    const project = await viaA?.post("/api/v4/projects", { name: "replicas-keys" });
    const hooks = `/api/v4/projects/${project?.body.id}/alert_management/http_integrations`;
    const hook = await viaA?.post(hooks, { name: "Keys", active: true });
    expect(hook?.status, hook?.text).toBe(201);
    const postOnB = (key: string) =>
      fetch(`${sys.gateways[1]}${new URL(hook?.body.url).pathname}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ title: "key check" }),
      }).then((r) => r.status);
    for (let i = 0; i < 3; i++) expect(await postOnB(hook?.body.token)).toBe(202);
    const reset = await viaA?.post(`${hooks}/${hook?.body.id}/reset_token`);
    expect(reset?.status, reset?.text).toBe(200);
    await until(async () => (await postOnB(hook?.body.token)) === 401, 2_000);
    expect(await postOnB(reset?.body.token)).toBe(202);

    // Notification settings: every event of a custom setting switched on by its own request, all
    // at once, alternating gateways (each balances over both settings-service replicas).
    expect((await viaA?.put("/api/v4/notification_settings", { level: "custom" }))?.status).toBe(200);
    const events = Object.keys((await viaB?.get("/api/v4/notification_settings"))?.body.events ?? {});
    expect(events.length).toBeGreaterThan(5);
    const puts = await Promise.all(
      events.map((event, i) => api(sys.gateways[i % 2] as string, ADMIN).put("/api/v4/notification_settings", { [event]: true })),
    );
    for (const put of puts) expect(put.status, put.text).toBe(200);
    for (const via of [viaA, viaB]) {
      const after = await via?.get("/api/v4/notification_settings");
      expect(after?.body).toMatchObject({ level: "custom", events: Object.fromEntries(events.map((e) => [e, true])) });
    }
  });

  it("keeps every invariant under a concurrent load over both gateways while one replica of each service is killed", {
    timeout: 240_000,
  }, async () => {
    const total = plans.reduce((n, p) => n + p.triggers + (p.recovery ? 1 : 0), 0);
    let accepted = 0;
    let acceptedAfterKill = 0;
    let killed = false;
    const replays: Array<[string, string, string]> = [];
    const send = (plan: Plan, key: string, gateway: number, extra: object = {}) =>
      deliver({ title: plan.fp, fingerprint: plan.fp, monitoring_tool: "replicas", ...extra }, key, gateway);
    const post = async (plan: Plan, key: string, gateway: number, extra: object = {}) => {
      const id = await send(plan, key, gateway, extra);
      accepted++;
      if (killed) acceptedAfterKill++;
      return id;
    };
    const flow = async (plan: Plan, i: number) => {
      const first = await post(plan, `${plan.fp}:1`, i % 2);
      if (i % 3 === 0) {
        // The same Idempotency-Key again, on the other gateway and then on both at once.
        const again = await send(plan, `${plan.fp}:1`, (i + 1) % 2);
        const both = await Promise.all([send(plan, `${plan.fp}:1`, 0), send(plan, `${plan.fp}:1`, 1)]);
        for (const id of [again, ...both]) replays.push([`${plan.fp}:1`, first, id]);
      }
      await post(plan, `${plan.fp}:2`, (i + 1) % 2);
      if (plan.triggers > 3) await Promise.all([3, 4, 5].map((n) => post(plan, `${plan.fp}:${n}`, n % 2)));
      if (plan.acknowledge) {
        const alert = await until(async () => (await alertsOfProject()).find((a) => a.title === plan.fp), 60_000, 50);
        const put = await rest("put", `/api/v4/projects/${projectId}/alert_management/alerts/${alert.iid}`, i + 1, {
          status: "acknowledged",
        });
        expect(put.status, put.text).toBe(200);
      }
      await post(plan, `${plan.fp}:last`, i % 2);
      if (plan.recovery) await post(plan, `${plan.fp}:recovery`, (i + 1) % 2, { end_time: new Date().toISOString() });
    };

    // Twelve flows at a time; one replica of every service dies once 40 % of the posts are in.
    const queue = plans.map((plan, i) => () => flow(plan, i));
    const load = Promise.all(
      Array.from({ length: 12 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await next();
      }),
    );
    const chaos = (async () => {
      await until(() => accepted >= total * 0.4, 120_000, 5);
      await Promise.all((["gateway", "auth-service", "settings-service", "alert-service"] as const).map((s) => sys.kill(s, 1)));
      killed = true;
    })();
    try {
      await Promise.all([load, chaos]);
    } catch (err) {
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n${sys.tails()}`);
    }
    expect(accepted).toBe(total);
    expect(acceptedAfterKill, "posts accepted after the kill").toBeGreaterThan(0);

    // Idempotency-Key: every replay answered with the first request id.
    for (const [key, first, id] of replays) expect(id, key).toBe(first);

    // The store, once the surviving alert-service has processed everything (a job of the
    // killed worker runs again once BullMQ finds it stalled).
    const expected = new Map(
      plans.map((p) => [
        p.fp,
        { events: p.triggers, status: p.recovery ? "resolved" : p.acknowledge ? "acknowledged" : "triggered" },
      ]),
    );
    const summary = (alerts: Awaited<ReturnType<typeof alertsOfProject>>) =>
      new Map(
        [...expected.keys()].map((fp) => [
          fp,
          alerts.filter((a) => a.title === fp).map((a) => ({ events: a.events, status: a.status })),
        ]),
      );
    const wanted = new Map([...expected].map(([fp, e]) => [fp, [e]]));
    let alerts: Awaited<ReturnType<typeof alertsOfProject>> = [];
    try {
      await until(
        async () => {
          alerts = await alertsOfProject();
          return JSON.stringify([...summary(alerts)]) === JSON.stringify([...wanted]);
        },
        90_000,
        250,
      );
    } catch {
      // Fall through to the assertions below, which say what differs.
    }
    // One alert per fingerprint (so one open alert at most), its events = the posts accepted
    // for it (no 202 lost, no replay or retry counted twice), and its final status.
    expect(Object.fromEntries(summary(alerts)), sys.tails()).toEqual(Object.fromEntries(wanted));
    // iids unique in the project.
    const iids = alerts.map((a) => a.iid);
    expect(new Set(iids).size).toBe(iids.length);
    expect(alerts).toHaveLength(FINGERPRINTS);
  });
});
