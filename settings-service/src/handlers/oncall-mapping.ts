import type { oncallV1 } from "@tocsin/proto";
import type { UserView } from "../domain/oncall/access.js";
import type { OncallView, OverrideView, ShiftView } from "../domain/oncall/oncall-query.js";
import type { PolicyInput, PolicyView } from "../domain/oncall/policies.js";
import type { RotationInput, RotationView, ScheduleView } from "../domain/oncall/schedules.js";

/** Domain views ⇄ the OncallService messages. */

const toUser = (u: UserView): oncallV1.OncallUser => ({ id: u.id, username: u.username, name: u.name, state: u.state });

export function toRotation(r: RotationView): oncallV1.OncallRotation {
  return {
    id: r.id,
    name: r.name,
    startsAt: r.startsAt,
    endsAt: r.endsAt ?? "",
    length: r.length,
    unit: r.unit,
    activePeriod: r.activePeriod,
    participants: r.participants.map(toUser),
  };
}

export function toSchedule(s: ScheduleView): oncallV1.OncallSchedule {
  return { iid: s.iid, name: s.name, description: s.description, timezone: s.timezone, rotations: s.rotations.map(toRotation) };
}

export function toOverride(o: OverrideView): oncallV1.OncallOverride {
  return { id: o.id, user: toUser(o.user), startsAt: o.startsAt, endsAt: o.endsAt };
}

export function toShift(s: ShiftView): oncallV1.OncallShift {
  return {
    rotationId: s.rotationId ?? 0,
    overrideId: s.overrideId ?? 0,
    user: toUser(s.user),
    startsAt: new Date(s.startsAt),
    endsAt: new Date(s.endsAt),
  };
}

export function toScheduleOncall(o: OncallView): oncallV1.ScheduleOncall {
  return { scheduleIid: o.scheduleIid, scheduleName: o.scheduleName, users: o.users.map(toUser), skipped: o.skipped.map(toUser) };
}

export function toPolicy(p: PolicyView): oncallV1.EscalationPolicy {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    rules: p.rules.map((r) => ({
      status: r.status,
      elapsedTimeSeconds: r.elapsedTimeSeconds,
      oncallScheduleIid: r.schedule?.iid ?? 0,
      oncallScheduleName: r.schedule?.name ?? "",
      user: r.user && toUser(r.user),
    })),
    repeatEverySeconds: p.repeatEverySeconds ?? 0,
    maxRepeats: p.maxRepeats,
  };
}

export function rotationInput(change: oncallV1.RotationChange | undefined): RotationInput {
  if (!change) return {};
  const period = change.activePeriod;
  return {
    name: change.name,
    startsAt: change.startsAt,
    endsAt: change.endsAt === "" ? null : change.endsAt,
    length: change.length,
    unit: change.unit,
    activePeriod: period === undefined ? undefined : period.startTime === "" && period.endTime === "" ? null : period,
    participants: change.participants?.usernames,
  };
}

export function policyInput(change: oncallV1.EscalationPolicyChange | undefined): PolicyInput {
  if (!change) return {};
  const repeat = change.repeatEverySeconds;
  return {
    name: change.name,
    description: change.description,
    rules: change.rules?.rules.map((r) => ({
      status: r.status,
      elapsedTimeSeconds: r.elapsedTimeSeconds,
      oncallScheduleIid: r.oncallScheduleIid,
      username: r.username,
    })),
    repeatEverySeconds: repeat === 0 ? null : repeat,
    maxRepeats: change.maxRepeats,
  };
}
