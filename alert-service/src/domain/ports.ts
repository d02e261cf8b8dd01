import type { CallContext } from "@tocsin/core";
import type { IntegrationRuntime, ProjectRef } from "./types.js";

/** Ports of alert-service's domain shared by alerts and integrations. No transport or driver types here. */

/** Port over auth-service's project directory. */
export interface ProjectAccess {
  /**
   * Resolves a project (numeric id or full path) visible to `ctx.principal` and checks that the
   * caller has at least `minLevel`. Errors: NOT_FOUND `404 Project Not Found` for unknown or
   * invisible projects, PERMISSION_DENIED `403 Forbidden` below the level.
   */
  require(idOrPath: string, minLevel: number, ctx: CallContext): Promise<ProjectRef>;
  /** Internal lookup by id, no role check (e.g. for queue workers). */
  byId(projectId: number, ctx: CallContext): Promise<ProjectRef>;
  /**
   * Every project `ctx.principal` can see (admins: all, unless `membership`), with the caller's
   * level; `search` is a case-insensitive substring of the name or path. Optional: wirings that
   * only process alerts leave it out.
   */
  visible?(filter: { membership: boolean; search: string }, ctx: CallContext): Promise<Array<ProjectRef & { name: string }>>;
}

/** Port implemented by the integrations use-cases, used by ingest and test alerts. */
export interface IntegrationDirectory {
  get(projectId: number, integrationId: number): Promise<IntegrationRuntime | undefined>;
  /** The API URL of the project's Opsgenie link while it is active (alerts are managed there). */
  opsgenieUrl(projectId: number): Promise<string | undefined>;
}
