import { join } from "node:path";
import { type Clock, type Logger, systemClock } from "@tocsin/core";
import { createGrpcServer } from "@tocsin/grpc";
import { alertV1, PROTO_FILES } from "@tocsin/proto";
import { openSqlite } from "@tocsin/store";
import type Database from "better-sqlite3";
import { type Db, MongoClient } from "mongodb";
import { createAlertsRuntime } from "./alerts-runtime.js";
import { createAuthClient } from "./clients/auth-client.js";
import { createIntegrationKeys } from "./clients/integration-keys.js";
import { createProjectAccess } from "./clients/project-access.js";
import { type AlertServiceConfig, mongoDbName, queuePrefix } from "./config.js";
import { createIntegrationsModule } from "./domain/integrations/module.js";
import type { IntegrationStore } from "./domain/integrations/types.js";
import { alertHandlers } from "./handlers/alerts.js";
import { integrationHandlers } from "./handlers/integrations.js";
import { createMongoIntegrationStore } from "./store/integrations/mongo-integration-store.js";
import { createSqliteIntegrationStore } from "./store/integrations/sqlite-integration-store.js";

export interface AlertServiceOverrides {
  logger: Logger;
  clock?: Clock;
}

interface Storage {
  sqlite?: Database.Database;
  mongo?: Db;
  integrations: IntegrationStore;
  close(): Promise<void>;
}

/** SQLite `${DATA_DIR}/alert.db` (WAL) by default; MongoDB when MONGO_URL is set. */
async function openStorage(config: AlertServiceConfig): Promise<Storage> {
  if (config.mongoUrl) {
    const client = await MongoClient.connect(config.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
    const mongo = client.db(mongoDbName(config));
    return { mongo, integrations: await createMongoIntegrationStore(mongo), close: () => client.close() };
  }
  const sqlite = openSqlite(join(config.dataDir, "alert.db"));
  return { sqlite, integrations: createSqliteIntegrationStore(sqlite), close: async () => void sqlite.close() };
}

/** Wires storage, auth-service, integrations, the alerts runtime and the gRPC server; binds it. */
export async function createAlertService(config: AlertServiceConfig, overrides: AlertServiceOverrides) {
  const { logger } = overrides;
  const clock = overrides.clock ?? systemClock;
  const storage = await openStorage(config);
  const auth = createAuthClient(config.authServiceAddr);
  const projects = createProjectAccess(auth, clock);
  const integrations = createIntegrationsModule({
    store: storage.integrations,
    keys: createIntegrationKeys(auth),
    projects,
    clock,
    logger: logger.child({ module: "integrations" }),
    externalUrl: config.externalUrl,
  });
  const runtime = await createAlertsRuntime({
    ...(storage.sqlite ? { sqlite: storage.sqlite } : {}),
    ...(storage.mongo ? { mongo: storage.mongo } : {}),
    dataDir: config.dataDir,
    ...(config.redisUrl ? { redisUrl: config.redisUrl, queuePrefix: queuePrefix(config) } : {}),
    projects,
    integrations: integrations.directory,
    clock,
    logger,
  });
  const server = createGrpcServer({ logger, protoFiles: [PROTO_FILES.alert], serviceNames: ["alert.v1.AlertService"] });
  server.add(alertV1.AlertServiceService, { ...integrationHandlers(integrations), ...alertHandlers(runtime.module) });
  await runtime.start();
  const port = await server.listen(config.alertServiceAddr);
  const host = config.alertServiceAddr.slice(0, config.alertServiceAddr.lastIndexOf(":"));
  const address = `${host}:${port}`;

  // SERVING once the store and the queue answer; re-checked so that health follows them.
  const checkHealth = async () => {
    const ok = await Promise.all([storage.integrations.ping().then(() => true), runtime.healthy()]).then(
      (all) => all.every(Boolean),
      () => false,
    );
    server.setServing(ok);
    return ok;
  };
  await checkHealth();
  const healthTimer = setInterval(() => void checkHealth(), 5_000);
  healthTimer.unref();

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      clearInterval(healthTimer);
      await server.shutdown(5_000);
      await runtime.stop();
      auth.close();
      await storage.close();
    })();
    return stopping;
  };
  return { address, stop };
}
