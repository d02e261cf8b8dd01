import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger, RunningService, ServiceDeps } from "@tocsin/core";
import { connectableAddress, createAuthClient, createGrpcServer, serviceDependency, startHealthPolicy } from "@tocsin/grpc";
import { alertSilencesV1, alertV1, channelsV1, PROTO_FILES } from "@tocsin/proto";
import { openSqlite } from "@tocsin/store";
import { startTracing } from "@tocsin/telemetry";
import type Database from "better-sqlite3";
import { type Db, MongoClient } from "mongodb";
import { createAlertsRuntime } from "./alerts-runtime.js";
import { createChannelsRuntime } from "./channels-runtime.js";
import { createIntegrationKeys } from "./clients/integration-keys.js";
import { createOncallDirectory } from "./clients/oncall-directory.js";
import { createProjectAccess } from "./clients/project-access.js";
import { createProjectMembers } from "./clients/project-members.js";
import { type AlertServiceConfig, mongoDbName, queuePrefix } from "./config.js";
import type { IntegrationStore } from "./domain/integrations/ports.js";
import { createIntegrationsUseCases } from "./domain/integrations/use-cases.js";
import type { SilenceStore } from "./domain/silences/ports.js";
import { createSilencesUseCases } from "./domain/silences/use-cases.js";
import { alertHandlers } from "./handlers/alerts.js";
import { channelHandlers } from "./handlers/channels.js";
import { integrationHandlers } from "./handlers/integrations.js";
import { silenceHandlers } from "./handlers/silences.js";
import { createMailRuntime } from "./mail-runtime.js";
import { createMongoIntegrationStore } from "./store/integrations/mongo-integration-store.js";
import { createSqliteIntegrationStore } from "./store/integrations/sqlite-integration-store.js";
import { createMongoSilenceStore } from "./store/silences/mongo-silence-store.js";
import { createSqliteSilenceStore } from "./store/silences/sqlite-silence-store.js";

const SERVICE_NAME = "alert.v1.AlertService";
const CHANNEL_SERVICE_NAME = "alert.v1.ChannelService";
const SILENCE_SERVICE_NAME = "alert.v1.SilenceService";

interface Storage {
  sqlite?: Database.Database;
  mongo?: Db;
  integrations: IntegrationStore;
  silences: SilenceStore;
  close(): Promise<void>;
}

