import type { authV1 } from "@tocsin/proto";
import type { PromiseClient } from "./client.js";

/** A client of auth-service, as every other process holds one (one declaration for all of them). */
export type AuthClient = PromiseClient<typeof authV1.AuthServiceService>;
