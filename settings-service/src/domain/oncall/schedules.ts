import { type CallContext, notFound, paramMissing } from "@tocsin/core";
import { memberIds, memberIndex, projectFor, type UserView, userViews } from "./access.js";
import { scheduleInUse } from "./errors.js";
import type { OncallDirectory, OncallStore } from "./ports.js";
import type { ActivePeriod, Rotation, RotationFields, Schedule } from "./types.js";
import { checkParticipantCount, checkRotation, checkSchedule, required } from "./validate.js";

export interface OncallDeps {
  store: OncallStore;
  directory: OncallDirectory;
}

export interface ScheduleInput {
  name?: string | undefined;
  description?: string | undefined;
  timezone?: string | undefined;
}

/** A rotation change as asked for; `null` clears an optional field (PUT), undefined keeps it. */
export interface RotationInput {
  name?: string | undefined;
  startsAt?: string | undefined;
  endsAt?: string | null | undefined;
  length?: number | undefined;
  unit?: string | undefined;
  activePeriod?: ActivePeriod | null | undefined;
  /** Usernames in hand-over order; undefined keeps them (on update). */
  participants?: string[] | undefined;
}

export interface RotationView extends Rotation {
  participants: UserView[];
}

export interface ScheduleView extends Schedule {
  rotations: RotationView[];
}

const scheduleNotFound = () => notFound("Oncall Schedule");
const rotationNotFound = () => notFound("Oncall Rotation");

async function rotationViews(deps: OncallDeps, projectId: number, rotations: Rotation[], ctx: CallContext) {
  const users = await userViews(
    deps.directory,
    projectId,
    rotations.flatMap((r) => r.participantIds),
    ctx,
  );
  return rotations.map((r) => ({ ...r, participants: r.participantIds.map((id) => users.get(id) as UserView) }));
}

async function scheduleView(deps: OncallDeps, schedule: Schedule, ctx: CallContext): Promise<ScheduleView> {
  const rotations = await deps.store.listRotations(schedule.projectId, schedule.iid);
  return { ...schedule, rotations: await rotationViews(deps, schedule.projectId, rotations, ctx) };
}

/** The schedule, or 404 `Oncall Schedule Not Found`. */
export async function existingSchedule(store: OncallStore, projectId: number, iid: number): Promise<Schedule> {
  const schedule = await store.getSchedule(projectId, iid);
  if (!schedule) throw scheduleNotFound();
  return schedule;
}

async function rotationFields(
  deps: OncallDeps,
  projectId: number,
  input: RotationInput,
  base: RotationFields | undefined,
  ctx: CallContext,
) {
  const keep = <T>(value: T | null | undefined, old: T | undefined) => (value === null ? undefined : (value ?? old));
  const draft = checkRotation({
    name: required(input.name ?? base?.name, "name"),
    startsAt: required(input.startsAt ?? base?.startsAt, "starts_at"),
    endsAt: keep(input.endsAt, base?.endsAt),
    length: required(input.length ?? base?.length, "rotation_length[length]"),
    unit: required(input.unit ?? base?.unit, "rotation_length[unit]"),
    activePeriod: keep(input.activePeriod, base?.activePeriod),
  });
  let participantIds = base?.participantIds;
  if (input.participants) {
    checkParticipantCount(input.participants);
    participantIds = memberIds(await memberIndex(deps.directory, projectId, ctx), input.participants, "participants");
  } else if (!base) {
    throw paramMissing("participants");
  }
  const fields: RotationFields = { ...draft, participantIds: participantIds as number[] };
  if (fields.endsAt === undefined) delete fields.endsAt;
  if (fields.activePeriod === undefined) delete fields.activePeriod;
  return fields;
}

