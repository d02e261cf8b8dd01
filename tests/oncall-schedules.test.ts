import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type OncallWorld, oncallBackends, startOncallWorld, userJson } from "./oncall-system.js";

const PREMIUM = { message: "403 Forbidden - on-call schedules and escalation policies need the Premium tier" };

/**
 * On-call schedules over REST (PRODUCT.md section 11, first four rows and `GET /oncall`), end to
 * end through the gateway and settings-service, on both storage modes.
 */
describe.each(oncallBackends("oncall-schedules"))("on-call schedules, end to end (%s)", (_name, env) => {
  let w: OncallWorld;
  beforeAll(async () => {
    w = await startOncallWorld(env);
  });
  afterAll(async () => {
    await w?.sys.stop();
  });

  const schedules = () => `${w.base()}/oncall_schedules`;

  it("access: Free → 403 with the tier message (reads too), non-members 404, Developer reads, Maintainer writes", async () => {
    const { mia, dev, rep, nobody } = w.users;
    for (const path of ["oncall_schedules", "oncall", "escalation_policies"]) {
      const res = await w.as(mia).get(`${w.base(w.freeProject)}/${path}`);
      expect([path, res.status, res.body]).toEqual([path, 403, PREMIUM]);
    }
    expect((await w.as(mia).post(`${w.base(w.freeProject)}/oncall_schedules`, { name: "x", timezone: "UTC" })).body).toEqual(
      PREMIUM,
    );
    expect((await w.as(nobody).get(schedules())).status).toBe(404);
    expect((await w.as(nobody).get(schedules())).body).toEqual({ message: "404 Project Not Found" });
    expect((await w.as(rep).get(schedules())).status).toBe(403);
    expect((await w.as(dev).get(schedules())).status).toBe(200);
    expect((await w.as(dev).post(schedules(), { name: "Dev's", timezone: "UTC" })).status).toBe(403);
    expect((await api(w.sys.url).get(schedules())).status).toBe(401);
  });

  it("schedules: create, read, list, update, delete, with GitLab's 400s and nothing half-written", async () => {
    const as = w.as(w.users.mia);
    const created = await as.post(schedules(), { name: "Primary", description: "Day team", timezone: "Europe/London" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ iid: 1, name: "Primary", description: "Day team", timezone: "Europe/London", rotations: [] });
    expect((await as.post(schedules(), { name: "No zone" })).body).toEqual({ error: "timezone is missing" });
    expect((await as.post(schedules(), { timezone: "UTC" })).body).toEqual({ error: "name is missing" });
    const badZone = await as.post(schedules(), { name: "Bad", timezone: "Mars/Olympus" });
    expect([badZone.status, badZone.body]).toEqual([
      400,
      { message: { timezone: ["is not a valid IANA time zone (e.g. Europe/London)"] } },
    ]);
    const taken = await as.post(schedules(), { name: "Primary", timezone: "UTC" });
    expect([taken.status, taken.body]).toEqual([400, { message: { name: ["has already been taken"] } }]);
    expect((await as.post(schedules(), { name: "x".repeat(201), timezone: "UTC" })).status).toBe(400);
    expect((await as.post(schedules(), { name: "Long", description: "d".repeat(1001), timezone: "UTC" })).status).toBe(400);
    const second = await as.post(schedules(), { name: "Temp", timezone: "America/Chicago" });
    expect(second.body.iid).toBe(2);
    expect((await as.put(`${schedules()}/2`, { name: "Primary" })).status).toBe(400);
    const renamed = await as.put(`${schedules()}/2`, { name: "Secondary", description: "Nights" });
    expect(renamed.body).toEqual({
      iid: 2,
      name: "Secondary",
      description: "Nights",
      timezone: "America/Chicago",
      rotations: [],
    });
    expect((await w.as(w.users.dev).get(`${schedules()}/2`)).body).toEqual(renamed.body);
    expect((await as.get(schedules())).body.map((s: { name: string }) => s.name)).toEqual(["Primary", "Secondary"]);
    expect((await as.del(`${schedules()}/2`)).status).toBe(204);
    const gone = await as.get(`${schedules()}/2`);
    expect([gone.status, gone.body]).toEqual([404, { message: "404 Oncall Schedule Not Found" }]);
    expect((await as.get(schedules())).body.map((s: { name: string }) => s.name)).toEqual(["Primary"]);
  });

  it("rotations: participants in order as users, the section's rules as 400s, update and delete", async () => {
    const as = w.as(w.users.mia);
    const { bob, cat, dev, nobody } = w.users;
    const rotations = `${schedules()}/1/rotations`;
    const body = {
      name: "Days",
      starts_at: "2026-03-27T09:00",
      rotation_length: { length: 1, unit: "days" },
      participants: [{ username: "bob" }, { username: "cat" }],
    };
    const created = await as.post(rotations, body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: created.body.id,
      name: "Days",
      starts_at: "2026-03-27T09:00",
      ends_at: null,
      rotation_length: { length: 1, unit: "days" },
      active_period: null,
      participants: [{ user: userJson(bob) }, { user: userJson(cat) }],
    });
    const refused: Array<[Record<string, unknown>, unknown]> = [
      [{ name: "Days" }, { message: { name: ["has already been taken"] } }],
      [{ participants: [{ username: "nobody" }] }, { message: { participants: ["nobody is not a member of the project"] } }],
      [{ participants: [] }, { message: { participants: ["must name at least one user"] } }],
      [{ participants: undefined }, { error: "participants is missing" }],
      [{ starts_at: "2026-03-27 09:00" }, { message: { starts_at: ["must be a wall-clock date and time YYYY-MM-DDTHH:MM"] } }],
      [{ ends_at: "2026-03-27T08:00" }, { message: { ends_at: ["must be after starts_at"] } }],
      [
        { rotation_length: { length: 0, unit: "days" } },
        { message: { rotation_length: ["length must be an integer from 1 to 1000"] } },
      ],
      [
        { rotation_length: { length: 1, unit: "months" } },
        { message: { rotation_length: ["unit must be hours, days or weeks"] } },
      ],
      [
        { rotation_length: { length: 8, unit: "hours" }, active_period: { start_time: "09:00", end_time: "17:00" } },
        { message: { active_period: ["is not allowed for hourly rotations"] } },
      ],
      [
        { active_period: { start_time: "25:00", end_time: "17:00" } },
        { message: { active_period: ["start_time and end_time must be HH:MM"] } },
      ],
    ];
    for (const [change, answer] of refused) {
      const res = await as.post(rotations, { ...body, name: "Other", ...change });
      expect([change, res.status, res.body]).toEqual([change, 400, answer]);
    }
    const many = Array.from({ length: 101 }, () => ({ username: "bob" }));
    expect((await as.post(rotations, { ...body, name: "Many", participants: many })).status).toBe(400);
    expect((await as.get(rotations)).body).toHaveLength(1);
    expect((await w.as(dev).get(`${rotations}/${created.body.id}`)).body).toEqual(created.body);

    const nights = await as.post(rotations, {
      ...body,
      name: "Nights",
      ends_at: "2026-12-31T09:00",
      active_period: { start_time: "22:00", end_time: "06:00" },
      participants: ["cat", "bob", "cat"],
    });
    expect(nights.body.participants.map((p: { user: { username: string } }) => p.user.username)).toEqual(["cat", "bob", "cat"]);
    expect(nights.body.active_period).toEqual({ start_time: "22:00", end_time: "06:00" });
    const changed = await as.put(`${rotations}/${nights.body.id}`, {
      rotation_length: { length: 2, unit: "weeks" },
      ends_at: null,
    });
    expect(changed.body).toMatchObject({ name: "Nights", ends_at: null, rotation_length: { length: 2, unit: "weeks" } });
    expect(changed.body.participants).toEqual(nights.body.participants);
    expect((await as.put(`${rotations}/${nights.body.id}`, { name: "Days" })).status).toBe(400);
    expect((await as.put(`${rotations}/${nights.body.id}`, { participants: [] })).body).toEqual({
      message: { participants: ["must name at least one user"] },
    });
    expect((await w.as(dev).put(`${rotations}/${nights.body.id}`, { name: "Mine" })).status).toBe(403);
    expect((await as.get(`${schedules()}/1`)).body.rotations.map((r: { name: string }) => r.name)).toEqual(["Days", "Nights"]);
    expect((await as.del(`${rotations}/${nights.body.id}`)).status).toBe(204);
    expect((await as.get(`${rotations}/${nights.body.id}`)).status).toBe(404);
    expect((await as.get(`${schedules()}/9/rotations`)).status).toBe(404);
    expect(nobody.user.id).toBeGreaterThan(0);
  });

  it("overrides, shifts across the March change and who is on call, from one computation", async () => {
    const as = w.as(w.users.mia);
    const { bob, cat, dev } = w.users;
    const overrides = `${schedules()}/1/overrides`;
    const refused: Array<[Record<string, unknown>, unknown]> = [
      [{ username: "nobody" }, { message: { username: ["nobody is not a member of the project"] } }],
      [{ starts_at: "2026-03-28T12:00:00" }, { message: { starts_at: ["must be an ISO 8601 time with an offset"] } }],
      [{ ends_at: "2026-03-28T11:00:00Z" }, { message: { ends_at: ["must be after starts_at"] } }],
      [{ ends_at: "2027-03-29T12:00:00Z" }, { message: { ends_at: ["must be at most one year after starts_at"] } }],
      [{ username: undefined }, { error: "username is missing" }],
    ];
    const body = { username: "dev", starts_at: "2026-03-28T12:00:00Z", ends_at: "2026-03-28T19:00:00+01:00" };
    for (const [change, answer] of refused) {
      const res = await as.post(overrides, { ...body, ...change });
      expect([change, res.status, res.body]).toEqual([change, 400, answer]);
    }
    const override = await as.post(overrides, body);
    expect([override.status, override.body]).toEqual([
      201,
      { id: override.body.id, user: userJson(dev), starts_at: "2026-03-28T12:00:00.000Z", ends_at: "2026-03-28T18:00:00.000Z" },
    ]);
    expect((await w.as(dev).get(overrides)).body).toEqual([override.body]);

    // Days: bob, cat from 27 March 09:00 London; 29 March is the first day of BST (handover 08:00Z).
    const rotationId = (await as.get(`${schedules()}/1/rotations`)).body[0].id;
    const shifts = await w.as(dev).get(`${schedules()}/1/shifts?from=2026-03-28T00:00:00Z&to=2026-03-30T00:00:00Z`);
    expect(shifts.status).toBe(200);
    const row = (user: typeof bob, from: string, to: string, rotation: number | null, over: number | null = null) => ({
      rotation_id: rotation,
      override_id: over,
      user: userJson(user),
      starts_at: from,
      ends_at: to,
    });
    expect(shifts.body).toEqual([
      row(bob, "2026-03-27T09:00:00.000Z", "2026-03-28T09:00:00.000Z", rotationId),
      row(cat, "2026-03-28T09:00:00.000Z", "2026-03-28T12:00:00.000Z", rotationId),
      row(dev, "2026-03-28T12:00:00.000Z", "2026-03-28T18:00:00.000Z", null, override.body.id),
      row(cat, "2026-03-28T18:00:00.000Z", "2026-03-29T08:00:00.000Z", rotationId),
      row(bob, "2026-03-29T08:00:00.000Z", "2026-03-30T08:00:00.000Z", rotationId),
    ]);
    const oncall = (at: string) => w.as(dev).get(`${w.base()}/oncall?at=${encodeURIComponent(at)}`);
    expect((await oncall("2026-03-28T13:00:00Z")).body).toEqual([
      { schedule_iid: 1, schedule_name: "Primary", users: [userJson(dev)], skipped_users: [] },
    ]);
    expect((await oncall("2026-03-29T09:30:00+01:00")).body[0].users).toEqual([userJson(bob)]);
    expect((await w.as(dev).get(`${w.base()}/oncall`)).status).toBe(200);
    expect((await oncall("yesterday")).body).toEqual({ message: { at: ["must be an ISO 8601 time with an offset"] } });

    const shiftsOf = (from: string, to: string) => w.as(dev).get(`${schedules()}/1/shifts?from=${from}&to=${to}`);
    expect((await shiftsOf("2026-03-01T00:00:00Z", "2026-04-02T00:00:00Z")).body).toEqual({
      message: "to - from must be at most 31 days",
    });
    expect((await shiftsOf("2026-03-02T00:00:00Z", "2026-03-01T00:00:00Z")).status).toBe(400);
    expect((await w.as(dev).get(`${schedules()}/1/shifts?to=2026-03-01T00:00:00Z`)).body).toEqual({ error: "from is missing" });
    const hourly = await as.post(`${schedules()}/1/rotations`, {
      name: "Hourly",
      starts_at: "2026-03-01T00:00",
      rotation_length: { length: 1, unit: "hours" },
      participants: ["bob"],
    });
    expect(hourly.status).toBe(201);
    const tooMany = await shiftsOf("2026-03-01T00:00:00Z", "2026-03-31T00:00:00Z");
    expect([tooMany.status, tooMany.body]).toEqual([
      400,
      { message: "the range holds more than 350 shifts: ask for a shorter range" },
    ]);
    expect((await as.del(`${schedules()}/1/rotations/${hourly.body.id}`)).status).toBe(204);

    expect((await as.del(`${overrides}/${override.body.id}`)).status).toBe(204);
    expect((await as.del(`${overrides}/${override.body.id}`)).status).toBe(404);
    expect((await oncall("2026-03-28T13:00:00Z")).body[0].users).toEqual([userJson(cat)]);
  });

  it("a blocked participant stays in the rotation but is skipped, and shown as such", async () => {
    const admin = api(w.sys.url, w.sys.adminToken);
    const { bob, dev } = w.users;
    expect((await admin.post(`/api/v4/users/${bob.user.id}/block`)).status).toBe(201);
    try {
      const at = "2026-03-29T12:00:00Z";
      expect((await w.as(dev).get(`${w.base()}/oncall?at=${at}`)).body).toEqual([
        { schedule_iid: 1, schedule_name: "Primary", users: [], skipped_users: [userJson(bob, "blocked")] },
      ]);
      const rotation = (await w.as(dev).get(`${schedules()}/1/rotations`)).body[0];
      expect(rotation.participants[0]).toEqual({ user: userJson(bob, "blocked") });
    } finally {
      await admin.post(`/api/v4/users/${bob.user.id}/unblock`);
    }
  });
});
