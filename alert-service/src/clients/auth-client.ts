import { createClient, type PromiseClient } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";

export type AuthClient = PromiseClient<typeof authV1.AuthServiceService>;

/** The client of auth-service: every call has a deadline and failures arrive as AppErrors. */
export function createAuthClient(address: string, tracing?: Tracing): AuthClient {
  return createClient(authV1.AuthServiceService, { target: "auth", address, timeoutMs: 5000, ...(tracing ? { tracing } : {}) });
}
