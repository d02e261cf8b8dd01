import { runMain } from "@tocsin/core";
import { loadConfig } from "./config.js";
import { createGateway } from "./service.js";

await runMain("gateway", loadConfig, createGateway);
