import { createHash } from "node:crypto";
import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { amAlert, amBasic, amBearer, amWebhook, resolvedCopy, ZERO_TIME } from "./alertmanager.fixtures.js";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";
import { rawPost } from "./webhook-client.js";

/**
 * The Prometheus integration (issue 5, item 2): a Free project's Alertmanager posts its webhook
 * (version 4) straight to `/<full_path>/prometheus/alerts/notify.json`, with the credentials
 * Alertmanager's `webhook_config.http_config` sends.
 */
const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
/** Fingerprint of an alert's labels: SHA-1 of the sorted pairs, Ruby-inspected (as alert-service). */
const labelsFingerprint = (labels: Record<string, string>) =>
  sha1(
    `[${Object.entries(labels)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `[${JSON.stringify(k)}, ${JSON.stringify(v)}]`)
      .join(", ")}]`,
  );

const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
const backends: Array<[string, Record<string, string>]> = [["embedded store, in-process queue", {}]];
if (mongoUrl && redisUrl) backends.push(["MongoDB, BullMQ", { MONGO_URL: mongoUrl, REDIS_URL: redisUrl }]);
else console.warn("[prometheus-alertmanager] MongoDB or Redis unavailable: the MongoDB + BullMQ variant is SKIPPED");

describe.each(backends)("Prometheus integration with Alertmanager payloads (%s)", (_name, env) => {
  let sys: RunningSystem;
  let owner: SeededUser;
  let project: SeededProject;
  let prom: { url: string; token: string; id: number };
  const mgmt = () => `/api/v4/projects/${project.id}/alert_management`;
  const notify = () => new URL(prom.url).pathname;
  const post = (body: unknown, headers: Record<string, string>, path = notify()) =>
    rawPost(sys.url, path, typeof body === "string" ? body : JSON.stringify(body), headers);
  const alertsByTitle = async () => {
    const res = await api(sys.url, owner.token).get(`${mgmt()}/alerts?per_page=100`);
    expect(res.status, res.text).toBe(200);
    return new Map((res.body as Array<{ title: string }>).map((a) => [a.title, a as Record<string, unknown>]));
  };

  beforeAll(async () => {
    sys = await startSystem({ env });
    owner = await seedUser(sys.url, sys.adminToken, { username: "sre" });
    const group = await seedGroup(sys.url, owner.token, { path: "infra" }); // Free
    project = await seedProject(sys.url, owner.token, { path: "monitoring", namespaceId: group.id });
    const got = await api(sys.url, owner.token).get(`${mgmt()}/prometheus_integration`);
    expect(got.status, got.text).toBe(200);
    const on = await api(sys.url, owner.token).put(`${mgmt()}/prometheus_integration`, { active: true });
    expect(on.status, on.text).toBe(200);
    prom = on.body;
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("has its own URL and key on Free, and is listed with its type", async () => {
    expect(notify()).toBe("/infra/monitoring/prometheus/alerts/notify.json");
    expect(prom.token).toMatch(/^[0-9a-f]{32}$/);
    const list = await api(sys.url, owner.token).get(`${mgmt()}/integrations`);
    expect(list.body).toContainEqual({
      id: prom.id,
      name: "Prometheus",
      type: "prometheus",
      active: true,
      rate_limit_per_minute: 6000,
    });
  });

  it("a firing batch, then the same batch resolved: every alert in order, then all resolved", async () => {
    const firing = [
      amAlert(
        { alertname: "HighCPU", instance: "web-1:9100", job: "node", severity: "warning" },
        {
          summary: "CPU above 90% on web-1",
          description: "CPU usage has been above 90% for 5 minutes.",
          runbook_url: "https://runbooks.example.com/cpu",
        },
      ),
      amAlert(
        { alertname: "DiskFull", instance: "db-1:9100", job: "node", severity: "page" },
        {
          title: "Disk almost full on db-1",
          summary: "ignored: title wins",
        },
      ),
      amAlert({ alertname: "TargetDown", instance: "api-1:8080", job: "api", severity: "s1" }),
    ];
    const accepted = await post(amWebhook(firing), amBearer(prom.token));
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const fps = firing.map((a) => labelsFingerprint(a.labels));
    expect(accepted.body).toMatchObject({ status: "accepted", fingerprint: fps[0], fingerprints: fps });

    // Alertmanager re-sends a firing group on every group_interval: the alerts group (events 2).
    const again = await post(amWebhook(firing), { ...amBearer(prom.token), prefer: "wait=10" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual([
      { iid: expect.any(Number), title: "CPU above 90% on web-1", status: "triggered", events: 2 },
      { iid: expect.any(Number), title: "Disk almost full on db-1", status: "triggered", events: 2 },
      { iid: expect.any(Number), title: "TargetDown", status: "triggered", events: 2 },
    ]);
    const byTitle = await alertsByTitle();
    expect(byTitle.get("CPU above 90% on web-1")).toMatchObject({
      severity: "low",
      hosts: ["web-1:9100"],
      description: "CPU usage has been above 90% for 5 minutes.",
      monitoring_tool: "Prometheus",
      fingerprint: fps[0],
      started_at: "2026-11-20T10:00:00.123Z",
      ended_at: null,
      status: "triggered",
    });
    expect(byTitle.get("Disk almost full on db-1")).toMatchObject({ severity: "high", hosts: ["db-1:9100"] });
    expect(byTitle.get("TargetDown")).toMatchObject({ severity: "critical", description: null });

    // The resolved notification: same labels, status resolved, a real endsAt.
    const resolved = await post(amWebhook(resolvedCopy(firing, "2026-11-20T10:30:00Z"), "resolved"), {
      ...amBasic("alertmanager", prom.token),
      prefer: "wait=10",
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(resolved.body.map((o: { status: string }) => o.status)).toEqual(["resolved", "resolved", "resolved"]);
    expect(resolved.body.map((o: { iid: number }) => o.iid)).toEqual(again.body.map((o: { iid: number }) => o.iid));
    const after = await alertsByTitle();
    for (const title of ["CPU above 90% on web-1", "Disk almost full on db-1", "TargetDown"]) {
      expect(after.get(title)).toMatchObject({ status: "resolved", ended_at: "2026-11-20T10:30:00.000Z", events: 2 });
    }
    const details = await api(sys.url, owner.token).get(`${mgmt()}/alerts/${after.get("TargetDown")?.iid}`);
    expect(details.body.payload).toMatchObject({ labels: firing[2]?.labels, generatorURL: firing[2]?.generatorURL });
    expect(details.body.activity.map((a: { note: string }) => a.note)).toEqual([
      "logged an alert from **Prometheus**",
      "logged a recovery alert from **Prometheus**",
      "changed the status to **Resolved**",
    ]);
  });

  it("endsAt: the zero time and a future time keep firing; a past one resolves", async () => {
    const zero = amAlert({ alertname: "ZeroEnd", instance: "a" }, {}, { endsAt: ZERO_TIME });
    const future = amAlert({ alertname: "FutureEnd", instance: "b" }, {}, { endsAt: "2999-01-01T00:00:00Z" });
    const past = amAlert({ alertname: "PastEnd", instance: "c" }, {}, { endsAt: "2026-11-20T10:05:00+01:00" });
    const res = await post(amWebhook([zero, future, past]), { ...amBearer(prom.token), prefer: "wait" });
    expect(res.status).toBe(200);
    expect(res.body.map((o: { status: string }) => o.status)).toEqual(["triggered", "triggered", "resolved"]);
    expect((await alertsByTitle()).get("PastEnd")).toMatchObject({ ended_at: "2026-11-20T09:05:00.000Z" });
  });

  it("severity from labels.severity with the Prometheus aliases", async () => {
    const table: Array<[string | undefined, string]> = [
      ["critical", "critical"],
      ["P2", "high"],
      ["s3", "medium"],
      ["p4", "low"],
      ["S5", "info"],
      ["warn", "low"],
      ["minor", "low"],
      ["error", "medium"],
      ["alert", "medium"],
      ["major", "high"],
      ["emergency", "critical"],
      ["fatal", "critical"],
      ["debug", "info"],
      ["information", "info"],
      ["notice", "info"],
      ["unknown", "unknown"],
      ["bogus", "critical"],
      [undefined, "critical"],
    ];
    const alerts = table.map(([severity], i) =>
      amAlert({ alertname: `Sev${i}`, ...(severity === undefined ? {} : { severity }) }),
    );
    const res = await post(amWebhook(alerts), { ...amBearer(prom.token), prefer: "wait" });
    expect(res.status).toBe(200);
    const byTitle = await alertsByTitle();
    expect(table.map((_, i) => byTitle.get(`Sev${i}`)?.severity)).toEqual(table.map(([, expected]) => expected));
  });

  it("credentials exactly as Alertmanager sends them; anything else 401", async () => {
    const body = amWebhook([amAlert({ alertname: "AuthCheck" })]);
    expect((await post(body, amBearer(prom.token))).status).toBe(202);
    expect((await post(body, amBasic("alertmanager", prom.token))).status).toBe(202);
    expect((await post(body, amBasic("", prom.token))).status).toBe(202);
    expect((await post(body, amBearer("0".repeat(32)))).status).toBe(401);
    expect((await post(body, amBasic(prom.token, "wrong"))).status).toBe(401);
    expect((await post(body, {})).status).toBe(401);
    expect((await post(body, amBearer(prom.token), "/infra/monitoring/prometheus/alerts/notify")).status).toBe(202);
  });

  it("refuses what is not Alertmanager's webhook with a 400 that says why", async () => {
    const ok = amWebhook([amAlert({ alertname: "Shape" })]);
    const { groupKey: _g, externalURL: _e, ...missing } = ok;
    const cases: Array<[unknown, RegExp]> = [
      [{ title: "generic" }, /lacks version, groupKey, status, receiver/],
      [missing, /lacks groupKey, externalURL/],
      [{ ...ok, version: "3" }, /version is "3", not "4"/],
      [{ ...ok, version: 4 }, /version is 4, not "4"/],
      [{ ...ok, alerts: {} }, /alerts is not an array/],
      [{ ...ok, alerts: ["x"] }, /other than objects/],
    ];
    for (const [body, message] of cases) {
      const res = await post(body, amBearer(prom.token));
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.body.message).toMatch(/^The payload is not an Alertmanager webhook \(version 4\)/);
      expect(res.body.message).toMatch(message);
    }
  });

  it("a reset key works at once; a disabled integration answers 403", async () => {
    const reset = await api(sys.url, owner.token).post(`${mgmt()}/prometheus_integration/reset_token`);
    expect(reset.status).toBe(200);
    const body = amWebhook([amAlert({ alertname: "AfterReset" })]);
    expect((await post(body, amBearer(prom.token))).status).toBe(401);
    expect((await post(body, amBearer(reset.body.token))).status).toBe(202);
    prom = reset.body;
    await api(sys.url, owner.token).put(`${mgmt()}/prometheus_integration`, { active: false });
    expect((await post(body, amBearer(prom.token))).status).toBe(403);
    await api(sys.url, owner.token).put(`${mgmt()}/prometheus_integration`, { active: true });
    expect((await post(body, amBearer(prom.token))).status).toBe(202);
  });

  it("a 100-alert batch is accepted at once with one fingerprint per alert, and all are processed", {
    timeout: 120_000,
  }, async () => {
    const batch = (run: number) =>
      Array.from({ length: 100 }, (_, i) =>
        amAlert(
          { alertname: "Batch", instance: `node-${i}:9100`, run: String(run), severity: "warning" },
          { summary: `Batch ${run}/${i}` },
        ),
      );
    const total = async () =>
      Number((await api(sys.url, owner.token).get(`${mgmt()}/alerts?search=Batch&per_page=1`)).headers.get("x-total"));
    // The number processed once it reaches `expected`, or after `timeoutMs` whatever it is.
    const processed = (expected: number, timeoutMs: number) =>
      until(
        async () => {
          const n = await total();
          return n >= expected && n;
        },
        timeoutMs,
        100,
      ).catch(total);
    // Processing shares this process with the receiver: each batch is processed before the next
    // is timed, so the timing is the accept cost alone.
    const runs = env.MONGO_URL ? 3 : 5;
    const times: number[] = [];
    for (let run = 0; run <= runs; run++) {
      const started = performance.now();
      const res = await post(amWebhook(batch(run)), amBearer(prom.token));
      if (run > 0) times.push(performance.now() - started); // run 0 warms up
      expect(res.status).toBe(202);
      expect(res.body.fingerprints).toHaveLength(100);
      expect(new Set(res.body.fingerprints).size).toBe(100);
      expect(res.body.fingerprint).toBe(res.body.fingerprints[0]);
      expect(await processed((run + 1) * 100, 60_000)).toBe((run + 1) * 100);
    }
    const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
    // Speed is judged in bench/ (issue: under 50 ms), not asserted here; the figure is printed.
    console.info(`[prometheus-alertmanager] 100-alert batch accepted in ${median.toFixed(1)} ms (median of ${runs})`);
  });
});
