import type { CallContext } from "@tocsin/core";
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
  createdAt: Date;
  updatedAt: Date;
}

export type NewIntegration = Omit<IntegrationRecord, "id" | "updatedAt">;

/** A partial change; unset fields keep their value. `mapping: null` clears the mapping. */
export interface IntegrationPatch {
  name?: string;
  active?: boolean;
  payloadExample?: string;
  mapping?: PayloadMapping | null;
  apiUrl?: string;
  at: Date;
}

/**
 * Storage of integration configuration. Names of HTTP integrations are unique per project
 * (case-insensitive) and prometheus/opsgenie are singletons per project: both enforced by one
 * unique index over (project_id, unique_key); a violation is ALREADY_EXISTS (INTEGRATION_EXISTS).
 */
export interface IntegrationStore {
  insert(input: NewIntegration): Promise<IntegrationRecord>;
  get(projectId: number, id: number): Promise<IntegrationRecord | undefined>;
  /** Every integration of a project, oldest (lowest id) first. */
  list(projectId: number): Promise<IntegrationRecord[]>;
  /** The project's prometheus or opsgenie integration. */
  findSingleton(projectId: number, type: "prometheus" | "opsgenie"): Promise<IntegrationRecord | undefined>;
  /** Applies the patch; undefined when there is no such integration. */
  update(projectId: number, id: number, patch: IntegrationPatch): Promise<IntegrationRecord | undefined>;
  /** True when something was deleted. */
  delete(projectId: number, id: number): Promise<boolean>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The credentials auth-service keeps for an http or prometheus integration. */
export interface IntegrationKey {
  integrationId: number;
  /** 16 hexadecimal characters. */
  endpointIdentifier: string;
  /** 32 lowercase hexadecimal characters. */
  token: string;
  active: boolean;
}

/** Port over auth-service's integration key RPCs (always called as a trusted internal caller). */
export interface IntegrationKeys {
  issue(projectId: number, integrationId: number, type: KeyedType, active: boolean, ctx: CallContext): Promise<IntegrationKey>;
  /** Keys of a project, oldest first. */
  list(projectId: number, ctx: CallContext): Promise<IntegrationKey[]>;
  setActive(integrationId: number, active: boolean, ctx: CallContext): Promise<IntegrationKey>;
  reset(integrationId: number, ctx: CallContext): Promise<IntegrationKey>;
  /** Idempotent. */
  delete(integrationId: number, ctx: CallContext): Promise<void>;
}

/** An integration as management calls answer it: the record plus its credentials and URL. */
export interface IntegrationView extends IntegrationRecord {
  /** Where monitors post; empty for opsgenie. */
  url: string;
  token: string;
  endpointIdentifier: string;
}

export interface IntegrationSummary {
  id: number;
  name: string;
  type: IntegrationType;
  active: boolean;
}

/** Fields of a payload that a mapping can point at (`POST /payload_fields`). */
export interface PayloadField {
  path: Array<string | number>;
  label: string;
  type: "string" | "datetime" | "array";
}
