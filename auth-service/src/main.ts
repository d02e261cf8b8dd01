import { runMain } from "@tocsin/core";
import { loadConfig } from "./config.js";
import { createAuthService } from "./service.js";

await runMain("auth-service", loadConfig, createAuthService);
