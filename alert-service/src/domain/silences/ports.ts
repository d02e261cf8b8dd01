import type { Silence } from "./model.js";

/**
 * Storage of silences, one record per silence under its unique id (a UUID). Expired silences are
 * kept (they stay listed as expired).
 */
export interface SilenceStore {
  /** Stores a new silence; a second insert of one id is ALREADY_EXISTS (SILENCE_EXISTS). */
  insert(silence: Silence): Promise<void>;
  get(projectId: number, id: string): Promise<Silence | undefined>;
  /** The project's silences ordered by id; with `endsAfter`, only those ending later. */
  list(projectId: number, opts?: { endsAfter?: Date }): Promise<Silence[]>;
  /** Replaces every field of the stored silence with this id and project; false when there is none. */
  update(silence: Silence): Promise<boolean>;
  /**
   * Records which silences held an alert's last held event (its `silenced_by`), replacing what was
   * recorded; `[]` clears it (the alert was unsilenced).
   */
  markSilenced(alertId: number, silenceIds: string[], at: Date): Promise<void>;
  /** The recorded `silenced_by` of these alerts (alerts without one are absent). */
  silencedBy(alertIds: number[]): Promise<Map<number, string[]>>;
  /** The alerts whose recorded `silenced_by` names this silence. */
  alertsHeldBy(silenceId: string): Promise<number[]>;
  ping(): Promise<void>;
}
