import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AppError, type CallContext, silentLogger, systemClock } from "@tocsin/core";
import { createClient, type PromiseClient } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import { afterAll, describe, expect } from "vitest";
import { loadConfig } from "./config.js";
import { createAuthService } from "./service.js";
import { MongoAuthStore } from "./store/mongo-auth-store.js";

/**
 * What the suites of auth-service over gRPC share (service-identity.test.ts and
 * service-integration-keys.test.ts): the admin token and call contexts, how a refusal reads, the
 * service booted with a client, and the run of a suite on SQLite and on MongoDB.
 */

export type Client = PromiseClient<typeof authV1.AuthServiceService>;

export const ADMIN_TOKEN = "admin-token-for-auth-tests-0123";
export const sys: CallContext = { requestId: "test" };
export const as = (userId: number): CallContext => ({ requestId: "test", principal: { userId } });
export const fail = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail("expected a failure"),
    (e: unknown) => e as AppError,
  );

/**
 * `describeService` on SQLite, then on MongoDB inside a "MongoDB" block that drops the database
 * afterwards. `mongoUrl` is `inject("mongoUrl")` of the test file (passed in: auth-service's build
 * compiles this file and does not see the suite's provided values); empty, the MongoDB run is
 * skipped, and said so.
 */
export function onEachStore(mongoUrl: string, describeService: (label: string, storeEnv: Record<string, string>) => void) {
  const mongoDb = `tocsin_test_auth_grpc_${process.pid}_${Date.now().toString(36)}`;
  if (!mongoUrl) console.warn("auth-service gRPC suite on MongoDB SKIPPED: no MongoDB-protocol server");

  describeService("SQLite", {});
  describe.skipIf(!mongoUrl)("MongoDB", () => {
    afterAll(async () => {
      const store = await MongoAuthStore.connect(mongoUrl, mongoDb);
      await store.drop();
      await store.close();
    });
    describeService("MongoDB", { MONGO_URL: mongoUrl, MONGO_DB: mongoDb });
  });
}

export interface AuthOverGrpc {
  client: Client;
  /** The bootstrap admin's (root's) user id. */
  rootId: number;
  /** A user (not an admin) created by root, with a confirmed `<username>@example.com`. */
  createUser(username: string): Promise<authV1.User>;
  /** Closes the client, stops the service and removes its data directory. */
  stop(): Promise<void>;
}

/** auth-service on a free port, its data in a directory of its own (and in `storeEnv`'s store), silent, and a client. */
export async function startAuthOverGrpc(storeEnv: Record<string, string>): Promise<AuthOverGrpc> {
  const dir = mkdtempSync(join(tmpdir(), "auth-grpc-"));
  const service = await createAuthService(
    loadConfig({
      AUTH_SERVICE_ADDR: "127.0.0.1:0",
      DATA_DIR: dir,
      ADMIN_TOKEN,
      SECRET_KEY: "secret-key-for-tests-0123456789",
      LOG_LEVEL: "silent",
      ...storeEnv,
    }),
    { logger: silentLogger(), clock: systemClock },
  );
  const client = createClient(authV1.AuthServiceService, { target: "auth", address: service.address });
  const rootId = (await client.authenticateToken({ token: ADMIN_TOKEN }, sys)).principal?.userId ?? 0;
  return {
    client,
    rootId,
    createUser: async (username) =>
      (await client.createUser({ username, email: `${username}@example.com`, name: username, admin: false }, as(rootId)))
        .user as authV1.User,
    stop: async () => {
      client.close();
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
