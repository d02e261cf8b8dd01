import { createClient } from "@tocsin/grpc";
import { settingsV1 } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";
import type { AlertRecipients } from "../domain/mail/ports.js";

/** AlertRecipients over settings-service's ResolveAlertRecipients and GetGlobalSetting. Returns the client's close too. */
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
      const settings = await Promise.all(
        userIds.map(
          async (userId) => [userId, (await client.getGlobalSetting({ userId }, ctx)).setting?.notificationEmail] as const,
        ),
      );
      return new Map(settings.flatMap(([userId, email]) => (email ? [[userId, email] as const] : [])));
    },
    close: () => client.close(),
  };
}
