import { type CallContext, type Clock, checkGraceSeconds, notFound, paramMissing } from "@tocsin/core";
import type { ProjectAccess } from "../ports.js";
import { ACCESS, type ProjectRef } from "../types.js";
import type { DestinationStore } from "./ports.js";
import { checkDestinationUrl, checkText, newSigningSecret } from "./rules.js";
import type { ChatKind, DestinationPatch, DestinationRecord } from "./types.js";

/** What the configuration use-cases need. */
export interface DestinationsDeps {
  store: DestinationStore;
  projects: ProjectAccess;
  clock: Clock;
  /** OUTBOUND_ALLOW_LOCAL_NETWORK: http URLs (and local addresses, at delivery) allowed. */
  allowLocalNetwork: boolean;
}

/** A chat integration's fields as given (GitLab's names, PRODUCT.md section 12); unset = unchanged. */
interface ChatInput {
  webhook?: string | undefined;
  username?: string | undefined;
  channel?: string | undefined;
  alertEvents?: boolean | undefined;
  alertChannel?: string | undefined;
  incidentEvents?: boolean | undefined;
  incidentChannel?: string | undefined;
}

/** A hook's fields as given; unset = unchanged (or the default on create). `token: ""` removes the token. */
interface HookInput {
  url?: string | undefined;
  token?: string | undefined;
  alertEvents?: boolean | undefined;
  incidentEvents?: boolean | undefined;
  enableSslVerification?: boolean | undefined;
  signing?: boolean | undefined;
}

/** A hook as answered, with its signing secret when one was just issued. */
interface IssuedHook {
  hook: DestinationRecord;
  signingSecret: string;
}

const integrationNotFound = () => notFound("Integration");
const hookNotFound = () => notFound("Hook");

/** The configuration of chat integrations and hooks: Maintainer+, reads included. */
export interface Destinations {
  /** The project (Maintainer+), for the delivery-log calls. */
  project(idOrPath: string, ctx: CallContext): Promise<ProjectRef>;
  getChat(idOrPath: string, kind: ChatKind, ctx: CallContext): Promise<DestinationRecord>;
  putChat(idOrPath: string, kind: ChatKind, input: ChatInput, ctx: CallContext): Promise<DestinationRecord>;
  deleteChat(idOrPath: string, kind: ChatKind, ctx: CallContext): Promise<void>;
  listHooks(idOrPath: string, ctx: CallContext): Promise<DestinationRecord[]>;
  createHook(idOrPath: string, input: HookInput, ctx: CallContext): Promise<IssuedHook>;
  getHook(idOrPath: string, id: number, ctx: CallContext): Promise<DestinationRecord>;
  updateHook(idOrPath: string, id: number, input: HookInput, ctx: CallContext): Promise<DestinationRecord>;
  deleteHook(idOrPath: string, id: number, ctx: CallContext): Promise<void>;
  /**
   * A new signing secret. With `graceSeconds` (0 to 86 400) the replaced secret keeps signing beside
   * it that long; with 0 it stops at once, and so does any older secret still in its overlap.
   */
  rotateHookSecret(idOrPath: string, id: number, graceSeconds: number, ctx: CallContext): Promise<IssuedHook>;
}

const text = (field: string, value: string | undefined) => (value === undefined ? undefined : checkText(field, value.trim()));

/** Only the fields that are set: `exactOptionalPropertyTypes`-safe patches. */
function defined<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as never;
}

function chatPatch(deps: DestinationsDeps, input: ChatInput, at: Date): DestinationPatch {
  const url = input.webhook === undefined ? undefined : checkDestinationUrl("webhook", input.webhook, deps.allowLocalNetwork);
  return {
    ...defined({
      url,
      username: text("username", input.username),
      channel: text("channel", input.channel),
      alertChannel: text("alert_channel", input.alertChannel),
      incidentChannel: text("incident_channel", input.incidentChannel),
      alertEvents: input.alertEvents,
      incidentEvents: input.incidentEvents,
    }),
    // A new URL is a new receiver: one that answered 410 before is tried again (section 12).
    ...(url !== undefined ? { disabled: false } : {}),
    at,
  };
}

function hookPatch(deps: DestinationsDeps, input: HookInput, at: Date): DestinationPatch {
  const url = input.url === undefined ? undefined : checkDestinationUrl("url", input.url, deps.allowLocalNetwork);
  return {
    ...defined({
      url,
      alertEvents: input.alertEvents,
      incidentEvents: input.incidentEvents,
      enableSslVerification: input.enableSslVerification,
      signing: input.signing,
    }),
    ...(input.token !== undefined ? { token: input.token === "" ? null : checkText("token", input.token) } : {}),
    ...(url !== undefined ? { disabled: false } : {}),
    at,
  };
}

