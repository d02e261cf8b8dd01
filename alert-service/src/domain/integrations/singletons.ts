import { AppError, type CallContext, internalContext as internal } from "@tocsin/core";
import { ACCESS, type ProjectRef } from "../types.js";
import { type IntegrationsDeps, toView } from "./deps.js";
import type { IntegrationKey } from "./ports.js";
import { assertNoOtherActive, assertOpsgenieInactive, checkApiUrl, checkAutoResolve, checkRateLimit } from "./rules.js";
import type { IntegrationPatch, IntegrationRecord, IntegrationView } from "./types.js";

export interface SingletonInput {
  active?: boolean;
  apiUrl?: string;
  /** Prometheus only (opsgenie receives no webhook). */
  rateLimitPerMinute?: number;
  /** Prometheus only: 1 to 10080; 0 = off. */
  autoResolveMinutes?: number;
}

const NAMES = { prometheus: "Prometheus", opsgenie: "Opsgenie" } as const;

/** The project's prometheus or opsgenie integration, created inactive on first use. */
async function ensure(deps: IntegrationsDeps, project: ProjectRef, type: "prometheus" | "opsgenie"): Promise<IntegrationRecord> {
  const found = await deps.store.findSingleton(project.id, type);
  if (found) return found;
  try {
    const now = deps.clock.now();
    const record = await deps.store.insert({
      projectId: project.id,
      type,
      name: NAMES[type],
      active: false,
      payloadExample: "{}",
      mapping: null,
      apiUrl: "",
      rateLimitPerMinute: null,
      autoResolveMinutes: null,
      createdAt: now,
    });
    deps.changed();
    return record;
  } catch (err) {
    // Another request created it first.
    if (err instanceof AppError && err.code === "ALREADY_EXISTS") {
      const again = await deps.store.findSingleton(project.id, type);
      if (again) return again;
    }
    throw err;
  }
}

/** The prometheus key, issued on first use (a crash between insert and issue heals here). */
async function prometheusKey(deps: IntegrationsDeps, record: IntegrationRecord, ctx: CallContext): Promise<IntegrationKey> {
  const keys = await deps.keys.list(record.projectId, internal(ctx));
  const key = keys.find((k) => k.integrationId === record.id);
  if (key) return key;
  try {
    return await deps.keys.issue(record.projectId, record.id, "prometheus", record.active, internal(ctx));
  } catch (err) {
    if (!(err instanceof AppError && err.code === "ALREADY_EXISTS")) throw err;
    const again = (await deps.keys.list(record.projectId, internal(ctx))).find((k) => k.integrationId === record.id);
    if (!again) throw err;
    return again;
  }
}

export async function getPrometheusIntegration(
  deps: IntegrationsDeps,
  idOrPath: string,
  ctx: CallContext,
): Promise<IntegrationView> {
  const project = await deps.projects.require(idOrPath, ACCESS.maintainer, ctx);
  const record = await ensure(deps, project, "prometheus");
  return toView(deps, project, record, await prometheusKey(deps, record, ctx));
}

export async function updatePrometheusIntegration(
  deps: IntegrationsDeps,
  idOrPath: string,
  input: SingletonInput,
  ctx: CallContext,
): Promise<IntegrationView> {
  const project = await deps.projects.require(idOrPath, ACCESS.maintainer, ctx);
  const record = await ensure(deps, project, "prometheus");
  const key = await prometheusKey(deps, record, ctx);
  const patch: IntegrationPatch = { at: deps.clock.now() };
  if (input.apiUrl !== undefined) patch.apiUrl = checkApiUrl(input.apiUrl, false);
  if (input.rateLimitPerMinute !== undefined) patch.rateLimitPerMinute = checkRateLimit(input.rateLimitPerMinute);
  if (input.autoResolveMinutes !== undefined) patch.autoResolveMinutes = checkAutoResolve(input.autoResolveMinutes);
  if (input.active !== undefined) {
    if (input.active && !key.active) await assertOpsgenieInactive(deps.store, project.id);
    patch.active = input.active;
  }
  const updated = (await deps.store.update(project.id, record.id, patch)) ?? record;
  deps.changed();
  const newKey =
    input.active !== undefined && input.active !== key.active
      ? await deps.keys.setActive(record.id, input.active, internal(ctx))
      : key;
  return toView(deps, project, updated, newKey);
}

export async function resetPrometheusToken(
  deps: IntegrationsDeps,
  idOrPath: string,
  graceSeconds: number,
  ctx: CallContext,
): Promise<IntegrationView> {
  const project = await deps.projects.require(idOrPath, ACCESS.maintainer, ctx);
  const record = await ensure(deps, project, "prometheus");
  await prometheusKey(deps, record, ctx);
  return toView(deps, project, record, await deps.keys.reset(record.id, graceSeconds, internal(ctx)));
}

export async function getOpsgenieIntegration(
  deps: IntegrationsDeps,
  idOrPath: string,
  ctx: CallContext,
): Promise<IntegrationView> {
  const project = await deps.projects.require(idOrPath, ACCESS.maintainer, ctx);
  return toView(deps, project, await ensure(deps, project, "opsgenie"));
}

/** `api_url` must be an http(s) URL while active; enabling needs every other integration disabled. */
export async function updateOpsgenieIntegration(
  deps: IntegrationsDeps,
  idOrPath: string,
  input: SingletonInput,
  ctx: CallContext,
): Promise<IntegrationView> {
  const project = await deps.projects.require(idOrPath, ACCESS.maintainer, ctx);
  const record = await ensure(deps, project, "opsgenie");
  const active = input.active ?? record.active;
  const apiUrl = checkApiUrl(input.apiUrl ?? record.apiUrl, active);
  if (active && !record.active) await assertNoOtherActive(deps.store, deps.keys, project.id, record.id, internal(ctx));
  const updated = await deps.store.update(project.id, record.id, { active, apiUrl, at: deps.clock.now() });
  deps.changed();
  return toView(deps, project, updated ?? record);
}
