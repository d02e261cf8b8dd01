import { type AuthClient, createClient } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";

/** The client of auth-service: every call has a deadline and failures arrive as AppErrors. */
export function createAuthClient(address: string, tracing?: Tracing): AuthClient {
  return createClient(authV1.AuthServiceService, { target: "auth", address, timeoutMs: 5000, ...(tracing ? { tracing } : {}) });
}
