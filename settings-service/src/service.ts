import { join } from "node:path";
import { type Clock, type Logger, systemClock } from "@tocsin/core";
import { createGrpcServer, type GrpcServer } from "@tocsin/grpc";
import { PROTO_FILES, settingsV1 } from "@tocsin/proto";
import { mongoDbName as storeDbName } from "@tocsin/store";
import { type AuthClient, createAuthClient, createAuthDirectory } from "./clients/auth-directory.js";
import { type CachedDirectory, createCachedDirectory } from "./clients/cached-directory.js";
import type { SettingsConfig } from "./config.js";
import type { Directory, SettingsStore } from "./domain/ports.js";
import { createSettingsUseCases } from "./domain/settings.js";
import { createSettingsHandlers } from "./handlers/settings-handlers.js";
import { MongoSettingsStore } from "./store/mongo-settings-store.js";
import { SqliteSettingsStore } from "./store/sqlite-settings-store.js";

export const SERVICE_NAME = "settings.v1.SettingsService";

export interface SettingsServiceOverrides {
  logger: Logger;
  clock?: Clock;
  /** Replaces auth-service (tests of the gRPC surface without auth). */
  directory?: Directory;
  /** Replaces the configured store. */
  store?: SettingsStore;
}

/** MONGO_DB wins, then the database named in MONGO_URL, then `tocsin_settings`. */
function mongoDbName(config: SettingsConfig): string {
  return storeDbName(config.MONGO_URL, config.MONGO_DB, "tocsin_settings");
}

export async function openStore(config: SettingsConfig): Promise<SettingsStore> {
  if (config.MONGO_URL) return MongoSettingsStore.open(config.MONGO_URL, mongoDbName(config));
  return new SqliteSettingsStore(join(config.DATA_DIR, "settings.db"));
}

export interface SettingsServer {
  server: GrpcServer;
  store: SettingsStore;
  auth: AuthClient | undefined;
  /** The cache in front of auth-service (closed on stop); undefined with a directory override. */
  directoryCache: CachedDirectory | undefined;
}

/** Wiring: store, auth client, use-cases, gRPC server (not yet listening). */
export async function createSettingsServer(config: SettingsConfig, overrides: SettingsServiceOverrides): Promise<SettingsServer> {
  const store = overrides.store ?? (await openStore(config));
  const auth = overrides.directory ? undefined : createAuthClient(config.AUTH_SERVICE_ADDR);
  const directoryCache = auth ? createCachedDirectory(createAuthDirectory(auth), { auth, logger: overrides.logger }) : undefined;
  const directory = overrides.directory ?? (directoryCache as CachedDirectory);
  const useCases = createSettingsUseCases({ store, directory, clock: overrides.clock ?? systemClock });
  const server = createGrpcServer({ logger: overrides.logger, protoFiles: [PROTO_FILES.settings], serviceNames: [SERVICE_NAME] });
  server.add(settingsV1.SettingsServiceService, createSettingsHandlers({ useCases, store, directory }));
  return { server, store, auth, directoryCache };
}
