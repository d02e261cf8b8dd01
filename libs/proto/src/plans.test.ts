import { describe, expect, it } from "vitest";
import { Plan } from "./gen/auth/v1/auth.js";
import { PLAN_NAMES, planFromName, planName, planNameOrNull } from "./plans.js";

describe("plan names", () => {
  it("map both ways; an unset plan is free where one is read, null where one is asked for", () => {
    for (const name of PLAN_NAMES) {
      expect(planName(planFromName(name))).toBe(name);
      expect(planNameOrNull(planFromName(name))).toBe(name);
    }
    expect(planName(Plan.PLAN_UNSPECIFIED)).toBe("free");
    expect(planNameOrNull(Plan.PLAN_UNSPECIFIED)).toBeNull();
    expect(planNameOrNull(99 as Plan)).toBeNull();
  });
});
