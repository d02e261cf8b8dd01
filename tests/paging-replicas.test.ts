import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { ADMIN, builtForReplicas, type ReplicaSystem, startReplicaSystem } from "./multi-replica-system.js";
import { addMember, seedGroup, seedProject, seedUser } from "./seed.js";
import { type SmtpSink, startSmtpSink } from "./smtp-sink.js";

/**
 * Paging with two replicas of every service (MongoDB, BullMQ): alerts posted through both
 * gateways, a policy of two rules repeated once; every (alert, rule, round) pages exactly once,
 * whichever alert-service replica runs its jobs. Policy seconds are 20 ms (PAGING_SECOND_MS).
 */
const redisUrl = inject("redisUrl");
const available = builtForReplicas && !!redisUrl && !!inject("mongoUrl");
if (!available) console.warn("[paging replicas] needs the builds, Redis and FerretDB: SKIPPED");

describe.skipIf(!available)("paging with two alert-service replicas", () => {
  let sink: SmtpSink;
  let sys: ReplicaSystem;
  let hooks: string[];
  let token: string;
  let catEmail: string;

  beforeAll(async () => {
    sink = await startSmtpSink();
    sys = await startReplicaSystem(redisUrl as string, { SMTP_URL: sink.url, PAGING_SECOND_MS: "20" });
    const url = sys.gateways[0];
    const cat = await seedUser(url, ADMIN, { username: "cat" });
    catEmail = cat.user.email;
    const group = await seedGroup(url, ADMIN, { path: "ops", plan: "premium" });
    const project = await seedProject(url, ADMIN, { path: "pager", namespaceId: group.id });
    await addMember(url, ADMIN, "projects", project.id, cat.user.id, 30);
    const admin = api(url, ADMIN);
    const im = `/api/v4/projects/${project.id}/incident_management`;
    expect((await admin.post(`${im}/oncall_schedules`, { name: "Primary", timezone: "UTC" })).status).toBe(201);
    const rotation = await admin.post(`${im}/oncall_schedules/1/rotations`, {
      name: "Always cat",
      starts_at: "2020-01-06T00:00",
      rotation_length: { length: 1, unit: "weeks" },
      participants: ["cat"],
    });
    expect(rotation.status, rotation.text).toBe(201);
    const policy = await admin.post(`${im}/escalation_policies`, {
      name: "Twice",
      rules: [
        { status: "acknowledged", elapsed_time_seconds: 0, oncall_schedule_iid: 1 },
        { status: "acknowledged", elapsed_time_seconds: 30, username: "cat" },
      ],
      repeat_every_seconds: 60,
      max_repeats: 1,
    });
    expect(policy.status, policy.text).toBe(201);
    const created = await admin.post(`/api/v4/projects/${project.id}/alert_management/http_integrations`, {
      name: "Monitor",
      active: true,
    });
    expect(created.status, created.text).toBe(201);
    const path = new URL(created.body.url as string).pathname;
    hooks = sys.gateways.map((g) => `${g}${path}`);
    token = created.body.token as string;
  }, 180_000);

  afterAll(async () => {
    await sys?.stop();
    await sink?.stop();
  });

  it("each (alert, rule, round) pages once, whichever replica runs it", async () => {
    const ALERTS = 10;
    await Promise.all(
      Array.from({ length: ALERTS }, async (_, i) => {
        const res = await fetch(hooks[i % 2] as string, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ title: `Replica alert ${i}`, fingerprint: `replica-${i}` }),
        });
        expect(res.status).toBe(202);
        await res.text();
      }),
    );
    const keys = () => sink.to(catEmail).map((m) => String(m.headers.get("x-tocsin-page")));
    // 2 rules × 2 rounds per alert.
    await until(() => keys().length >= ALERTS * 4, 90_000);
    // The last round's rule 1 is due 90 policy seconds (1.8 s) after its trigger; the alerts'
    // escalations say nothing is pending once every page went out.
    await until(async () => {
      const list = await api(sys.gateways[1], ADMIN).get("/api/v4/projects/ops%2Fpager/alert_management/alerts?per_page=100");
      const details = await Promise.all(
        (list.body as Array<{ iid: number }>).map(
          async (a) =>
            (await api(sys.gateways[0], ADMIN).get(`/api/v4/projects/ops%2Fpager/alert_management/alerts/${a.iid}`)).body,
        ),
      );
      return (
        details.length === ALERTS && details.every((d) => d.escalation?.pages.length === 4 && d.escalation.next_page_at === null)
      );
    }, 60_000);
    const all = keys();
    expect(all).toHaveLength(ALERTS * 4);
    expect(new Set(all).size).toBe(ALERTS * 4);
  }, 180_000);
});
