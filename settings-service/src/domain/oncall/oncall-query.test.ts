import { AppError, type CallContext, notFound } from "@tocsin/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteOncallStore } from "../../store/sqlite-oncall-store.js";
import { createOncallQueries } from "./oncall-query.js";
import type { OncallDirectory, OncallMember, OncallUser } from "./ports.js";
import { createScheduleUseCases } from "./schedules.js";

/** auth-service's answers, by hand (it is another service; end-to-end suites use the real one). */
class Directory implements OncallDirectory {
  members: OncallMember[] = [];
  readonly users: OncallUser[] = [];
  tier: "free" | "premium" = "premium";

  add(id: number, username: string, accessLevel: number, blocked = false) {
    const user = { id, username, name: username.toUpperCase(), blocked };
    this.users.push(user);
    this.members.push({ ...user, accessLevel });
  }
  async getProject(idOrPath: string, viewerId: number | undefined) {
    if (idOrPath !== "7") throw notFound("Project");
    const accessLevel = viewerId === undefined ? 50 : (this.members.find((m) => m.id === viewerId)?.accessLevel ?? 0);
    return { id: 7, tier: this.tier, accessLevel };
  }
  async listMembers() {
    return this.members;
  }
  async getUsers(ids: readonly number[]) {
    return this.users.filter((u) => ids.includes(u.id));
  }
}

const as = (userId: number): CallContext => ({ requestId: "t", principal: { userId } });
const reason = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: unknown) => (e instanceof AppError ? e.reason : String(e)),
  );

describe("on-call use-cases: access and skipped participants", () => {
  let store: SqliteOncallStore;
  let directory: Directory;
  let schedules: ReturnType<typeof createScheduleUseCases>;
  let queries: ReturnType<typeof createOncallQueries>;

  beforeEach(async () => {
    store = new SqliteOncallStore(":memory:");
    directory = new Directory();
    directory.add(1, "mia", 40);
    directory.add(2, "dev", 30);
    directory.add(3, "rep", 20);
    directory.add(4, "ann", 30);
    directory.add(5, "ben", 30);
    const deps = { store, directory };
    schedules = createScheduleUseCases(deps);
    queries = createOncallQueries({ ...deps, now: () => new Date("2026-03-28T10:00:00Z") });
    await schedules.create("7", { name: "Primary", timezone: "Europe/London" }, as(1));
    await schedules.createRotation(
      "7",
      1,
      { name: "Days", startsAt: "2026-03-27T09:00", length: 1, unit: "days", participants: ["ann", "ben"] },
      as(1),
    );
  });
  afterEach(() => store.close());

  it("non-members 404, Free 403 with the tier reason, reads need Developer, writes Maintainer", async () => {
    expect(await reason(schedules.list("7", as(99)))).toBe("PROJECT_NOT_FOUND");
    expect(await reason(schedules.list("8", as(1)))).toBe("PROJECT_NOT_FOUND");
    expect(await reason(schedules.list("7", as(3)))).toBe("FORBIDDEN");
    expect(await reason(schedules.list("7", as(2)))).toBe("ok");
    expect(await reason(schedules.create("7", { name: "X", timezone: "UTC" }, as(2)))).toBe("FORBIDDEN");
    directory.tier = "free";
    expect(await reason(schedules.list("7", as(1)))).toBe("ONCALL_NEEDS_PREMIUM");
    expect(await reason(queries.oncall("7", undefined, as(2)))).toBe("ONCALL_NEEDS_PREMIUM");
  });

  it("who is on call now (the clock) skips a participant who left the project, shown as removed", async () => {
    const now = await queries.oncall("7", undefined, as(2));
    expect(now.map((o) => o.users.map((u) => u.username))).toEqual([["ben"]]);
    directory.members = directory.members.filter((m) => m.username !== "ben");
    const [after] = await queries.oncall("7", undefined, as(2));
    expect(after?.users).toEqual([]);
    expect(after?.skipped).toEqual([{ id: 5, username: "ben", name: "BEN", state: "removed" }]);
    const [rotation] = await schedules.listRotations("7", 1, as(2));
    expect(rotation?.participants.map((p) => [p.username, p.state])).toEqual([
      ["ann", "active"],
      ["ben", "removed"],
    ]);
    // A user who is not a member cannot be added again.
    expect(await reason(schedules.updateRotation("7", 1, rotation?.id ?? 0, { participants: ["ben"] }, as(1)))).toBe(
      "ONCALL_FIELD_INVALID",
    );
  });
});
