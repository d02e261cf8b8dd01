import { AppError, type CallContext, internalContext as internal } from "@tocsin/core";
import { ACCESS, type ProjectRef } from "../types.js";
import { type IntegrationsDeps, integrationNotFound, keyOf, toView } from "./deps.js";
import {
  assertOpsgenieInactive,
  checkAutoResolve,
  checkName,
  checkRateLimit,
  multipleNotSupported,
  parseCustomMapping,
  premium,
} from "./rules.js";
import type { IntegrationPatch, IntegrationRecord, IntegrationView } from "./types.js";

export interface CreateHttpInput {
  name: string;
  /** Default false, as GitLab's model. */
  active?: boolean;
  payloadExampleJson?: string;
  mappingJson?: string;
  /** Unset: WEBHOOK_RATE_LIMIT_PER_MINUTE applies; 0 = unlimited. */
  rateLimitPerMinute?: number;
  /** 1 to 10080; 0 = off. */
  autoResolveMinutes?: number;
}

export interface UpdateHttpInput {
  name?: string;
  active?: boolean;
  payloadExampleJson?: string;
  mappingJson?: string;
  rateLimitPerMinute?: number;
  autoResolveMinutes?: number;
}

const nameTaken = (err: unknown) =>
  err instanceof AppError && err.code === "ALREADY_EXISTS"
    ? new AppError("ALREADY_EXISTS", "NAME_TAKEN", "Name has already been taken", {
        fields: { name: ["has already been taken"] },
      })
    : err;

async function loadHttp(deps: IntegrationsDeps, idOrPath: string, id: number, ctx: CallContext) {
  const project = await deps.projects.require(idOrPath, ACCESS.maintainer, ctx);
  const record = await deps.store.get(project.id, id);
  if (record?.type !== "http") throw integrationNotFound();
  return { project, record };
}

/** Free keeps one HTTP integration: after inserting, the newer of two racing creates backs out. */
async function enforceFreeLimit(deps: IntegrationsDeps, project: ProjectRef, record: IntegrationRecord) {
  if (premium(project)) return;
  const http = (await deps.store.list(project.id)).filter((r) => r.type === "http");
  if (http.length > 1 && http[0]?.id !== record.id) {
    await deps.store.delete(project.id, record.id);
    throw multipleNotSupported();
  }
}

export async function createHttpIntegration(
  deps: IntegrationsDeps,
  idOrPath: string,
  input: CreateHttpInput,
  ctx: CallContext,
): Promise<IntegrationView> {
  const project = await deps.projects.require(idOrPath, ACCESS.maintainer, ctx);
  const name = checkName(input.name);
  const rateLimitPerMinute = input.rateLimitPerMinute === undefined ? null : checkRateLimit(input.rateLimitPerMinute);
  const autoResolveMinutes = input.autoResolveMinutes === undefined ? null : checkAutoResolve(input.autoResolveMinutes);
  const custom = parseCustomMapping(project, input.payloadExampleJson, input.mappingJson);
  const active = input.active ?? false;
  if (active) await assertOpsgenieInactive(deps.store, project.id);
  if (!premium(project) && (await deps.store.list(project.id)).some((r) => r.type === "http")) throw multipleNotSupported();
  const now = deps.clock.now();
  const record = await deps.store
    .insert({
      projectId: project.id,
      type: "http",
      name,
      active,
      payloadExample: custom.payloadExample ?? "{}",
      mapping: custom.mapping ?? null,
      apiUrl: "",
      rateLimitPerMinute,
      autoResolveMinutes,
      createdAt: now,
    })
    .catch((err: unknown) => {
      throw nameTaken(err);
    });
  deps.changed();
  try {
    await enforceFreeLimit(deps, project, record);
    const key = await deps.keys.issue(project.id, record.id, "http", active, internal(ctx));
    return toView(deps, project, record, key);
  } catch (err) {
    await deps.store.delete(project.id, record.id).catch(() => undefined);
    deps.changed();
    throw err;
  }
}

