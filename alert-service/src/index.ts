export { type AlertServiceConfig, loadConfig } from "./config.js";
export { createAlertService, SERVICE_NAME } from "./service.js";
