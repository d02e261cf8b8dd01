import { alreadyExists, conflict, forbidden, invalidArgument } from "@tocsin/core";

/** A rule broken by one field: 400 `{"message":{"<field>":["<rule>"]}}` (GitLab's model errors). */
export const fieldError = (field: string, rule: string) =>
  invalidArgument("ONCALL_FIELD_INVALID", `${field} ${rule}`, { [field]: [rule] });

/** A schedule name taken in the project, or a rotation name taken in the schedule. */
export const nameTaken = () =>
  invalidArgument("ONCALL_NAME_TAKEN", "name has already been taken", { name: ["has already been taken"] });

export const policyExists = () => alreadyExists("ESCALATION_POLICY_EXISTS", "Project can only have one escalation policy");

export const scheduleInUse = () =>
  conflict(
    "ONCALL_SCHEDULE_IN_USE",
    "This schedule is used by an escalation policy rule: remove the rule (or the policy) before deleting the schedule",
  );

export const premiumOnly = () =>
  forbidden("ONCALL_NEEDS_PREMIUM", "403 Forbidden - on-call schedules and escalation policies need the Premium tier");
