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
  ping(): Promise<void>;
}
