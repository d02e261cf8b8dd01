import type { Policy, Rule } from "./api";

/** A duration as GitLab's policy page words it: minutes when whole, else seconds. */
function duration(seconds: number): string {
  if (seconds % 60 === 0) {
    const minutes = seconds / 60;
    return `${minutes} ${minutes === 1 ? "minute" : "minutes"}`;
  }
  return `${seconds} ${seconds === 1 ? "second" : "seconds"}`;
}

/** "IF alert is not acknowledged in 5 minutes THEN email on-call user in schedule Primary". */
export function ruleSentence(rule: Rule): string {
  const target = rule.oncall_schedule
    ? `email on-call user in schedule ${rule.oncall_schedule.name}`
    : `email user @${rule.user?.username ?? "?"}`;
  return `IF alert is not ${rule.status} in ${duration(rule.elapsed_time_seconds)} THEN ${target}`;
}

/** "Repeat every 15 minutes, up to 2 more times" (or that it does not repeat). */
export function repeatSentence(policy: Pick<Policy, "repeat_every_seconds" | "max_repeats">): string {
  if (policy.repeat_every_seconds === null || policy.max_repeats === 0) return "The rules run once.";
  const times = policy.max_repeats === 1 ? "1 more time" : `${policy.max_repeats} more times`;
  return `Repeat every ${duration(policy.repeat_every_seconds)}, up to ${times}, while the alert stays triggered.`;
}
