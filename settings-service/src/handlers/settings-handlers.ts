import type { ServiceHandlers } from "@tocsin/grpc";
import type { settingsV1 } from "@tocsin/proto";
import { notificationEmails, resolveAlertRecipients } from "../domain/alert-recipients.js";
import type { Directory, SettingsStore } from "../domain/ports.js";
import { type RecipientQuery, resolveRecipients } from "../domain/recipients.js";
import type { SettingsUseCases } from "../domain/settings.js";
import { eventsChangeFromProto, settingToProto, sourceKindFromProto } from "./mapping.js";

type Handlers = ServiceHandlers<typeof settingsV1.SettingsServiceService>;

/** Thin gRPC handlers: map the request, call one use-case, map the result. */
export function createSettingsHandlers(deps: {
  useCases: SettingsUseCases;
  store: SettingsStore;
  directory: Directory;
}): Handlers {
  const { useCases } = deps;
  return {
    async getGlobalSetting(req, ctx) {
      return { setting: settingToProto(await useCases.getGlobal(req.userId, ctx)) };
    },
    async updateGlobalSetting(req, ctx) {
      const update = {
        events: eventsChangeFromProto(req.events),
        ...(req.level === undefined ? {} : { level: req.level }),
        ...(req.notificationEmail === undefined ? {} : { notificationEmail: req.notificationEmail }),
      };
      return { setting: settingToProto(await useCases.updateGlobal(req.userId, update, ctx)) };
    },
    async getSourceSetting(req, ctx) {
      const kind = sourceKindFromProto(req.sourceType);
      return { setting: settingToProto(await useCases.getSource(req.userId, kind, req.sourceIdOrPath, ctx)) };
    },
    async updateSourceSetting(req, ctx) {
      const kind = sourceKindFromProto(req.sourceType);
      const update = { events: eventsChangeFromProto(req.events), ...(req.level === undefined ? {} : { level: req.level }) };
      return { setting: settingToProto(await useCases.updateSource(req.userId, kind, req.sourceIdOrPath, update, ctx)) };
    },
    async resolveRecipients(req, ctx) {
      const query: RecipientQuery = {
        projectId: req.projectId,
        event: req.event,
        participantUserIds: req.participantUserIds,
        mentionedUserIds: req.mentionedUserIds,
      };
      const recipients = await resolveRecipients(deps, query, ctx);
      return { recipients: recipients.map((r) => ({ userId: r.userId, email: r.email, level: r.level, reason: r.reason })) };
    },
    async listNotificationEmails(req, ctx) {
      const emails = await notificationEmails(deps.store, req.userIds, ctx);
      return { emails: [...emails].map(([userId, email]) => ({ userId, email })) };
    },
    async resolveAlertRecipients(req, ctx) {
      const recipients = await resolveAlertRecipients(deps, req.projectId, ctx);
      return { recipients: recipients.map((r) => ({ userId: r.userId, email: r.email, level: r.level, reason: "alert" })) };
    },
  };
}
