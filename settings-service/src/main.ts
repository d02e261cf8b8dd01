import { runMain } from "@tocsin/core";
import { loadConfig } from "./config.js";
import { createSettingsService } from "./service.js";

await runMain("settings-service", loadConfig, createSettingsService);
