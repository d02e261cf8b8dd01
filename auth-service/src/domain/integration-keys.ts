import {
  AppError,
  type CallContext,
  type Clock,
  checkGraceSeconds,
  forbidden,
  notFound,
  paramMissing,
  randomHex,
} from "@tocsin/core";

import { resolveActor } from "./actor.js";
import type { Directory, ProjectView } from "./directory.js";
import type { KeyEvents } from "./key-events.js";
import type { AuthStore } from "./ports.js";
import { hashToken } from "./tokens.js";
import { ACCESS, type IntegrationKeyRecord, type IntegrationKind, type PlanName } from "./types.js";
import { valueInvalid } from "./validation.js";

/** Encrypts keys at rest (SecretBox in production). */
export interface Sealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

export interface KeyView {
  record: IntegrationKeyRecord;
  /** The plain 32-hex key. */
  token: string;
}

export type EndpointKindName = "http" | "http_legacy" | "prometheus";
type EndpointStateName = "not_found" | "inactive" | "unavailable" | "active";

export interface EndpointResolution {
  state: EndpointStateName;
  projectId: number;
  integrationId: number;
  type: IntegrationKind | null;
  /** SHA-256 of the key (hex); null when not found. */
  tokenSha256: string | null;
  tier: PlanName;
  /** The key before the last reset while its grace lasts (the gateway checks the time too). */
  previousTokenSha256?: string;
  previousTokenExpiresAt?: Date;
  /** The plain signing secret while signed payloads are on. */
  signingSecret?: string;
}

const notFoundResolution = (projectId = 0, tier: PlanName = "free"): EndpointResolution => ({
  state: "not_found",
  projectId,
  integrationId: 0,
  type: null,
  tokenSha256: null,
  tier,
});

/**
 * Credentials of alert integrations: endpoint identifier (16 hex) and key (32 hex), sealed at
 * rest. Callers with a principal need Maintainer+ on the project; internal calls pass.
 */
export class IntegrationKeyService {
  constructor(
    private readonly store: AuthStore,
    private readonly directory: Directory,
    private readonly sealer: Sealer,
    private readonly events: KeyEvents,
    private readonly clock: Clock,
  ) {}

  private async authorize(ctx: CallContext, projectId: number): Promise<ProjectView> {
    const view = await this.directory.visibleProject(await resolveActor(this.store, ctx), String(projectId));
    if (view.accessLevel < ACCESS.MAINTAINER) throw forbidden();
    return view;
  }

  private async existing(ctx: CallContext, integrationId: number): Promise<{ key: IntegrationKeyRecord; view: ProjectView }> {
    const key = await this.store.getIntegrationKey(integrationId);
    if (!key) throw notFound("Integration");
    return { key, view: await this.authorize(ctx, key.projectId) };
  }

  private changed(view: ProjectView): Promise<void> {
    return this.events.projectChanged(view.project.id, view.project.pathWithNamespace);
  }

  private toView(record: IntegrationKeyRecord): KeyView {
    return { record, token: this.sealer.open(record.sealedToken) };
  }

  async issue(
    ctx: CallContext,
    input: { projectId: number; integrationId: number; type: IntegrationKind | null; active: boolean },
  ): Promise<KeyView> {
    if (!input.integrationId) throw paramMissing("integration_id");
    if (!input.type) throw valueInvalid("type");
    const view = await this.authorize(ctx, input.projectId);
    const token = randomHex(16);
    const fields = { integrationId: input.integrationId, projectId: view.project.id, type: input.type, active: input.active };
    let record: IntegrationKeyRecord | undefined;
    // A 64-bit identifier collides practically never; one retry covers the case anyway.
    for (let attempt = 0; !record; attempt++) {
      try {
        record = await this.store.insertIntegrationKey({
          ...fields,
          endpointIdentifier: randomHex(8),
          sealedToken: this.sealer.seal(token),
          tokenSha256: hashToken(token),
          createdAt: this.clock.now(),
          previousTokenSha256: null,
          previousTokenExpiresAt: null,
          sealedSigningSecret: null,
        });
      } catch (err) {
        if (attempt > 0 || !AppError.is(err) || err.reason !== "ENDPOINT_TAKEN") throw err;
      }
    }
    await this.changed(view);
    return { record, token };
  }