export async function getHttpIntegration(
  deps: IntegrationsDeps,
  idOrPath: string,
  id: number,
  ctx: CallContext,
): Promise<IntegrationView> {
  const { project, record } = await loadHttp(deps, idOrPath, id, ctx);
  return toView(deps, project, record, await keyOf(deps, record, ctx));
}

export async function updateHttpIntegration(
  deps: IntegrationsDeps,
  idOrPath: string,
  id: number,
  input: UpdateHttpInput,
  ctx: CallContext,
): Promise<{ integration: IntegrationView; mappingCleared: boolean }> {
  const { project, record } = await loadHttp(deps, idOrPath, id, ctx);
  const key = await keyOf(deps, record, ctx);
  const patch: IntegrationPatch = { at: deps.clock.now() };
  if (input.name !== undefined) patch.name = checkName(input.name);
  if (input.rateLimitPerMinute !== undefined) patch.rateLimitPerMinute = checkRateLimit(input.rateLimitPerMinute);
  if (input.autoResolveMinutes !== undefined) patch.autoResolveMinutes = checkAutoResolve(input.autoResolveMinutes);
  const custom = parseCustomMapping(project, input.payloadExampleJson, input.mappingJson);
  let mappingCleared = false;
  if (custom.payloadExample !== undefined) {
    patch.payloadExample = custom.payloadExample;
    // A new sample payload invalidates the mapping unless this request brings a new one.
    if (custom.payloadExample !== record.payloadExample && custom.mapping === undefined && record.mapping !== null) {
      patch.mapping = null;
      mappingCleared = true;
    }
  }
  if (custom.mapping !== undefined) patch.mapping = custom.mapping;
  if (input.active !== undefined) {
    if (input.active && !key.active) await assertOpsgenieInactive(deps.store, project.id);
    patch.active = input.active;
  }
  const updated = await deps.store.update(project.id, id, patch).catch((err: unknown) => {
    throw nameTaken(err);
  });
  deps.changed();
  if (!updated) throw integrationNotFound();
  let newKey = key;
  if (input.active !== undefined && input.active !== key.active) {
    try {
      newKey = await deps.keys.setActive(id, input.active, internal(ctx));
    } catch (err) {
      await deps.store.update(project.id, id, { active: key.active, at: patch.at }).catch(() => undefined);
      deps.changed();
      throw err;
    }
  }
  return { integration: toView(deps, project, updated, newKey), mappingCleared };
}

export async function deleteHttpIntegration(
  deps: IntegrationsDeps,
  idOrPath: string,
  id: number,
  ctx: CallContext,
): Promise<void> {
  const { project } = await loadHttp(deps, idOrPath, id, ctx);
  // The key goes first: the URL stops accepting alerts before the configuration disappears.
  await deps.keys.delete(id, internal(ctx));
  await deps.store.delete(project.id, id);
  deps.changed();
}

export async function resetHttpIntegrationToken(
  deps: IntegrationsDeps,
  idOrPath: string,
  id: number,
  graceSeconds: number,
  ctx: CallContext,
): Promise<IntegrationView> {
  const { project, record } = await loadHttp(deps, idOrPath, id, ctx);
  await keyOf(deps, record, ctx);
  const key = await deps.keys.reset(id, graceSeconds, internal(ctx));
  return toView(deps, project, record, key);
}

/** POST (enabled) / DELETE (not) `.../signing_secret`: the new secret, shown once, or "". */
export async function setHttpIntegrationSigningSecret(
  deps: IntegrationsDeps,
  idOrPath: string,
  id: number,
  enabled: boolean,
  ctx: CallContext,
): Promise<string> {
  const { record } = await loadHttp(deps, idOrPath, id, ctx);
  await keyOf(deps, record, ctx);
  return deps.keys.setSigningSecret(id, enabled, internal(ctx));
}
