/** Shared vocabulary of alert-service's domain. No transport or driver types here. */

export type Tier = "free" | "premium" | "ultimate";

/** GitLab access levels. */
export const ACCESS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

export interface ProjectRef {
  id: number;
  fullPath: string;
  tier: Tier;
  /** The caller's effective access level; 50 for admins and for internal calls. */
  accessLevel: number;
}

/** One mapped alert field: where in the payload its value is, and how to read it. */
export interface FieldMapping {
  path: Array<string | number>;
  /** `string`, `datetime` or `array`. */
  type: string;
  label?: string;
}

/** Alert field name (title, description, start_time, end_time, ...) → mapping. */
export type PayloadMapping = Record<string, FieldMapping>;

/** What processing needs to know about the integration a payload came through. */
export interface IntegrationRuntime {
  id: number;
  projectId: number;
  name: string;
  type: "http" | "prometheus";
  active: boolean;
  /** Applied only on Premium and above, and only when non-empty. */
  mapping: PayloadMapping | null;
  /** Webhook requests per minute; null = the default (WEBHOOK_RATE_LIMIT_PER_MINUTE), 0 = unlimited. */
  rateLimitPerMinute: number | null;
  /** Minutes without a new event after which a triggered alert is resolved; null = never. */
  autoResolveMinutes: number | null;
}
