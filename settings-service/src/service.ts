import { join } from "node:path";
import type { RunningService, ServiceDeps } from "@tocsin/core";
import {
  connectableAddress,
  createAuthClient,
  createGrpcServer,
  type HealthCheck,
  serviceDependency,
  startHealthPolicy,
} from "@tocsin/grpc";
import { oncallV1, PROTO_FILES, settingsV1 } from "@tocsin/proto";
import { mongoDbName as storeDbName } from "@tocsin/store";
import { startTracing } from "@tocsin/telemetry";
import { createAuthDirectory } from "./clients/auth-directory.js";
import { createCachedDirectory } from "./clients/cached-directory.js";
import { createOncallDirectory } from "./clients/oncall-directory.js";
import type { SettingsConfig } from "./config.js";
import { createOncallQueries } from "./domain/oncall/oncall-query.js";
import { createPolicyUseCases } from "./domain/oncall/policies.js";
import type { OncallStore } from "./domain/oncall/ports.js";
import { createScheduleUseCases } from "./domain/oncall/schedules.js";
import type { Directory, SettingsStore } from "./domain/ports.js";
import { createSettingsUseCases } from "./domain/settings.js";
import { createOncallHandlers } from "./handlers/oncall-handlers.js";
import { createSettingsHandlers } from "./handlers/settings-handlers.js";
import { MongoOncallStore } from "./store/mongo-oncall-store.js";
import { MongoSettingsStore } from "./store/mongo-settings-store.js";
import { SqliteOncallStore } from "./store/sqlite-oncall-store.js";
import { SqliteSettingsStore } from "./store/sqlite-settings-store.js";

const SERVICE_NAME = "settings.v1.SettingsService";
const ONCALL_SERVICE_NAME = "settings.v1.OncallService";

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

/** Schedules and policies live in the same database as the settings (own tables/collections). */
async function openOncallStore(config: SettingsConfig): Promise<OncallStore> {
  if (config.mongoUrl) return MongoOncallStore.open(config.mongoUrl, mongoDbName(config));
  return new SqliteOncallStore(join(config.dataDir, "settings.db"));
}

/**
 * settings-service: opens the store, binds gRPC on SETTINGS_SERVICE_ADDR (port 0 allowed) and
 * serves health by the one policy (its store and auth-service).
 */
export async function createSettingsService(config: SettingsConfig, deps: SettingsServiceDeps): Promise<RunningService> {
  const { logger, clock } = deps;
  const store = deps.store ?? (await openStore(config));
  const oncallStore = await openOncallStore(config).catch(async (err: unknown) => {
    if (!deps.store) await store.close();
    throw err;
  });
  const tracing = await startTracing(config.tracing);
  const auth = deps.directory ? undefined : createAuthClient(config.authServiceAddr, tracing);
  const directoryCache = auth ? createCachedDirectory(createAuthDirectory(auth), { auth, logger }) : undefined;
  const directory = deps.directory ?? (directoryCache as Directory);
  const closeAll = async () => {
    directoryCache?.close();
    auth?.close();
    if (!deps.store) await store.close();
    await oncallStore.close();
    await tracing?.shutdown();
  };
  const useCases = createSettingsUseCases({ store, directory, clock });
  const server = createGrpcServer({
    logger,
    protoFiles: [PROTO_FILES.settings, PROTO_FILES.oncall],
    serviceNames: [SERVICE_NAME, ONCALL_SERVICE_NAME],
    tracing,
  });
  server.add(settingsV1.SettingsServiceService, createSettingsHandlers({ useCases, store, directory }));
  if (auth) {
    const oncall = { store: oncallStore, directory: createOncallDirectory(auth) };
    const handlers = createOncallHandlers({
      schedules: createScheduleUseCases(oncall),
      queries: createOncallQueries({ ...oncall, now: () => clock.now() }),
      policies: createPolicyUseCases(oncall),
    });
    server.add(oncallV1.OncallServiceService, handlers);
  }
  let port: number;
  try {
    await store.ping();
    await oncallStore.ping();
    port = await server.listen(config.listenAddr);
  } catch (err) {
    await closeAll();
    throw err;
  }
  const checks: HealthCheck[] = [{ name: "store", check: () => Promise.all([store.ping(), oncallStore.ping()]).then(() => {}) }];
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
