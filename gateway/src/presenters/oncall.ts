import type { oncallV1 } from "@tocsin/proto";
import { must } from "./must.js";
import { isoTime } from "./time.js";

/** JSON of section 11 (GitLab's field names, snake_case). */

type UserJson = { id: number; username: string; name: string; state: string };

const userJson = (u: oncallV1.OncallUser | undefined): UserJson => {
  const user = must(u, "user");
  return { id: user.id, username: user.username, name: user.name, state: user.state };
};

export function rotationJson(r: oncallV1.OncallRotation) {
  return {
    id: r.id,
    name: r.name,
    starts_at: r.startsAt,
    ends_at: r.endsAt === "" ? null : r.endsAt,
    rotation_length: { length: r.length, unit: r.unit },
    active_period: r.activePeriod ? { start_time: r.activePeriod.startTime, end_time: r.activePeriod.endTime } : null,
    participants: r.participants.map((p) => ({ user: userJson(p) })),
  };
}

export function scheduleJson(s: oncallV1.OncallSchedule | undefined) {
  const schedule = must(s, "schedule");
  return {
    iid: schedule.iid,
    name: schedule.name,
    description: schedule.description,
    timezone: schedule.timezone,
    rotations: schedule.rotations.map(rotationJson),
  };
}

export function overrideJson(o: oncallV1.OncallOverride | undefined) {
  const override = must(o, "override");
  return {
    id: override.id,
    user: userJson(override.user),
    starts_at: isoTime(override.startsAt),
    ends_at: isoTime(override.endsAt),
  };
}

export function shiftJson(s: oncallV1.OncallShift) {
  return {
    rotation_id: s.rotationId || null,
    override_id: s.overrideId || null,
    user: userJson(s.user),
    starts_at: isoTime(s.startsAt),
    ends_at: isoTime(s.endsAt),
  };
}

export function oncallJson(o: oncallV1.ScheduleOncall) {
  return {
    schedule_iid: o.scheduleIid,
    schedule_name: o.scheduleName,
    users: o.users.map(userJson),
    skipped_users: o.skipped.map(userJson),
  };
}

export function policyJson(p: oncallV1.EscalationPolicy | undefined) {
  const policy = must(p, "policy");
  return {
    id: policy.id,
    name: policy.name,
    description: policy.description,
    rules: policy.rules.map((r) => ({
      status: r.status,
      elapsed_time_seconds: r.elapsedTimeSeconds,
      oncall_schedule: r.oncallScheduleIid ? { iid: r.oncallScheduleIid, name: r.oncallScheduleName } : null,
      user: r.user ? userJson(r.user) : null,
    })),
    repeat_every_seconds: policy.repeatEverySeconds || null,
    max_repeats: policy.maxRepeats,
  };
}
