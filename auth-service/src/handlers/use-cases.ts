import type { Clock } from "@tocsin/core";
import type { GroupService } from "../domain/groups.js";
import type { IntegrationKeyService } from "../domain/integration-keys.js";
import type { ListingService } from "../domain/listings.js";
import type { ProjectService } from "../domain/projects.js";
import type { SessionService } from "../domain/sessions.js";
import type { TokenService } from "../domain/tokens.js";
import type { UserService } from "../domain/users.js";
import type { WatchHubs } from "../domain/watch-hubs.js";

/** Everything the gRPC handlers call. */
export interface UseCases {
  users: UserService;
  tokens: TokenService;
  groups: GroupService;
  projects: ProjectService;
  keys: IntegrationKeyService;
  sessions: SessionService;
  listings: ListingService;
  /** WatchIntegrationKeys and WatchAccessChanges. */
  watch: WatchHubs;
  clock: Clock;
}
