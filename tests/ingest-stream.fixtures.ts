import { join } from "node:path";
import { AppError, type CallContext, silentLogger } from "@tocsin/core";
import type { createClient } from "@tocsin/grpc";
import type { alertV1 } from "@tocsin/proto";
import { expect } from "vitest";
import { api } from "./api.js";
import { bootAuth, bootGateway } from "./harness.js";

/**
 * What the IngestAlerts stream suites share (tests/ingest-stream-process.test.ts,
 * tests/ingest-stream-replicas.test.ts and tests/ingest-stream-unary-fallback.test.ts): the admin
 * token and secret key, a request and its call context, the AppError a call fails with, and the
 * projects and integrations they ingest into.
 */

export const ADMIN = "ingest-stream-admin-token-0123456789";
export const SECRET = "ingest-stream-secret-key-0123456789";
export type Alert = ReturnType<typeof createClient<typeof alertV1.AlertServiceService>>;
export type Boot = Awaited<ReturnType<typeof bootAuth>>;

/** auth-service in this process on a free port, its data under `dir`/auth, silent. */
export const bootStreamAuth = (dir: string) =>
  bootAuth(
    {
      AUTH_SERVICE_ADDR: "127.0.0.1:0",
      DATA_DIR: join(dir, "auth"),
      ADMIN_TOKEN: ADMIN,
      SECRET_KEY: SECRET,
      LOG_LEVEL: "silent",
    },
    { logger: silentLogger() },
  );

export const ctx = (requestId: string): CallContext => ({ requestId });
export const request = (
  projectId: number,
  integrationId: number,
  payloadJson: string,
  waitMs = 0,
): alertV1.IngestAlertRequest => ({
  projectId,
  integrationId,
  payloadJson,
  idempotencyKey: "",
  receivedAt: new Date(),
  waitMs,
  tier: "",
});
export const errorOf = async (promise: Promise<unknown>) => {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
};

/** A project with an active HTTP integration and one with an inactive one (Free tier: one each), through a gateway on `alertAddr`. */
export async function seed(authAddr: string, alertAddr: string) {
  const gateway = await bootGateway(
    {
      PORT: "0",
      AUTH_SERVICE_ADDR: authAddr,
      ALERT_SERVICE_ADDR: alertAddr,
      SETTINGS_SERVICE_ADDR: "127.0.0.1:1",
      LOG_LEVEL: "silent",
      SECRET_KEY: SECRET,
    },
    { logger: silentLogger() },
  );
  try {
    const admin = api(gateway.url, ADMIN);
    const integration = async (name: string, active: boolean) => {
      const project = await admin.post("/api/v4/projects", { name: `stream-${name}-${Date.now()}` });
      expect(project.status).toBe(201);
      const created = await admin.post(`/api/v4/projects/${project.body.id}/alert_management/http_integrations`, {
        name,
        active,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return { projectId: project.body.id as number, id: created.body.id as number };
    };
    const active = await integration("on", true);
    const inactive = await integration("off", false);
    return { projectId: active.projectId, active: active.id, inactiveProjectId: inactive.projectId, inactive: inactive.id };
  } finally {
    await gateway.stop();
  }
}
