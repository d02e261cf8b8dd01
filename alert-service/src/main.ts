import { runMain } from "@tocsin/core";
import { loadConfig } from "./config.js";
import { createAlertService } from "./service.js";

await runMain("alert-service", loadConfig, createAlertService);
