import { createClient } from "@tocsin/grpc";
import { settingsV1 } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";
import type { AlertRecipients } from "../domain/mail/ports.js";

/** AlertRecipients over settings-service's ResolveAlertRecipients. Returns the client's close too. */
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
    close: () => client.close(),
  };
}
