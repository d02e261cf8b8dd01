import { authV1 } from "@tocsin/proto";

export const PLAN_NAMES = ["free", "premium", "ultimate"] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

const TO_PROTO: Record<PlanName, authV1.Plan> = {
  free: authV1.Plan.PLAN_FREE,
  premium: authV1.Plan.PLAN_PREMIUM,
  ultimate: authV1.Plan.PLAN_ULTIMATE,
};

/** `free` for unset or unknown values (a namespace without a plan is free). */
export function planName(plan: authV1.Plan): PlanName {
  if (plan === authV1.Plan.PLAN_PREMIUM) return "premium";
  if (plan === authV1.Plan.PLAN_ULTIMATE) return "ultimate";
  return "free";
}

export function planFromName(name: PlanName): authV1.Plan {
  return TO_PROTO[name];
}
