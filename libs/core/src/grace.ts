import { invalidArgument } from "./errors.js";

/** The longest overlap of an old and a new secret after a rotation (an integration key, a hook's signing secret): one day. */
const MAX_GRACE_SECONDS = 86_400;

/** `grace_period_seconds` of a rotation: an integer from 0 to a day, else INVALID_ARGUMENT (GRACE_PERIOD_INVALID). */
export function checkGraceSeconds(graceSeconds: number): void {
  if (Number.isInteger(graceSeconds) && graceSeconds >= 0 && graceSeconds <= MAX_GRACE_SECONDS) return;
  const why = `must be an integer from 0 to ${MAX_GRACE_SECONDS}`;
  throw invalidArgument("GRACE_PERIOD_INVALID", `grace_period_seconds ${why}`, { grace_period_seconds: [why] });
}
