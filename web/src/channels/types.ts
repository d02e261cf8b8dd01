export type ChatName = "slack" | "mattermost" | "microsoft-teams";

export const CHAT_NAMES: ChatName[] = ["slack", "mattermost", "microsoft-teams"];
export const CHAT_TITLES: Record<ChatName, string> = {
  slack: "Slack notifications",
  mattermost: "Mattermost notifications",
  "microsoft-teams": "Microsoft Teams notifications",
};

export interface ChatIntegration {
  id: number;
  title: string;
  slug: ChatName;
  active: boolean;
  alert_events: boolean;
  incident_events: boolean;
  alert_status: "executable" | "disabled";
  properties: { webhook: string; username: string; channel: string; alert_channel: string; incident_channel: string };
}

export interface Hook {
  id: number;
  url: string;
  alert_events: boolean;
  incident_events: boolean;
  enable_ssl_verification: boolean;
  signing: boolean;
  token_set: boolean;
  alert_status: "executable" | "disabled";
  created_at: string;
  /** Until when the secret replaced by the last rotation signs beside the new one; null when it kept none. */
  previous_signing_secret_expires_at: string | null;
  /** Only on create and rotate. */
  signing_secret?: string;
}

export interface Delivery {
  id: number;
  event_type: string;
  status: "delivered" | "retrying" | "failed";
  attempts: number;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  created_at: string;
}

export interface TestAnswer {
  delivered: boolean;
  response_status: number | null;
  error: string | null;
}
