import { randomUUID } from "node:crypto";
import type { DestinationKind, DestinationPatch, DestinationRecord } from "../../domain/channels/types.js";

/** The stored fields of a destination (both adapters), by column name. */
export interface DestinationColumns {
  project_id: number;
  kind: string;
  /** The chat kind (one per project), or `hook:<uuid>`: unique per project, in the database. */
  unique_key: string;
  url: string;
  token: string | null;
  signing_secret: string | null;
  /** Absent on rows and documents written before rotation overlap: read as null. */
  previous_signing_secret?: string | null;
  previous_signing_secret_expires_at?: Date | null;
  username: string;
  channel: string;
  alert_channel: string;
  incident_channel: string;
  alert_events: boolean;
  incident_events: boolean;
  enable_ssl_verification: boolean;
  signing: boolean;
  disabled: boolean;
  created_at: Date;
  updated_at: Date;
}

export const uniqueKeyOf = (kind: DestinationKind) => (kind === "hook" ? `hook:${randomUUID()}` : kind);

export function fromColumns(id: number, c: DestinationColumns): DestinationRecord {
  return {
    id,
    projectId: c.project_id,
    kind: c.kind as DestinationKind,
    url: c.url,
    token: c.token,
    signingSecret: c.signing_secret,
    previousSigningSecret: c.previous_signing_secret ?? null,
    previousSigningSecretExpiresAt: c.previous_signing_secret_expires_at ?? null,
    username: c.username,
    channel: c.channel,
    alertChannel: c.alert_channel,
    incidentChannel: c.incident_channel,
    alertEvents: c.alert_events,
    incidentEvents: c.incident_events,
    enableSslVerification: c.enable_ssl_verification,
    signing: c.signing,
    disabled: c.disabled,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
  };
}

const PATCH_COLUMNS: Record<Exclude<keyof DestinationPatch, "at">, keyof DestinationColumns> = {
  url: "url",
  token: "token",
  signingSecret: "signing_secret",
  previousSigningSecret: "previous_signing_secret",
  previousSigningSecretExpiresAt: "previous_signing_secret_expires_at",
  username: "username",
  channel: "channel",
  alertChannel: "alert_channel",
  incidentChannel: "incident_channel",
  alertEvents: "alert_events",
  incidentEvents: "incident_events",
  enableSslVerification: "enable_ssl_verification",
  signing: "signing",
  disabled: "disabled",
};

/** The columns a patch sets (updated_at included). */
export function patchColumns(patch: DestinationPatch): Partial<DestinationColumns> {
  const out: Record<string, unknown> = { updated_at: patch.at };
  for (const [field, column] of Object.entries(PATCH_COLUMNS)) {
    const value = patch[field as keyof typeof PATCH_COLUMNS];
    if (value !== undefined) out[column] = value;
  }
  return out as Partial<DestinationColumns>;
}
