import { join } from "node:path";
import { type Clock, type RunningService, SecretBox, type ServiceDeps } from "@tocsin/core";
import { connectableAddress, createGrpcServer, type HealthCheck, startHealthPolicy } from "@tocsin/grpc";
import { authV1, PROTO_FILES } from "@tocsin/proto";
import { startTracing } from "@tocsin/telemetry";
import { type AuthConfig, eventsPrefix, mongoDbName, resolveSecretKey } from "./config.js";
import { AccessEvents } from "./domain/access-events.js";
import { ensureAdminPassword, ensureAdminToken } from "./domain/bootstrap.js";
import { Directory } from "./domain/directory.js";
import type { EventBus } from "./domain/event-bus.js";
import { GroupService } from "./domain/groups.js";
import { IntegrationKeyService } from "./domain/integration-keys.js";
import { KeyEvents } from "./domain/key-events.js";
import { ListingService } from "./domain/listings.js";
import type { AuthStore } from "./domain/ports.js";
import { ProjectService } from "./domain/projects.js";
import { SessionService } from "./domain/sessions.js";
import { SignInThrottle } from "./domain/sign-in-throttle.js";
import { TokenService } from "./domain/tokens.js";
import { UserService } from "./domain/users.js";
import { WatchHubs } from "./domain/watch-hubs.js";
import { InProcessEventBus } from "./events/in-process-event-bus.js";
import { RedisEventBus } from "./events/redis-event-bus.js";
import { accountHandlers } from "./handlers/account-handlers.js";
import { identityHandlers } from "./handlers/identity-handlers.js";
import { listingHandlers } from "./handlers/listing-handlers.js";
import { projectHandlers } from "./handlers/project-handlers.js";
import { sessionHandlers } from "./handlers/session-handlers.js";
import type { UseCases } from "./handlers/use-cases.js";
import { watchHandlers } from "./handlers/watch-handlers.js";
import { MongoAuthStore } from "./store/mongo-auth-store.js";
import { SqliteAuthStore } from "./store/sqlite-auth-store.js";

const SERVICE_NAME = "auth.v1.AuthService";

/** MongoDB when MONGO_URL is set, else SQLite in DATA_DIR. */
async function openStore(config: AuthConfig): Promise<AuthStore> {
  if (config.mongoUrl) return MongoAuthStore.connect(config.mongoUrl, mongoDbName(config));
  return new SqliteAuthStore(join(config.dataDir, "auth.db"));
}

/** The use-cases over one store and one event bus (in-process unless given: one replica). */
export function createUseCases(
  store: AuthStore,
  secretKey: string,
  clock: Clock,
  bus: EventBus = new InProcessEventBus(),
): UseCases {
  const access = new AccessEvents(bus);
  const keyEvents = new KeyEvents(bus);
  const directory = new Directory(store);
  const tokens = new TokenService(store, clock, { events: access });
  const watch = new WatchHubs(tokens);
  bus.attach(watch);
  const sessions = new SessionService(store, clock, new SignInThrottle(store, clock), access);
  return {
    users: new UserService(store, clock, access, sessions, tokens),
    tokens,
    sessions,
    listings: new ListingService(store, directory),
    groups: new GroupService(store, directory, keyEvents, clock, access),
    projects: new ProjectService(store, directory, clock, access),
    keys: new IntegrationKeyService(store, directory, new SecretBox(secretKey), keyEvents, clock),
    watch,
    clock,
  };
}

/**
 * auth-service: opens the store (and bootstraps the admin token), subscribes to the auth events
 * of every replica over Redis when REDIS_URL is set, binds gRPC on AUTH_SERVICE_ADDR (port 0
 * allowed) and serves health by the one policy (its store, and with REDIS_URL the event
 * subscription: a replica that may miss events is NOT_SERVING; it calls no other service).
 */
export async function createAuthService(config: AuthConfig, { logger, clock }: ServiceDeps): Promise<RunningService> {
  const secretKey = resolveSecretKey(config, logger);
  const store = await openStore(config);
  try {
    await store.ping();
    if (config.adminToken) await ensureAdminToken(store, clock, config.adminToken, logger);
    if (config.adminPassword) await ensureAdminPassword(store, clock, config.adminPassword, logger);
  } catch (err) {
    await store.close();
    throw err;
  }
  const redisBus = config.redisUrl
    ? new RedisEventBus({ url: config.redisUrl, prefix: eventsPrefix(config), logger })
    : undefined;
  const useCases = createUseCases(store, secretKey, clock, redisBus);
  await redisBus?.connect(5_000);
  const tracing = await startTracing(config.tracing);
  const server = createGrpcServer({ logger, protoFiles: [PROTO_FILES.auth], serviceNames: [SERVICE_NAME], tracing });
  server.add(authV1.AuthServiceService, {
    ...identityHandlers(useCases),
    ...sessionHandlers(useCases),
    ...accountHandlers(useCases),
    ...listingHandlers(useCases),
    ...projectHandlers(useCases),
    ...watchHandlers(useCases),
  });
  let port: number;
  try {
    port = await server.listen(config.listenAddr);
  } catch (err) {
    await redisBus?.close();
    await store.close();
    await tracing?.shutdown();
    throw err;
  }
  const checks: HealthCheck[] = [{ name: "store", check: () => store.ping() }];
  if (redisBus) checks.push({ name: "redis (auth events)", check: () => redisBus.check() });
  const health = await startHealthPolicy(server, checks, { logger });
  let stopping: Promise<void> | undefined;
  return {
    address: connectableAddress(config.listenAddr, port),
    stop() {
      stopping ??= (async () => {
        health.stop();
        // Open watch streams end first, so that the graceful shutdown is not held up by them.
        useCases.watch.close();
        await server.shutdown();
        await redisBus?.close();
        await store.close();
        await tracing?.shutdown();
      })();
      return stopping;
    },
  };
}
