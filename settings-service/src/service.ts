import { join } from "node:path";
import type { RunningService, ServiceDeps } from "@tocsin/core";
import { connectableAddress, createGrpcServer, type HealthCheck, serviceDependency, startHealthPolicy } from "@tocsin/grpc";
import { PROTO_FILES, settingsV1 } from "@tocsin/proto";
import { mongoDbName as storeDbName } from "@tocsin/store";
import { startTracing } from "@tocsin/telemetry";
import { createAuthClient, createAuthDirectory } from "./clients/auth-directory.js";
import { createCachedDirectory } from "./clients/cached-directory.js";
import type { SettingsConfig } from "./config.js";
import type { Directory, SettingsStore } from "./domain/ports.js";
import { createSettingsUseCases } from "./domain/settings.js";
import { createSettingsHandlers } from "./handlers/settings-handlers.js";
import { MongoSettingsStore } from "./store/mongo-settings-store.js";
import { SqliteSettingsStore } from "./store/sqlite-settings-store.js";

const SERVICE_NAME = "settings.v1.SettingsService";

export interface SettingsServiceDeps extends ServiceDeps {
  /** Replaces auth-service (tests of the gRPC surface without auth); no auth health check then. */
  directory?: Directory;
  /** Replaces the configured store; a store passed in is the caller's to close. */
  store?: SettingsStore;
}

/** MONGO_DB wins, then the database named in MONGO_URL, then `tocsin_settings`. */
function mongoDbName(config: SettingsConfig): string {
  return storeDbName(config.mongoUrl, config.mongoDb, "tocsin_settings");
}

async function openStore(config: SettingsConfig): Promise<SettingsStore> {
  if (config.mongoUrl) return MongoSettingsStore.open(config.mongoUrl, mongoDbName(config));
  return new SqliteSettingsStore(join(config.dataDir, "settings.db"));
}

/**
 * settings-service: opens the store, binds gRPC on SETTINGS_SERVICE_ADDR (port 0 allowed) and
 * serves health by the one policy (its store and auth-service).
 */
export async function createSettingsService(config: SettingsConfig, deps: SettingsServiceDeps): Promise<RunningService> {
  const { logger, clock } = deps;
  const store = deps.store ?? (await openStore(config));
  const tracing = await startTracing(config.tracing);
  const auth = deps.directory ? undefined : createAuthClient(config.authServiceAddr, tracing);
  const directoryCache = auth ? createCachedDirectory(createAuthDirectory(auth), { auth, logger }) : undefined;
  const directory = deps.directory ?? (directoryCache as Directory);
  const closeAll = async () => {
    directoryCache?.close();
    auth?.close();
    if (!deps.store) await store.close();
    await tracing?.shutdown();
  };
  const useCases = createSettingsUseCases({ store, directory, clock });
  const server = createGrpcServer({ logger, protoFiles: [PROTO_FILES.settings], serviceNames: [SERVICE_NAME], tracing });
  server.add(settingsV1.SettingsServiceService, createSettingsHandlers({ useCases, store, directory }));
  let port: number;
  try {
    await store.ping();
    port = await server.listen(config.listenAddr);
  } catch (err) {
    await closeAll();
    throw err;
  }
  const checks: HealthCheck[] = [{ name: "store", check: () => store.ping() }];
  if (auth) checks.push(serviceDependency("auth-service", config.authServiceAddr));
  const health = await startHealthPolicy(server, checks, { logger });
  let stopping: Promise<void> | undefined;
  return {
    address: connectableAddress(config.listenAddr, port),
    stop() {
      stopping ??= (async () => {
        health.stop();
        await server.shutdown(5000);
        await closeAll();
      })();
      return stopping;
    },
  };
}