/** SQLite `${DATA_DIR}/alert.db` (WAL) by default; MongoDB when MONGO_URL is set. */
async function openStorage(config: AlertServiceConfig): Promise<Storage> {
  if (config.mongoUrl) {
    const client = await MongoClient.connect(config.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
    const mongo = client.db(mongoDbName(config));
    return {
      mongo,
      integrations: await createMongoIntegrationStore(mongo),
      silences: await createMongoSilenceStore(mongo),
      close: () => client.close(),
    };
  }
  const sqlite = openSqlite(join(config.dataDir, "alert.db"));
  return {
    sqlite,
    integrations: createSqliteIntegrationStore(sqlite),
    silences: createSqliteSilenceStore(sqlite),
    close: async () => void sqlite.close(),
  };
}

/**
 * The key that signs page acknowledge links: SECRET_KEY, else the one auth-service generated into
 * `DATA_DIR/secret.key` when the processes share DATA_DIR (`npm start`); else none (pages carry no
 * acknowledge link, said once in the log).
 */
function pageSecret(config: AlertServiceConfig, logger: Logger): string | undefined {
  if (config.secretKey) return config.secretKey;
  const file = join(config.dataDir, "secret.key");
  const key = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  if (key.length >= 16) return key;
  logger.warn("SECRET_KEY is not set: page e-mails carry no acknowledge link");
  return undefined;
}

/**
 * alert-service: opens its storage, wires auth-service, integrations and the alerts runtime (queue
 * workers included), binds gRPC on ALERT_SERVICE_ADDR (port 0 allowed) and serves health by the
 * one policy (its store, its queue and auth-service).
 */
export async function createAlertService(
  config: AlertServiceConfig,
  { logger, clock }: ServiceDeps,
): Promise<RunningService & { metricsPort: number | undefined }> {
  config = { ...config, secretKey: pageSecret(config, logger) };
  const storage = await openStorage(config);
  const tracing = await startTracing(config.tracing);
  const auth = createAuthClient(config.authServiceAddr, tracing);
  const projects = createProjectAccess(auth, clock);
  const members = createProjectMembers(auth);
  const directory = createOncallDirectory(config.settingsServiceAddr, tracing);
  const integrations = createIntegrationsUseCases({
    store: storage.integrations,
    keys: createIntegrationKeys(auth),
    projects,
    clock,
    logger: logger.child({ module: "integrations" }),
    externalUrl: config.externalUrl,
    defaultRateLimitPerMinute: config.webhookRateLimitPerMinute,
  });
  const mail = await createMailRuntime({
    config,
    ...(storage.sqlite ? { sqlite: storage.sqlite } : {}),
    ...(storage.mongo ? { mongo: storage.mongo } : {}),
    ...(config.redisUrl ? { redisUrl: config.redisUrl, queuePrefix: queuePrefix(config) } : {}),
    clock,
    logger,
    ...(tracing ? { tracing } : {}),
  });
  const channels = await createChannelsRuntime({
    config,
    ...(storage.sqlite ? { sqlite: storage.sqlite } : {}),
    ...(storage.mongo ? { mongo: storage.mongo } : {}),
    ...(config.redisUrl ? { redisUrl: config.redisUrl, queuePrefix: queuePrefix(config) } : {}),
    projects,
    clock,
    logger,
    ...(tracing ? { tracing } : {}),
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
    notifier: mail.notifier,
    channels: channels.reactor,
    paging: { directory, members, mail: mail.pages, secretKey: config.secretKey, secondMs: config.pagingSecondMs },
    defaultRateLimitPerMinute: config.webhookRateLimitPerMinute,
    backlog: config.backlog,
    usage: integrations.usage,
    autoResolveMinuteMs: config.autoResolveMinuteMs,
    ...(tracing ? { tracing } : {}),
    // ALERT_PROCESSING_THREAD with the embedded storage: processing runs in a worker thread (runsInThread).
    processingThread: {
      config: {
        processingThread: config.processingThread,
        dataDir: config.dataDir,
        tracing: config.tracing,
        mail: config.mail,
        channels: config.channels,
        externalUrl: config.externalUrl,
        autoResolveMinuteMs: config.autoResolveMinuteMs,
        settingsServiceAddr: config.settingsServiceAddr,
        authServiceAddr: config.authServiceAddr,
        pagingSecondMs: config.pagingSecondMs,
      },
      onMail: (lanes: number[]) => mail.wake(lanes),
      onChannels: (lanes: number[]) => channels.wake(lanes),
    },
  });
  const silences = createSilencesUseCases({
    store: storage.silences,
    projects,
    clock,
    newId: randomUUID,
    ended: (silence, at) => runtime.silenceEnded(silence, at),
    changed: (projectId) => runtime.silencesChanged(projectId),
  });
  const server = createGrpcServer({
    logger,
    protoFiles: [PROTO_FILES.alert, PROTO_FILES.channels, PROTO_FILES.silences],
    serviceNames: [SERVICE_NAME, CHANNEL_SERVICE_NAME, SILENCE_SERVICE_NAME],
    tracing,
  });
  server.add(alertV1.AlertServiceService, { ...integrationHandlers(integrations), ...alertHandlers(runtime.useCases, tracing) });
  server.add(channelsV1.ChannelServiceService, channelHandlers(channels.destinations, channels.deliveries));
  server.add(alertSilencesV1.SilenceServiceService, silenceHandlers(silences));
  let port: number;
  try {
    await runtime.start();
    await mail.start({ alerts: runtime.stores.alerts, projects, members });
    await channels.start({ alerts: runtime.stores.alerts, incidents: runtime.stores.incidents });
    port = await server.listen(config.listenAddr);
  } catch (err) {
    await runtime.stop();
    await mail.stop();
    await channels.stop();
    auth.close();
    directory.close();
    await storage.close();
    await tracing?.shutdown();
    throw err;
  }
  const health = await startHealthPolicy(
    server,
    [
      { name: "store", check: () => storage.integrations.ping() },
      { name: "queue", check: () => runtime.healthy() },
      { name: "mail queue", check: () => mail.healthy() },
      { name: "channel queue", check: () => channels.healthy() },
      serviceDependency("auth-service", config.authServiceAddr),
    ],
    { logger },
  );
  let stopping: Promise<void> | undefined;
  return {
    address: connectableAddress(config.listenAddr, port),
    metricsPort: mail.metricsPort(),
    stop() {
      stopping ??= (async () => {
        health.stop();
        await server.shutdown(5_000);
        await runtime.stop();
        await mail.stop();
        await channels.stop();
        auth.close();
        directory.close();
        await storage.close();
        await tracing?.shutdown();
      })();
      return stopping;
    },
  };
}
