import type { PayloadMapping } from "../types.js";

/** The three kinds of alert integration a project may have. */
export type IntegrationType = "http" | "prometheus" | "opsgenie";

/** Kinds whose credentials (endpoint identifier, key, active flag) auth-service keeps. */
export type KeyedType = "http" | "prometheus";

/** One integration as alert-service stores it. Keys live in auth-service, never here. */
export interface IntegrationRecord {
  /** From alert-service's own sequence; also the id under which auth-service keeps the key. */
  id: number;
  projectId: number;
  type: IntegrationType;
  name: string;
  /**
   * Copy of the active flag. For http/prometheus auth-service's flag is the one the webhook
   * obeys; this copy is kept in step on every change and read by processing.
   */
  active: boolean;
  /** JSON text of the sample payload, `{}` when none. */
  payloadExample: string;
  /** Custom mapping, null when none. */
  mapping: PayloadMapping | null;
  /** Prometheus and opsgenie only; empty otherwise. */
  apiUrl: string;
  /** Webhook requests per minute (PRODUCT.md section 10); null = WEBHOOK_RATE_LIMIT_PER_MINUTE, 0 = unlimited. */
  rateLimitPerMinute: number | null;
  /** Minutes without a new event after which a triggered alert is resolved; null = never. */
  autoResolveMinutes: number | null;
  /** When the webhook last accepted a request (written at most once a minute); null if never. */
  tokenLastUsedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewIntegration = Omit<IntegrationRecord, "id" | "updatedAt" | "tokenLastUsedAt">;

/** A partial change; unset fields keep their value. `mapping: null` clears the mapping. */
export interface IntegrationPatch {
  name?: string;
  active?: boolean;
  payloadExample?: string;
  mapping?: PayloadMapping | null;
  apiUrl?: string;
  rateLimitPerMinute?: number | null;
  autoResolveMinutes?: number | null;
  at: Date;
}

/** An integration as management calls answer it: the record plus its credentials and URL. */
export interface IntegrationView extends IntegrationRecord {
  /** Where monitors post; empty for opsgenie. */
  url: string;
  token: string;
  endpointIdentifier: string;
  previousTokenExpiresAt: Date | null;
  /** Set while posts must carry X-Tocsin-Signature. */
  signingEnabled: boolean;
}

export interface IntegrationSummary {
  id: number;
  name: string;
  type: IntegrationType;
  active: boolean;
  /** The limit in force (the default when the integration sets none); null for opsgenie. */
  rateLimitPerMinute: number | null;
}

/** Fields of a payload that a mapping can point at (`POST /payload_fields`). */
export interface PayloadField {
  path: Array<string | number>;
  label: string;
  type: "string" | "datetime" | "array";
}
