import { createClient } from "@tocsin/grpc";
import { settingsV1 } from "@tocsin/proto";
import type { AlertRecipients } from "../domain/mail/ports.js";

/** AlertRecipients over settings-service's ResolveAlertRecipients. Returns the client's close too. */
export function createAlertRecipients(address: string): AlertRecipients & { close(): void } {
  const client = createClient(settingsV1.SettingsServiceService, { target: "settings", address, timeoutMs: 5000 });
  return {
    async forProject(projectId, ctx) {
      const { recipients } = await client.resolveAlertRecipients({ projectId }, ctx);
      return recipients.map((r) => ({ userId: r.userId, email: r.email }));
    },
    close: () => client.close(),
  };
}
