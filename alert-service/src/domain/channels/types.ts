/** Outbound channels (PRODUCT.md section 12): chat integrations and project webhooks, one kind of destination. */

const CHAT_KINDS = ["slack", "mattermost", "microsoft-teams"] as const;
export type ChatKind = (typeof CHAT_KINDS)[number];
/** A destination is a chat integration (one per kind and project) or a project hook (many). */
export type DestinationKind = ChatKind | "hook";

export const isChatKind = (value: string): value is ChatKind => (CHAT_KINDS as readonly string[]).includes(value);

/** One place messages go to. Secrets (`url` of a chat integration, `token`, `signingSecret`) never leave the service unmasked. */
export interface DestinationRecord {
  id: number;
  projectId: number;
  kind: DestinationKind;
  url: string;
  /** Hooks: sent as X-Gitlab-Token; null when unset. */
  token: string | null;
  /** Hooks: the Standard Webhooks key, `whsec_<base64>`; null for chat. */
  signingSecret: string | null;
  /**
   * Hooks: the secret replaced by the last rotation, still signing beside the new one (Standard
   * Webhooks' space-separated signatures) until `previousSigningSecretExpiresAt`; null when none.
   */
  previousSigningSecret: string | null;
  previousSigningSecretExpiresAt: Date | null;
  /** Chat: the sender name and channels (Slack/Mattermost; ignored by Teams). Empty when unset. */
  username: string;
  channel: string;
  alertChannel: string;
  incidentChannel: string;
  alertEvents: boolean;
  incidentEvents: boolean;
  enableSslVerification: boolean;
  /** Hooks: whether deliveries carry Standard Webhooks signatures. */
  signing: boolean;
  /** Set when a receiver answered 410 Gone; cleared by a new URL. */
  disabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export type NewDestination = Omit<
  DestinationRecord,
  "id" | "updatedAt" | "disabled" | "previousSigningSecret" | "previousSigningSecretExpiresAt"
>;

/** The fields an update may change; `at` is the new updated_at. */
export type DestinationPatch = Partial<
  Pick<
    DestinationRecord,
    | "url"
    | "token"
    | "signingSecret"
    | "previousSigningSecret"
    | "previousSigningSecretExpiresAt"
    | "username"
    | "channel"
    | "alertChannel"
    | "incidentChannel"
    | "alertEvents"
    | "incidentEvents"
    | "enableSslVerification"
    | "signing"
    | "disabled"
  >
> & { at: Date };
