import { randomUUID } from "node:crypto";
import { forbidden, notFound } from "@tocsin/core";
import { FakeClock, rejectionReason } from "@tocsin/testing";
import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import { createSqliteSilenceStore } from "../../store/silences/sqlite-silence-store.js";
import type { ProjectAccess } from "../ports.js";
import { createSilenceIndexCache } from "./active-index.js";
import type { Matcher } from "./model.js";
import { createSilencesUseCases } from "./use-cases.js";
import type { SilenceInput } from "./validate.js";

const minute = 60_000;
const ctx = { requestId: "r1" };
const eq = (name: string, value: string): Matcher => ({ name, value, isRegex: false, isEqual: true });

describe("silence use-cases (Alertmanager's rules)", () => {
  let clock: FakeClock;
  let level: number;
  let silences: ReturnType<typeof createSilencesUseCases>;
  let loads: number;
  let index: ReturnType<typeof createSilenceIndexCache>;
  const at = (ms: number) => new Date(clock.now().getTime() + ms);
  const input = (over: Partial<SilenceInput> = {}): SilenceInput => ({
    matchers: [eq("alertname", "HighCPU")],
    endsAt: at(60 * minute),
    createdBy: "ops",
    comment: "failover",
    ...over,
  });

  beforeEach(() => {
    clock = new FakeClock("2026-11-21T10:00:00.000Z");
    level = 40;
    loads = 0;
    const projects: ProjectAccess = {
      async require(idOrPath, minLevel) {
        if (idOrPath !== "1" && idOrPath !== "group/app") throw notFound("Project");
        if (level < minLevel) throw forbidden();
        return { id: 1, fullPath: "group/app", tier: "free", accessLevel: level };
      },
      async byId(id) {
        return { id, fullPath: "group/app", tier: "free", accessLevel: 50 };
      },
    };
    const store = createSqliteSilenceStore(new Database(":memory:"));
    index = createSilenceIndexCache({
      clock,
      maxAgeMs: 60_000,
      load: (projectId, now) => {
        loads++;
        return store.list(projectId, { endsAfter: now });
      },
    });
    silences = createSilencesUseCases({ store, projects, clock, newId: randomUUID, index });
  });

  it("creates a silence starting now, active until its end, then expired", async () => {
    const s = await silences.upsert("group/app", input(), ctx);
    expect(s).toMatchObject({ projectId: 1, startsAt: clock.now(), state: "active", updatedAt: clock.now() });
    expect((await silences.get("1", s.id, ctx)).state).toBe("active");
    clock.advance(60 * minute);
    expect((await silences.get("1", s.id, ctx)).state).toBe("expired");
  });

  it("updates an active silence in place when only its end or comment change", async () => {
    const s = await silences.upsert("1", input(), ctx);
    clock.advance(minute);
    const u = await silences.upsert(
      "1",
      { ...input(), id: s.id, startsAt: s.startsAt, endsAt: at(120 * minute), comment: "longer" },
      ctx,
    );
    expect(u).toMatchObject({ id: s.id, comment: "longer", updatedAt: clock.now(), state: "active" });
    expect(await silences.list("1", {}, ctx)).toHaveLength(1);
  });

  it("replaces an active silence whose matchers change: new id, the old one expired", async () => {
    const s = await silences.upsert("1", input(), ctx);
    clock.advance(minute);
    const u = await silences.upsert("1", { ...input({ matchers: [eq("alertname", "Other")] }), id: s.id }, ctx);
    expect(u.id).not.toBe(s.id);
    expect(u.startsAt).toEqual(clock.now());
    expect(await silences.get("1", s.id, ctx)).toMatchObject({ state: "expired", endsAt: clock.now() });
    const list = await silences.list("1", { states: ["active"] }, ctx);
    expect(list.map((x) => x.id)).toEqual([u.id]);
  });

  it("replaces an active silence whose start moves, and a pending one whose start is in the past", async () => {
    const s = await silences.upsert("1", input(), ctx);
    const moved = await silences.upsert("1", { ...input(), id: s.id, startsAt: at(5 * minute) }, ctx);
    expect(moved.id).not.toBe(s.id);
    expect(moved.state).toBe("pending");
    const inPlace = await silences.upsert("1", { ...input(), id: moved.id, startsAt: at(10 * minute) }, ctx);
    expect(inPlace.id).toBe(moved.id);
    clock.advance(minute);
    const late = await silences.upsert("1", { ...input(), id: moved.id, startsAt: at(-minute) }, ctx);
    expect(late.id).not.toBe(moved.id);
    expect(late.startsAt).toEqual(clock.now());
  });

  it("never changes an expired silence: a post with its id creates a new one", async () => {
    const s = await silences.upsert("1", input(), ctx);
    await silences.expire("1", s.id, ctx);
    clock.advance(minute);
    const again = await silences.upsert("1", { ...input(), id: s.id }, ctx);
    expect(again.id).not.toBe(s.id);
    expect((await silences.get("1", s.id, ctx)).endsAt).toEqual(at(-minute));
  });

  it("expires: active ends now, pending starts and ends now, expired stays as it is", async () => {
    const active = await silences.upsert("1", input(), ctx);
    const pending = await silences.upsert("1", input({ startsAt: at(30 * minute) }), ctx);
    expect(await silences.expire("1", active.id, ctx)).toMatchObject({ state: "expired", endsAt: clock.now() });
    expect(await silences.expire("1", pending.id, ctx)).toMatchObject({ startsAt: clock.now(), endsAt: clock.now() });
    clock.advance(minute);
    expect((await silences.expire("1", active.id, ctx)).endsAt).toEqual(at(-minute));
    expect((await silences.list("1", { states: ["expired"] }, ctx)).length).toBe(2);
  });

  it("lists active by end, then pending by start, then expired; filters by matchers", async () => {
    const late = await silences.upsert("1", input({ endsAt: at(90 * minute) }), ctx);
    const soon = await silences.upsert("1", input({ matchers: [eq("job", "db")], endsAt: at(30 * minute) }), ctx);
    const pending = await silences.upsert("1", input({ startsAt: at(10 * minute) }), ctx);
    const gone = await silences.upsert("1", input(), ctx);
    await silences.expire("1", gone.id, ctx);
    expect((await silences.list("1", {}, ctx)).map((s) => s.id)).toEqual([soon.id, late.id, pending.id, gone.id]);
    const filtered = await silences.list("1", { filter: ['job="db"'] }, ctx);
    expect(filtered.map((s) => s.id)).toEqual([soon.id]);
  });

  it("a REST update merges the given fields into the stored silence", async () => {
    const s = await silences.upsert("1", input(), ctx);
    const u = await silences.update("1", s.id, { comment: "new text", endsAt: at(2 * 60 * minute) }, ctx);
    expect(u).toMatchObject({ id: s.id, comment: "new text", matchers: s.matchers, createdBy: "ops" });
  });

  it("refuses: unknown ids (404), bad input (400), Developer writes (403), nothing written", async () => {
    expect(await rejectionReason(silences.upsert("1", { ...input(), id: randomUUID() }, ctx))).toBe("SILENCE_NOT_FOUND");
    expect(await rejectionReason(silences.get("1", "x".repeat(500), ctx))).toBe("SILENCE_NOT_FOUND");
    expect(await rejectionReason(silences.upsert("1", input({ matchers: [] }), ctx))).toBe("SILENCE_INVALID");
    expect(await rejectionReason(silences.list("1", { states: ["gone"] }, ctx))).toBe("PARAM_VALUE_INVALID");
    expect(await rejectionReason(silences.list("1", { filter: ["job"] }, ctx))).toBe("FILTER_INVALID");
    level = 30;
    expect(await rejectionReason(silences.upsert("1", input(), ctx))).toBe("FORBIDDEN");
    expect(await silences.list("1", {}, ctx)).toEqual([]);
    level = 20;
    expect(await rejectionReason(silences.list("1", {}, ctx))).toBe("FORBIDDEN");
    expect(await rejectionReason(silences.list("2", {}, ctx))).toBe("PROJECT_NOT_FOUND");
  });

  it("writes invalidate the project's index, so the hot path sees them at once", async () => {
    const subject = {
      labels: { alertname: "HighCPU" },
      title: "HighCPU",
      severity: "critical",
      service: "",
      monitoringTool: "",
      environment: "",
      hosts: [],
      fingerprint: "f",
    };
    expect((await index.get(1)).covering(subject, clock.now())).toEqual([]);
    const s = await silences.upsert("1", input(), ctx);
    expect((await index.get(1)).covering(subject, clock.now())).toEqual([s.id]);
    await silences.expire("1", s.id, ctx);
    expect((await index.get(1)).covering(subject, clock.now())).toEqual([]);
    expect(loads).toBe(3);
  });
});
