import { type CallContext, invalidArgument, notFound } from "@tocsin/core";
import { internalOnly, memberIds, memberIndex, projectFor, type UserView, userViews } from "./access.js";
import type { OncallDeps } from "./schedules.js";
import { existingSchedule } from "./schedules.js";
import { scheduleShifts } from "./shifts.js";
import type { Override, Schedule, Shift } from "./types.js";
import { checkOverrideTimes, parseInstant, required } from "./validate.js";

/** Section 11: `to − from` at most 31 days, at most 350 shifts. */
const MAX_WINDOW_MS = 31 * 24 * 3_600_000;
const MAX_SHIFTS = 350;

export interface OverrideInput {
  username?: string | undefined;
  startsAt?: string | undefined;
  endsAt?: string | undefined;
}

export interface OverrideView extends Override {
  user: UserView;
}

export interface ShiftView extends Shift {
  user: UserView;
}

/** Who is on call in one schedule: `users` may be paged; `skipped` are blocked or left the project. */
export interface OncallView {
  scheduleIid: number;
  scheduleName: string;
  users: UserView[];
  skipped: UserView[];
}

async function scheduleState(deps: OncallDeps, schedule: Schedule, from: Date, to: Date) {
  const [rotations, overrides] = await Promise.all([
    deps.store.listRotations(schedule.projectId, schedule.iid),
    deps.store.listOverrides(schedule.projectId, schedule.iid, { from, to }),
  ]);
  return { rotations, overrides };
}

/** On call at `at` in one schedule, split into pageable users and skipped ones (blocked, left). */
async function oncallIn(deps: OncallDeps, schedule: Schedule, at: Date, ctx: CallContext): Promise<OncallView> {
  const next = new Date(at.getTime() + 1);
  const { rotations, overrides } = await scheduleState(deps, schedule, at, next);
  const shifts = scheduleShifts(schedule.timezone, rotations, overrides, at.getTime(), next.getTime());
  const ids = [...new Set(shifts.map((s) => s.userId))];
  const users = await userViews(deps.directory, schedule.projectId, ids, ctx);
  const all = ids.map((id) => users.get(id) as UserView);
  return {
    scheduleIid: schedule.iid,
    scheduleName: schedule.name,
    users: all.filter((u) => u.state === "active"),
    skipped: all.filter((u) => u.state !== "active"),
  };
}

function instantParam(text: string | undefined, field: string, fallback?: Date): Date {
  if ((text === undefined || text === "") && fallback) return fallback;
  return parseInstant(required(text, field), field);
}

/** Overrides, shifts and "who is on call" (section 11), all from one computation (shifts.ts). */
export function createOncallQueries(deps: OncallDeps & { now: () => Date }) {
  const { store, directory } = deps;
  const overrideViews = async (projectId: number, overrides: Override[], ctx: CallContext) => {
    const users = await userViews(
      directory,
      projectId,
      overrides.map((o) => o.userId),
      ctx,
    );
    return overrides.map((o) => ({ ...o, user: users.get(o.userId) as UserView }));
  };
  return {
    async listOverrides(project: string, iid: number, ctx: CallContext): Promise<OverrideView[]> {
      const { id } = await projectFor(directory, project, "read", ctx);
      await existingSchedule(store, id, iid);
      return overrideViews(id, await store.listOverrides(id, iid), ctx);
    },
    async createOverride(project: string, iid: number, input: OverrideInput, ctx: CallContext): Promise<OverrideView> {
      const { id } = await projectFor(directory, project, "write", ctx);
      await existingSchedule(store, id, iid);
      const username = required(input.username, "username");
      const startsAt = instantParam(input.startsAt, "starts_at");
      const endsAt = instantParam(input.endsAt, "ends_at");
      checkOverrideTimes(startsAt, endsAt);
      const [userId] = memberIds(await memberIndex(directory, id, ctx), [username], "username");
      const created = await store.createOverride(id, iid, { userId: userId as number, startsAt, endsAt });
      return (await overrideViews(id, [created], ctx))[0] as OverrideView;
    },
    async removeOverride(project: string, iid: number, overrideId: number, ctx: CallContext): Promise<void> {
      const { id } = await projectFor(directory, project, "write", ctx);
      await existingSchedule(store, id, iid);
      if (!(await store.deleteOverride(id, iid, overrideId))) throw notFound("Oncall Override");
    },

    async shifts(project: string, iid: number, range: { from?: string; to?: string }, ctx: CallContext): Promise<ShiftView[]> {
      const { id } = await projectFor(directory, project, "read", ctx);
      const schedule = await existingSchedule(store, id, iid);
      const from = instantParam(range.from, "from");
      const to = instantParam(range.to, "to");
      if (to <= from) throw invalidArgument("ONCALL_SHIFTS_RANGE", "to must be after from");
      if (to.getTime() - from.getTime() > MAX_WINDOW_MS)
        throw invalidArgument("ONCALL_SHIFTS_RANGE", "to - from must be at most 31 days");
      const { rotations, overrides } = await scheduleState(deps, schedule, from, to);
      const shifts = scheduleShifts(schedule.timezone, rotations, overrides, from.getTime(), to.getTime());
      if (shifts.length > MAX_SHIFTS) {
        throw invalidArgument(
          "ONCALL_TOO_MANY_SHIFTS",
          `the range holds more than ${MAX_SHIFTS} shifts: ask for a shorter range`,
        );
      }
      const users = await userViews(
        directory,
        id,
        shifts.map((s) => s.userId),
        ctx,
      );
      return shifts.map((s) => ({ ...s, user: users.get(s.userId) as UserView }));
    },

    /** Every schedule of the project at `at` (default now). */
    async oncall(project: string, at: string | undefined, ctx: CallContext): Promise<OncallView[]> {
      const { id } = await projectFor(directory, project, "read", ctx);
      const instant = instantParam(at, "at", deps.now());
      return Promise.all((await store.listSchedules(id)).map((s) => oncallIn(deps, s, instant, ctx)));
    },

    /** For paging (internal callers only): one schedule at `at` (default now); 404 when it is gone. */
    async scheduleOncall(projectId: number, iid: number, at: Date | undefined, ctx: CallContext): Promise<OncallView> {
      internalOnly(ctx);
      return oncallIn(deps, await existingSchedule(store, projectId, iid), at ?? deps.now(), ctx);
    },
  };
}

export type OncallQueries = ReturnType<typeof createOncallQueries>;
