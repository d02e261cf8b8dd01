import { createClient, type PromiseClient } from "@tocsin/grpc";
import { oncallV1 } from "@tocsin/proto";
import { rejectionReason } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type OncallWorld, oncallBackends, startOncallWorld, userJson } from "./oncall-system.js";

/**
 * Escalation policies over REST (PRODUCT.md section 11, last row) and the two gRPC calls paging
 * will make (who is on call in a schedule at t; the project's policy), on both storage modes.
 */
describe.each(oncallBackends("escalation-policies"))("escalation policies, end to end (%s)", (_name, env) => {
  let w: OncallWorld;
  let grpc: PromiseClient<typeof oncallV1.OncallServiceService>;
  const internal = { requestId: "escalation-test" };
  const policies = () => `${w.base()}/escalation_policies`;
  const rule = (extra: Record<string, unknown> = {}) => ({
    status: "acknowledged",
    elapsed_time_seconds: 0,
    oncall_schedule_iid: 1,
    ...extra,
  });

  beforeAll(async () => {
    w = await startOncallWorld(env);
    grpc = createClient(oncallV1.OncallServiceService, { target: "settings", address: w.sys.settingsAddr });
    const as = w.as(w.users.mia);
    expect((await as.post(`${w.base()}/oncall_schedules`, { name: "Primary", timezone: "Australia/Sydney" })).status).toBe(201);
    const rotation = await as.post(`${w.base()}/oncall_schedules/1/rotations`, {
      name: "Weeks",
      starts_at: "2026-09-28T09:00",
      rotation_length: { length: 1, unit: "weeks" },
      participants: ["bob", "cat"],
    });
    expect(rotation.status).toBe(201);
  });
  afterAll(async () => {
    grpc?.close();
    await w?.sys.stop();
  });

  it("refuses every rule of the section with a 400 and writes nothing", async () => {
    const as = w.as(w.users.mia);
    const base = { name: "Page the team", rules: [rule()] };
    const refused: Array<[Record<string, unknown>, unknown]> = [
      [{ name: undefined }, { error: "name is missing" }],
      [{ name: "n".repeat(73) }, { message: { name: ["is too long (maximum is 72 characters)"] } }],
      [{ description: "d".repeat(161) }, { message: { description: ["is too long (maximum is 160 characters)"] } }],
      [{ rules: [] }, { message: { rules: ["must have from 1 to 10 rules"] } }],
      [{ rules: undefined }, { error: "rules is missing" }],
      [
        { rules: Array.from({ length: 11 }, (_, i) => rule({ elapsed_time_seconds: i })) },
        { message: { rules: ["must have from 1 to 10 rules"] } },
      ],
      [{ rules: [rule(), rule()] }, { message: { rules: ["must be unique by target, status and elapsed_time_seconds"] } }],
      [{ rules: [rule({ status: "triggered" })] }, { message: { "rules[0]": ["status must be acknowledged or resolved"] } }],
      [
        { rules: [rule({ elapsed_time_seconds: 86_401 })] },
        { message: { "rules[0]": ["elapsed_time_seconds must be an integer from 0 to 86400"] } },
      ],
      [
        { rules: [rule({ username: "bob" })] },
        { message: { "rules[0]": ["must have exactly one of oncall_schedule_iid and username"] } },
      ],
      [
        { rules: [rule({ oncall_schedule_iid: 7 })] },
        { message: { "rules[0]": ["oncall_schedule_iid is not a schedule of the project"] } },
      ],
      [
        { rules: [{ status: "resolved", elapsed_time_seconds: 60, username: "nobody" }] },
        { message: { "rules[0]": ["nobody is not a member of the project"] } },
      ],
      [{ repeat_every_seconds: 59 }, { message: { repeat_every_seconds: ["must be null or an integer from 60 to 86400"] } }],
      [{ repeat_every_seconds: 0 }, { message: { repeat_every_seconds: ["must be null or an integer from 60 to 86400"] } }],
      [
        { rules: [rule({ elapsed_time_seconds: 600 })], repeat_every_seconds: 600 },
        { message: { repeat_every_seconds: ["must be greater than every rule's elapsed_time_seconds"] } },
      ],
      [{ max_repeats: 10 }, { message: { max_repeats: ["must be an integer from 0 to 9"] } }],
      [{ rules: "all" }, { error: "rules is invalid" }],
    ];
    for (const [change, answer] of refused) {
      const res = await as.post(policies(), { ...base, ...change });
      expect([change, res.status, res.body]).toEqual([change, 400, answer]);
    }
    expect((await as.get(policies())).body).toEqual([]);
  });

  it("create, read, update, delete; one per project; a targeted schedule cannot be deleted", async () => {
    const as = w.as(w.users.mia);
    const { bob, dev, rep } = w.users;
    const created = await as.post(policies(), {
      name: "Page the team",
      description: "Primary, then Bob",
      rules: [rule(), { status: "resolved", elapsed_time_seconds: 300, username: "bob" }],
      repeat_every_seconds: 900,
      max_repeats: 2,
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: created.body.id,
      name: "Page the team",
      description: "Primary, then Bob",
      rules: [
        { status: "acknowledged", elapsed_time_seconds: 0, oncall_schedule: { iid: 1, name: "Primary" }, user: null },
        { status: "resolved", elapsed_time_seconds: 300, oncall_schedule: null, user: userJson(bob) },
      ],
      repeat_every_seconds: 900,
      max_repeats: 2,
    });
    const second = await as.post(policies(), { name: "Another", rules: [rule()] });
    expect([second.status, second.body]).toEqual([409, { message: "Project can only have one escalation policy" }]);
    expect((await w.as(dev).get(policies())).body).toEqual([created.body]);
    expect((await w.as(dev).get(`${policies()}/${created.body.id}`)).body).toEqual(created.body);
    expect((await w.as(rep).get(policies())).status).toBe(403);
    expect((await w.as(dev).put(`${policies()}/${created.body.id}`, { name: "Mine" })).status).toBe(403);

    const kept = await as.put(`${policies()}/${created.body.id}`, { name: "Renamed", repeat_every_seconds: null });
    expect(kept.body).toEqual({ ...created.body, name: "Renamed", repeat_every_seconds: null });
    const badUpdate = await as.put(`${policies()}/${created.body.id}`, { repeat_every_seconds: 120 });
    expect(badUpdate.status).toBe(400);
    expect((await as.put(`${policies()}/${created.body.id}`, { rules: [] })).status).toBe(400);
    expect((await as.get(`${policies()}/${created.body.id}`)).body).toEqual(kept.body);

    const inUse = await as.del(`${w.base()}/oncall_schedules/1`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.message).toMatch(/escalation policy/);
    expect((await as.get(`${policies()}/${created.body.id + 1}`)).status).toBe(404);
    const other = await as.put(`${policies()}/${created.body.id}`, {
      rules: [{ status: "acknowledged", elapsed_time_seconds: 0, username: "cat" }],
    });
    expect(other.body.rules).toEqual([
      { status: "acknowledged", elapsed_time_seconds: 0, oncall_schedule: null, user: userJson(w.users.cat) },
    ]);
    expect((await as.post(`${w.base()}/oncall_schedules`, { name: "Spare", timezone: "UTC" })).status).toBe(201);
    expect((await as.del(`${w.base()}/oncall_schedules/2`)).status).toBe(204);

    // Restore the schedule rule for the paging calls below.
    const restored = await as.put(`${policies()}/${created.body.id}`, {
      rules: [rule(), { status: "resolved", elapsed_time_seconds: 300, username: "bob" }],
    });
    expect(restored.status).toBe(200);
  });

  it("paging's gRPC calls: who is on call in a schedule at t (skipping blocked users) and the project's policy", async () => {
    // Sydney, weekly from Monday 28 September 09:00 AEST: bob, then cat from 4 October 22:00Z (AEDT).
    const at = (iso: string) => grpc.resolveScheduleOncall({ projectId: w.project, scheduleIid: 1, at: new Date(iso) }, internal);
    const names = (o: oncallV1.ScheduleOncall | undefined) => [
      o?.users.map((u) => u.username),
      o?.skipped.map((u) => u.username),
    ];
    expect(names((await at("2026-10-04T21:59:59Z")).oncall)).toEqual([["bob"], []]);
    expect(names((await at("2026-10-04T22:00:00Z")).oncall)).toEqual([["cat"], []]);
    const admin = api(w.sys.url, w.sys.adminToken);
    expect((await admin.post(`/api/v4/users/${w.users.cat.user.id}/block`)).status).toBe(201);
    try {
      const blocked = (await at("2026-10-05T12:00:00Z")).oncall;
      expect(names(blocked)).toEqual([[], ["cat"]]);
      expect(blocked?.skipped[0]?.state).toBe("blocked");
    } finally {
      await admin.post(`/api/v4/users/${w.users.cat.user.id}/unblock`);
    }
    const { policy } = await grpc.getProjectEscalationPolicy({ projectId: w.project }, internal);
    expect(policy?.rules.map((r) => [r.status, r.elapsedTimeSeconds, r.oncallScheduleIid, r.user?.username ?? ""])).toEqual([
      ["acknowledged", 0, 1, ""],
      ["resolved", 300, 0, "bob"],
    ]);
    expect((await grpc.getProjectEscalationPolicy({ projectId: w.freeProject }, internal)).policy).toBeUndefined();
    expect(
      await rejectionReason(grpc.resolveScheduleOncall({ projectId: w.project, scheduleIid: 9, at: undefined }, internal)),
    ).toBe("ONCALL_SCHEDULE_NOT_FOUND");
    // Only other services may ask by project id: a user's principal is refused.
    const asUser = { requestId: "x", principal: { userId: w.users.mia.user.id } };
    expect(await rejectionReason(grpc.getProjectEscalationPolicy({ projectId: w.project }, asUser))).toBe("FORBIDDEN");
  });

  it("deleting the policy frees the schedule", async () => {
    const as = w.as(w.users.mia);
    const [policy] = (await as.get(policies())).body;
    expect((await as.del(`${policies()}/${policy.id}`)).status).toBe(204);
    expect((await as.del(`${policies()}/${policy.id}`)).status).toBe(404);
    expect((await as.get(policies())).body).toEqual([]);
    expect((await as.del(`${w.base()}/oncall_schedules/1`)).status).toBe(204);
  });
});