  /** Oldest first, keys decrypted. */
  async list(ctx: CallContext, projectId: number): Promise<KeyView[]> {
    const view = await this.authorize(ctx, projectId);
    return (await this.store.listIntegrationKeys(view.project.id)).map((r) => this.toView(r));
  }

  async setActive(ctx: CallContext, integrationId: number, active: boolean): Promise<KeyView> {
    const { view } = await this.existing(ctx, integrationId);
    const updated = await this.store.updateIntegrationKey(integrationId, { active });
    if (!updated) throw notFound("Integration");
    await this.changed(view);
    return this.toView(updated);
  }

  /**
   * A new key (watchers are told). With `graceSeconds` (0 to 86 400) the old key keeps working
   * that long; with 0 it stops at once, and so does any earlier key still in its grace.
   */
  async reset(ctx: CallContext, integrationId: number, graceSeconds = 0): Promise<KeyView> {
    checkGraceSeconds(graceSeconds);
    const { key, view } = await this.existing(ctx, integrationId);
    const token = randomHex(16);
    const updated = await this.store.updateIntegrationKey(integrationId, {
      sealedToken: this.sealer.seal(token),
      tokenSha256: hashToken(token),
      previousTokenSha256: graceSeconds > 0 ? key.tokenSha256 : null,
      previousTokenExpiresAt: graceSeconds > 0 ? new Date(this.clock.now().getTime() + graceSeconds * 1000) : null,
    });
    if (!updated) throw notFound("Integration");
    await this.changed(view);
    return { record: updated, token };
  }

  /** A new signing secret (returned once, kept sealed), or signing off when not `enabled`. */
  async setSigningSecret(ctx: CallContext, integrationId: number, enabled: boolean): Promise<{ secret: string; key: KeyView }> {
    const { view } = await this.existing(ctx, integrationId);
    const secret = enabled ? randomHex(32) : "";
    const updated = await this.store.updateIntegrationKey(integrationId, {
      sealedSigningSecret: enabled ? this.sealer.seal(secret) : null,
    });
    if (!updated) throw notFound("Integration");
    await this.changed(view);
    return { secret, key: this.toView(updated) };
  }

  /** Idempotent. */
  async delete(ctx: CallContext, integrationId: number): Promise<void> {
    const key = await this.store.getIntegrationKey(integrationId);
    if (!key) return;
    const view = await this.authorize(ctx, key.projectId);
    await this.store.deleteIntegrationKey(integrationId);
    await this.changed(view);
  }

  /** What a webhook URL names; never throws for unknown projects or endpoints. */
  async resolve(projectFullPath: string, kind: EndpointKindName, endpointIdentifier: string): Promise<EndpointResolution> {
    const path = projectFullPath.trim();
    const project = path ? await this.store.findProjectByPath(path) : null;
    const ns = project ? await this.store.getNamespace(project.namespaceId) : null;
    if (!project || !ns) return notFoundResolution();
    const tier = await this.directory.planOf(ns);
    const keys = await this.store.listIntegrationKeys(project.id);
    const key = pickKey(keys, kind, endpointIdentifier);
    if (!key) return notFoundResolution(project.id, tier);
    const oldestOfType = keys.find((k) => k.type === key.type);
    const state: EndpointStateName = !key.active
      ? "inactive"
      : tier === "free" && oldestOfType?.integrationId !== key.integrationId
        ? "unavailable"
        : "active";
    const previous =
      key.previousTokenSha256 && key.previousTokenExpiresAt && key.previousTokenExpiresAt > this.clock.now()
        ? { previousTokenSha256: key.previousTokenSha256, previousTokenExpiresAt: key.previousTokenExpiresAt }
        : {};
    return {
      state,
      projectId: project.id,
      integrationId: key.integrationId,
      type: key.type,
      tokenSha256: key.tokenSha256,
      tier,
      ...previous,
      ...(key.sealedSigningSecret ? { signingSecret: this.sealer.open(key.sealedSigningSecret) } : {}),
    };
  }
}

function pickKey(
  keys: IntegrationKeyRecord[],
  kind: EndpointKindName,
  endpointIdentifier: string,
): IntegrationKeyRecord | undefined {
  switch (kind) {
    case "http":
      return keys.find((k) => k.type === "http" && k.endpointIdentifier === endpointIdentifier.toLowerCase());
    case "http_legacy":
      return keys.find((k) => k.type === "http");
    case "prometheus":
      return keys.find((k) => k.type === "prometheus");
  }
}
