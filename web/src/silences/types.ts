/** A silence as the snake_case REST API answers it (docs/silences.md, "REST"). */
export interface Matcher {
  name: string;
  value: string;
  is_regex: boolean;
  is_equal: boolean;
}

export const SILENCE_STATES = ["active", "pending", "expired"] as const;
export type SilenceState = (typeof SILENCE_STATES)[number];

export interface Silence {
  id: string;
  project_id: number;
  matchers: Matcher[];
  starts_at: string;
  ends_at: string;
  created_by: string;
  comment: string;
  state: SilenceState;
  updated_at: string;
}

export interface NewSilence {
  matchers: Matcher[];
  ends_at: string;
  comment: string;
}
