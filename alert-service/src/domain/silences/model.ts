/** Silences (PRODUCT.md section 13): Alertmanager v2's model, per project. Times are Dates. */

/** One Alertmanager matcher: `name=value`, `name!=value`, `name=~re`, `name!~re`. */
export interface Matcher {
  name: string;
  value: string;
  isRegex: boolean;
  /** false negates the match (`!=`, `!~`). */
  isEqual: boolean;
}

export const SILENCE_STATES = ["pending", "active", "expired"] as const;
export type SilenceState = (typeof SILENCE_STATES)[number];

export interface Silence {
  /** A UUID, as Alertmanager's. */
  id: string;
  projectId: number;
  matchers: Matcher[];
  startsAt: Date;
  endsAt: Date;
  createdBy: string;
  comment: string;
  updatedAt: Date;
}

/** At most this many matchers per silence, each name and value at most this long (section 13). */
export const MAX_MATCHERS = 50;
export const MAX_MATCHER_TEXT = 1000;
export const MAX_COMMENT_LENGTH = 10_000;
export const MAX_CREATED_BY_LENGTH = 255;

/**
 * A silence is pending before `startsAt`, active over [startsAt, endsAt), expired from `endsAt`
 * on. (Alertmanager counts the instant `endsAt` itself as active; expiring sets `endsAt = now`,
 * and here that reads as expired at once.)
 */
export function stateAt(silence: Pick<Silence, "startsAt" | "endsAt">, now: Date): SilenceState {
  const t = now.getTime();
  if (t < silence.startsAt.getTime()) return "pending";
  if (t >= silence.endsAt.getTime()) return "expired";
  return "active";
}

export function sameMatchers(a: Matcher[], b: Matcher[]): boolean {
  return (
    a.length === b.length &&
    a.every((m, i) => {
      const o = b[i];
      return o !== undefined && m.name === o.name && m.value === o.value && m.isRegex === o.isRegex && m.isEqual === o.isEqual;
    })
  );
}
