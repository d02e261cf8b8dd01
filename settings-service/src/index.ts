export { loadConfig } from "./config.js";
export { createSettingsService } from "./service.js";
