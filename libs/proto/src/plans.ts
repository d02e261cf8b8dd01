import { Plan } from "./gen/auth/v1/auth.js";

/** The subscription plans of a namespace (a project's tier is its top-level group's plan), by name. */
export const PLAN_NAMES = ["free", "premium", "ultimate"] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

const TO_PROTO: Record<PlanName, Plan> = {
  free: Plan.PLAN_FREE,
  premium: Plan.PLAN_PREMIUM,
  ultimate: Plan.PLAN_ULTIMATE,
};

/** auth.v1.Plan of a plan name. */
export function planFromName(name: PlanName): Plan {
  return TO_PROTO[name];
}

/** The name of an auth.v1.Plan: `free` for unset or unknown values (a namespace without a plan is free). */
export function planName(plan: Plan): PlanName {
  if (plan === Plan.PLAN_PREMIUM) return "premium";
  if (plan === Plan.PLAN_ULTIMATE) return "ultimate";
  return "free";
}

/** The name of an auth.v1.Plan a caller sent; null for PLAN_UNSPECIFIED or unknown values. */
export function planNameOrNull(plan: Plan): PlanName | null {
  return PLAN_NAMES.find((name) => TO_PROTO[name] === plan) ?? null;
}
