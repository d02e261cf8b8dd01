import type { ChatKind, DestinationPatch, DestinationRecord, NewDestination } from "./types.js";

/**
 * Where destinations are kept (the alert database). A project has at most one chat integration
 * of each kind — a unique index, not only code — and any number of hooks. Ids increase.
 */
export interface DestinationStore {
  /** Inserts; ALREADY_EXISTS (DESTINATION_EXISTS) for a second chat integration of a kind. */
  insert(destination: NewDestination): Promise<DestinationRecord>;
  get(projectId: number, id: number): Promise<DestinationRecord | undefined>;
  /** The project's chat integration of `kind`, if saved. */
  chat(projectId: number, kind: ChatKind): Promise<DestinationRecord | undefined>;
  /** The project's destinations, oldest first (every kind, or hooks alone with `kind: "hook"`). */
  list(projectId: number, kind?: "hook"): Promise<DestinationRecord[]>;
  /** Changes the given fields; undefined when there is no such destination. */
  update(projectId: number, id: number, patch: DestinationPatch): Promise<DestinationRecord | undefined>;
  /** True when it existed. */
  delete(projectId: number, id: number): Promise<boolean>;
  ping(): Promise<void>;
}