/** Schedules and their rotations (section 11): Developer+ reads, Maintainer+ writes, Premium+. */
export function createScheduleUseCases(deps: OncallDeps) {
  const { store, directory } = deps;
  return {
    async list(project: string, ctx: CallContext): Promise<ScheduleView[]> {
      const { id } = await projectFor(directory, project, "read", ctx);
      return Promise.all((await store.listSchedules(id)).map((s) => scheduleView(deps, s, ctx)));
    },
    async get(project: string, iid: number, ctx: CallContext): Promise<ScheduleView> {
      const { id } = await projectFor(directory, project, "read", ctx);
      return scheduleView(deps, await existingSchedule(store, id, iid), ctx);
    },
    async create(project: string, input: ScheduleInput, ctx: CallContext): Promise<ScheduleView> {
      const { id } = await projectFor(directory, project, "write", ctx);
      const fields = checkSchedule({
        name: required(input.name, "name"),
        description: input.description ?? "",
        timezone: required(input.timezone, "timezone"),
      });
      return { ...(await store.createSchedule(id, fields)), rotations: [] };
    },
    async update(project: string, iid: number, input: ScheduleInput, ctx: CallContext): Promise<ScheduleView> {
      const { id } = await projectFor(directory, project, "write", ctx);
      const old = await existingSchedule(store, id, iid);
      const fields = checkSchedule({
        name: input.name ?? old.name,
        description: input.description ?? old.description,
        timezone: input.timezone ?? old.timezone,
      });
      const updated = await store.updateSchedule(id, iid, fields);
      if (!updated) throw scheduleNotFound();
      return scheduleView(deps, updated, ctx);
    },
    async remove(project: string, iid: number, ctx: CallContext): Promise<void> {
      const { id } = await projectFor(directory, project, "write", ctx);
      await existingSchedule(store, id, iid);
      const policy = await store.getPolicy(id);
      if (policy?.rules.some((r) => r.scheduleIid === iid)) throw scheduleInUse();
      if (!(await store.deleteSchedule(id, iid))) throw scheduleNotFound();
    },

    async listRotations(project: string, iid: number, ctx: CallContext): Promise<RotationView[]> {
      const { id } = await projectFor(directory, project, "read", ctx);
      await existingSchedule(store, id, iid);
      return rotationViews(deps, id, await store.listRotations(id, iid), ctx);
    },
    async getRotation(project: string, iid: number, rotationId: number, ctx: CallContext): Promise<RotationView> {
      const { id } = await projectFor(directory, project, "read", ctx);
      await existingSchedule(store, id, iid);
      const rotation = await store.getRotation(id, iid, rotationId);
      if (!rotation) throw rotationNotFound();
      return (await rotationViews(deps, id, [rotation], ctx))[0] as RotationView;
    },
    async createRotation(project: string, iid: number, input: RotationInput, ctx: CallContext): Promise<RotationView> {
      const { id } = await projectFor(directory, project, "write", ctx);
      await existingSchedule(store, id, iid);
      const fields = await rotationFields(deps, id, input, undefined, ctx);
      return (await rotationViews(deps, id, [await store.createRotation(id, iid, fields)], ctx))[0] as RotationView;
    },
    async updateRotation(project: string, iid: number, rotationId: number, input: RotationInput, ctx: CallContext) {
      const { id } = await projectFor(directory, project, "write", ctx);
      await existingSchedule(store, id, iid);
      const old = await store.getRotation(id, iid, rotationId);
      if (!old) throw rotationNotFound();
      const updated = await store.updateRotation(id, iid, rotationId, await rotationFields(deps, id, input, old, ctx));
      if (!updated) throw rotationNotFound();
      return (await rotationViews(deps, id, [updated], ctx))[0] as RotationView;
    },
    async removeRotation(project: string, iid: number, rotationId: number, ctx: CallContext): Promise<void> {
      const { id } = await projectFor(directory, project, "write", ctx);
      await existingSchedule(store, id, iid);
      if (!(await store.deleteRotation(id, iid, rotationId))) throw rotationNotFound();
    },
  };
}

export type ScheduleUseCases = ReturnType<typeof createScheduleUseCases>;
