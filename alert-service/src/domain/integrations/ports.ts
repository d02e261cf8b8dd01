import type { CallContext } from "@tocsin/core";
import type { IntegrationPatch, IntegrationRecord, KeyedType, NewIntegration } from "./types.js";

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
  /** Sets token_last_used_at (not updated_at) when `at` is later than the stored value. */
  touch(projectId: number, id: number, at: Date): Promise<void>;
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
  /** Until when the key before the last reset still works; undefined when it does not. */
  previousTokenExpiresAt?: Date;
  /** Set while posts must carry X-Tocsin-Signature. */
  signingEnabled: boolean;
}

/** Port over auth-service's integration key RPCs (always called as a trusted internal caller). */
export interface IntegrationKeys {
  issue(projectId: number, integrationId: number, type: KeyedType, active: boolean, ctx: CallContext): Promise<IntegrationKey>;
  /** Keys of a project, oldest first. */
  list(projectId: number, ctx: CallContext): Promise<IntegrationKey[]>;
  setActive(integrationId: number, active: boolean, ctx: CallContext): Promise<IntegrationKey>;
  /** A new key; the old one keeps working `graceSeconds` (0 = stops at once). */
  reset(integrationId: number, graceSeconds: number, ctx: CallContext): Promise<IntegrationKey>;
  /** A new signing secret (returned once), or "" after turning signing off. */
  setSigningSecret(integrationId: number, enabled: boolean, ctx: CallContext): Promise<string>;
  /** Idempotent. */
  delete(integrationId: number, ctx: CallContext): Promise<void>;
}
