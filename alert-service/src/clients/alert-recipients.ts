import { createClient } from "@tocsin/grpc";
import { MAX_NOTIFICATION_EMAIL_USERS, settingsV1 } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";
import type { AlertRecipients } from "../domain/mail/ports.js";

/** AlertRecipients over settings-service's ResolveAlertRecipients and ListNotificationEmails. Returns the client's close too. */
export function createAlertRecipients(address: string, tracing?: Tracing): AlertRecipients & { close(): void } {
  const client = createClient(settingsV1.SettingsServiceService, {
    target: "settings",
    address,
    timeoutMs: 5000,
    ...(tracing ? { tracing } : {}),
  });
  return {
    async forProject(projectId, ctx) {
      const { recipients } = await client.resolveAlertRecipients({ projectId }, ctx);
      return recipients.map((r) => ({ userId: r.userId, email: r.email }));
    },
    async notificationEmails(userIds, ctx) {
      const out = new Map<number, string>();
      // settings-service answers at most MAX_NOTIFICATION_EMAIL_USERS ids a call.
      for (let i = 0; i < userIds.length; i += MAX_NOTIFICATION_EMAIL_USERS) {
        const ids = userIds.slice(i, i + MAX_NOTIFICATION_EMAIL_USERS);
        const { emails } = await client.listNotificationEmails({ userIds: ids }, ctx);
        for (const e of emails) out.set(e.userId, e.email);
      }
      return out;
    },
    close: () => client.close(),
  };
}