export function createDestinations(deps: DestinationsDeps): Destinations {
  const project = (idOrPath: string, ctx: CallContext) => deps.projects.require(idOrPath, ACCESS.maintainer, ctx);
  const hookOf = async (projectId: number, id: number) => {
    const hook = await deps.store.get(projectId, id);
    if (hook?.kind !== "hook") throw hookNotFound();
    return hook;
  };
  return {
    project,
    async getChat(idOrPath, kind, ctx) {
      const p = await project(idOrPath, ctx);
      const chat = await deps.store.chat(p.id, kind);
      if (!chat) throw integrationNotFound();
      return chat;
    },
    async putChat(idOrPath, kind, input, ctx) {
      const p = await project(idOrPath, ctx);
      const at = deps.clock.now();
      const patch = chatPatch(deps, input, at);
      const existing = await deps.store.chat(p.id, kind);
      if (existing) return (await deps.store.update(p.id, existing.id, patch)) ?? Promise.reject(integrationNotFound());
      if (patch.url === undefined) throw paramMissing("webhook");
      return deps.store.insert({
        projectId: p.id,
        kind,
        url: patch.url,
        token: null,
        signingSecret: null,
        username: patch.username ?? "",
        channel: patch.channel ?? "",
        alertChannel: patch.alertChannel ?? "",
        incidentChannel: patch.incidentChannel ?? "",
        // GitLab's Slack integration turns alert events on by default.
        alertEvents: patch.alertEvents ?? true,
        incidentEvents: patch.incidentEvents ?? false,
        enableSslVerification: true,
        signing: false,
        createdAt: at,
      });
    },
    async deleteChat(idOrPath, kind, ctx) {
      const p = await project(idOrPath, ctx);
      const chat = await deps.store.chat(p.id, kind);
      if (chat) await deps.store.delete(p.id, chat.id);
    },
    async listHooks(idOrPath, ctx) {
      const p = await project(idOrPath, ctx);
      return deps.store.list(p.id, "hook");
    },
    async createHook(idOrPath, input, ctx) {
      const p = await project(idOrPath, ctx);
      if (input.url === undefined || input.url.trim() === "") throw paramMissing("url");
      const at = deps.clock.now();
      const patch = hookPatch(deps, input, at);
      const signingSecret = newSigningSecret();
      const hook = await deps.store.insert({
        projectId: p.id,
        kind: "hook",
        url: patch.url as string,
        token: patch.token ?? null,
        signingSecret,
        username: "",
        channel: "",
        alertChannel: "",
        incidentChannel: "",
        alertEvents: patch.alertEvents ?? true,
        incidentEvents: patch.incidentEvents ?? false,
        enableSslVerification: patch.enableSslVerification ?? true,
        signing: patch.signing ?? true,
        createdAt: at,
      });
      return { hook, signingSecret };
    },
    async getHook(idOrPath, id, ctx) {
      const p = await project(idOrPath, ctx);
      return hookOf(p.id, id);
    },
    async updateHook(idOrPath, id, input, ctx) {
      const p = await project(idOrPath, ctx);
      await hookOf(p.id, id);
      const updated = await deps.store.update(p.id, id, hookPatch(deps, input, deps.clock.now()));
      if (!updated) throw hookNotFound();
      return updated;
    },
    async deleteHook(idOrPath, id, ctx) {
      const p = await project(idOrPath, ctx);
      await hookOf(p.id, id);
      await deps.store.delete(p.id, id);
    },
    async rotateHookSecret(idOrPath, id, graceSeconds, ctx) {
      checkGraceSeconds(graceSeconds);
      const p = await project(idOrPath, ctx);
      const old = await hookOf(p.id, id);
      const signingSecret = newSigningSecret();
      const at = deps.clock.now();
      const overlap = graceSeconds > 0 && old.signingSecret !== null;
      const hook = await deps.store.update(p.id, id, {
        signingSecret,
        previousSigningSecret: overlap ? old.signingSecret : null,
        previousSigningSecretExpiresAt: overlap ? new Date(at.getTime() + graceSeconds * 1000) : null,
        at,
      });
      if (!hook) throw hookNotFound();
      return { hook, signingSecret };
    },
  };
}
