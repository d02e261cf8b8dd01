import { authV1 } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";
import { createClient, type PromiseClient } from "./client.js";

/** A client of auth-service, as every other process holds one (one declaration for all of them). */
export type AuthClient = PromiseClient<typeof authV1.AuthServiceService>;

/** The client of auth-service: every call has a deadline (5 s by default) and failures arrive as AppErrors. */
export function createAuthClient(address: string, tracing?: Tracing): AuthClient {
  return createClient(authV1.AuthServiceService, { target: "auth", address, ...(tracing ? { tracing } : {}) });
}
